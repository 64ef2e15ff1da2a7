// The Setup page tells a restore's warnings from a clean load and from failures (issue 44,
// item 5): an older backup with a field this controller does not know loads, and the page says
// so as a warning naming the block and the field, not in green; a backup with a block that
// cannot load is shown as a failure. A real Chromium against the built CLI; needs
// `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Browser, Page } from 'playwright-core';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { launchBrowser, removeDir, startSim, type SimService, requireWebBuild, desktopPage } from './browser.js';

const SID = 'edge-one';

requireWebBuild();

t.setTimeout(limit(300_000));

let sim: SimService;
let browser: Browser;
let page: Page;
const files = mkdtempSync(path.join(os.tmpdir(), 'eb-restore-'));

t.before(async () => {
  sim = await startSim();
  browser = await launchBrowser();
  page = await desktopPage(browser);
  page.on('dialog', (d) => void d.accept());
});

t.teardown(async () => {
  await browser?.close().catch(() => undefined);
  await sim?.stop();
  if (sim) removeDir(sim.dataDir);
  rmSync(files, { recursive: true, force: true });
});

const sensor = (extra: Record<string, unknown> = {}) => ({
  id: 'Beer Sensor',
  nid: 202,
  type: 'TempSensorMock',
  data: { setting: 19.5, connected: true, ...extra },
});

/** Restores `backup` through the page's file input; the answer's level and text. */
async function restore(name: string, backup: unknown): Promise<{ level: string | null; text: string; cls: string }> {
  const file = path.join(files, name);
  writeFileSync(file, JSON.stringify(backup));
  await page.goto(`${sim.cli.base}/#/setup`);
  const panel = page.getByTestId('backup');
  await panel.locator('input[type=file]').setInputFiles(file);
  const answer = panel.getByRole('status').filter({ hasText: `loaded ${name}` });
  await answer.waitFor();
  return {
    level: await answer.getAttribute('data-level'),
    text: await answer.innerText(),
    cls: (await answer.getAttribute('class')) ?? '',
  };
}

t.test('a clean restore is green', async (t) => {
  const a = await restore('clean.json', { blocks: [sensor()] });
  t.equal(a.level, 'good', a.text);
  t.match(a.cls, /\bgood\b/);
});

t.test('an unknown field: loaded, shown as a warning naming block and field, not green', async (t) => {
  const a = await restore('older.json', { blocks: [sensor({ legacyField: 42 })] });
  t.equal(a.level, 'warn', a.text);
  t.notMatch(a.cls, /\bgood\b/, 'not shown as a success');
  t.match(a.text, /1 warning/);
  t.match(a.text, /Beer Sensor.*legacyField/, 'naming the block and the field');
  const read = await postJson(`${sim.cli.base}/${SID}/blocks/read`, { id: 'Beer Sensor' });
  t.equal(read.body.data.setting.value, 19.5, 'and the block is there');
  const color = await page
    .getByTestId('backup')
    .getByRole('status')
    .evaluate((e) => getComputedStyle(e).color);
  const good = await page.evaluate(() => {
    const probe = document.createElement('p');
    probe.className = 'answer good';
    document.body.append(probe);
    const c = getComputedStyle(probe).color;
    probe.remove();
    return c;
  });
  t.not(color, good, `its colour (${color}) is not the success colour`);
});

t.test('a block that cannot load: shown as a failure', async (t) => {
  const a = await restore('partial.json', {
    blocks: [sensor({ legacyField: 1 }), { id: 'Odd', nid: 300, type: 'NoSuchType', data: {} }],
  });
  t.equal(a.level, 'bad', a.text);
  t.match(a.text, /only in part: 1 failure: .*NoSuchType/);
  t.match(a.text, /1 warning: .*legacyField/, 'the warning is still said');
});
