// Graphs in a real browser (issue 47.1 and 47.7): adding a field to a drawn graph redraws it with
// the new field and never throws (the chart used to be rebuilt for the new field list while its
// data still held the old columns), on the built-in store and on VictoriaMetrics, at desktop and
// phone width; with two controllers on one broker the picker and the legends name the
// controller, and only this controller's fields are open by default.
// Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { Browser, Page } from 'playwright-core';
import { postJson, ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { startVictoria, type Victoria } from '../helpers/victoria.js';
import { launchBrowser, removeDir, startSim, type SimService, requireWebBuild } from './browser.js';

declare const document: { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> };

requireWebBuild();

t.setTimeout(limit(240_000));

const DEMO = JSON.parse(readFileSync(path.join(ROOT, 'scripts/demo-blocks.json'), 'utf8'));
const services: SimService[] = [];
let browser: Browser;
let vm: Victoria | undefined;

t.before(async () => {
  browser = await launchBrowser();
});

t.teardown(async () => {
  await browser?.close().catch(() => undefined);
  for (const s of services) {
    await s.stop();
    removeDir(s.dataDir);
  }
  await vm?.stop();
});

async function demo(sid: string, extra: string[] = []): Promise<SimService> {
  const s = await startSim(['--service-id', sid, ...extra]);
  services.push(s);
  const loaded = await postJson(`${s.cli.base}/${sid}/blocks/backup/load`, DEMO);
  if (loaded.status !== 200) throw new Error(`demo blocks not loaded on ${sid}: ${JSON.stringify(loaded.body)}`);
  return s;
}

/** Waits until the history API of `base` lists every field in `wanted` and has points of `drawn` ones. */
async function historyHas(base: string, wanted: string[], drawn: string[]): Promise<void> {
  const ask = async (what: string, body: unknown) => {
    const res = await fetch(`${base}/history/timeseries/${what}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`history ${what} answered ${res.status}`);
    return res.json();
  };
  let fields: string[] = [];
  let ranges: Array<{ values: unknown[] }> = [];
  for (let i = 0; i < 120; i++) {
    fields = (await ask('fields', { duration: '1h' })) as string[];
    ranges = (await ask('ranges', { fields: drawn, duration: '1h' })) as typeof ranges;
    if (
      wanted.every((f) => fields.includes(f)) &&
      ranges.length === drawn.length &&
      ranges.every((r) => r.values.length >= 2)
    )
      return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(
    `history never had ${wanted.filter((f) => !fields.includes(f)).join(', ')} (points: ${ranges.map((r) => r.values.length).join(', ')})`,
  );
}

/** A page that records every uncaught error and console error. */
async function watchedPage(width: number): Promise<{ page: Page; errors: string[] }> {
  const phone = width < 500;
  const page = await browser.newPage({ viewport: { width, height: 900 }, isMobile: phone, hasTouch: phone });
  page.setDefaultTimeout(limit(15_000));
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  return { page, errors };
}

/** Waits for `condition` (run in the page) unless the page reports an error first; says which. */
async function drawn(page: Page, errors: string[], condition: string): Promise<void> {
  const deadline = Date.now() + limit(15_000);
  while (!errors.length && !(await page.evaluate(condition))) {
    if (Date.now() > deadline)
      throw new Error(
        `the graph did not draw (${condition}); graph: ${await page.evaluate('JSON.stringify({ series: window.__graphSeries, points: window.__graphPoints })')}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

const legend = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll('[data-testid=chart] .u-legend .u-series .u-label'), (e) =>
      (e.textContent ?? '').trim(),
    ).filter(Boolean),
  );

/** Opens the graph with `start` fields, ticks `add`, and checks the redraw. */
async function addField(
  t: Test,
  base: string,
  width: number,
  start: string[],
  add: string,
): Promise<{ page: Page; errors: string[] }> {
  const w = await watchedPage(width);
  const { page, errors } = w;
  await page.goto(`${base}/`);
  await page.evaluate((f) => {
    localStorage.setItem('edgeblocks.graph.fields', JSON.stringify(f));
    localStorage.setItem('edgeblocks.graph.range', '1h');
  }, start);
  await page.goto(`${base}/#/graphs`);
  await page.getByTestId('chart').locator('canvas').waitFor();
  await drawn(page, errors, `window.__graphSeries === ${start.length} && window.__graphPoints > 0`);
  t.same(errors, [], 'no error while the graph loads');
  t.equal((await legend(page)).length, start.length + 1, 'the legend has the time and each field');
  await page.locator('summary').filter({ hasText: 'Fields' }).click();
  await page.locator(`input[type=checkbox][data-field="${add}"]`).check();
  await drawn(page, errors, `window.__graphSeries === ${start.length + 1} && window.__graphPoints > 0`);
  t.same(errors, [], 'no error while the graph took the new field');
  t.equal((await legend(page)).length, start.length + 2, 'the legend has the new field');
  t.ok(await page.getByTestId('chart').locator('canvas').isVisible(), 'the chart is drawn, not a column of text');
  return w;
}

t.test('adding a field redraws the graph (built-in store, two controllers on one broker)', async (t) => {
  const one = await demo('edge-one');
  const broker = await one.cli.waitFor(/mqtt broker listening on [^\s:]*:(\d+)/, 'the broker reporting its port');
  // The second controller publishes on the first one's broker; the first one's history stores both.
  await demo('edge-two', ['--mqtt-url', `mqtt://127.0.0.1:${broker[1]}`, '--history', 'off']);
  const own = ['edge-one/Beer Sensor/value[degC]', 'edge-one/Beer Setpoint/setting[degC]'];
  const peer = 'edge-two/Beer Sensor/value[degC]';
  await historyHas(one.cli.base, [...own, 'edge-one/Heat PWM/value', peer], [...own, peer]);

  for (const width of [1200, 390]) {
    const { page } = await addField(t, one.cli.base, width, own, 'edge-one/Heat PWM/value');
    await page.close();
  }

  await t.test('fleet: the controller is named in the picker and legends; its own fields open', async (t) => {
    const { page, errors } = await watchedPage(1200);
    t.teardown(() => page.close());
    await page.goto(`${one.cli.base}/`);
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${one.cli.base}/#/graphs`);
    await page.getByTestId('chart').locator('canvas').waitFor();
    await page.waitForFunction('window.__graphPoints > 0');
    const checked = await page
      .getByTestId('field-picker')
      .locator('input[type=checkbox]:checked')
      .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).dataset.field ?? ''));
    t.ok(checked.length > 0, `fields open by default: ${checked.join(', ')}`);
    t.ok(
      checked.every((f) => f.startsWith('edge-one/')),
      'by default only this controller’s fields are drawn',
    );
    const picker = page.getByTestId('field-picker');
    const sections = picker.locator('[data-controller]');
    t.same(
      await sections.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.controller)),
      ['edge-one', 'edge-two'],
      'one section per controller, this one first',
    );
    t.equal(
      await picker.locator('[data-controller=edge-one]').evaluate((e) => (e as { open: boolean }).open),
      true,
      'this controller’s section is open',
    );
    t.equal(
      await picker.locator('[data-controller=edge-two]').evaluate((e) => (e as { open: boolean }).open),
      false,
      'another controller’s section is closed',
    );
    t.match(await picker.locator('[data-controller=edge-two] > summary').textContent(), 'edge-two');
    await page.locator('summary').filter({ hasText: 'Fields' }).click();
    await picker.locator('[data-controller=edge-two] > summary').click();
    const before = checked.length;
    await page.locator(`input[type=checkbox][data-field="${peer}"]`).check();
    await drawn(page, errors, `window.__graphSeries === ${before + 1} && window.__graphPoints > 0`);
    const labels = await legend(page);
    t.ok(
      labels.some((l) => l.includes('edge-two') && l.includes('Beer Sensor')),
      `the other controller's field is named with its controller: ${labels.join(' | ')}`,
    );
    t.ok(
      labels.filter((l) => l.includes('Beer Sensor')).length === 2 &&
        new Set(labels.filter((l) => l.includes('Beer Sensor'))).size === 2,
      'two controllers’ Beer Sensor read apart in the legend',
    );
    t.same(errors, [], 'no error');
  });
});

t.test('adding a field redraws the graph (VictoriaMetrics)', async (t) => {
  vm = await startVictoria();
  const three = await demo('edge-three', ['--history-url', vm.url, '--history-ingest', 'own']);
  const own = ['edge-three/Beer Sensor/value[degC]', 'edge-three/Beer Setpoint/setting[degC]'];
  await historyHas(three.cli.base, [...own, 'edge-three/Heat PWM/value'], own);
  for (const width of [1200, 390]) {
    const { page } = await addField(t, three.cli.base, width, own, 'edge-three/Heat PWM/value');
    await page.close();
  }
});
