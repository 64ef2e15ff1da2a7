// Names are user text on the dashboard too (DESIGN §11; issue 44, item 1): blocks named with
// quotes, backslashes, slashes, '%', unicode, emoji, 200 characters and names differing only in
// case are shown under their own names, each link opens its own block's editor, and the graph
// picker offers each block's fields under its own name. A real Chromium against the built CLI;
// needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { HARD_NAMES, show } from '../helpers/names.js';
import { requireWebBuild, simInBrowser } from './browser.js';

const SID = 'edge-one';

requireWebBuild();

t.setTimeout(limit(300_000));

const api = (p: string, body?: unknown) => rig.api(p, body);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const rig = simInBrowser(t, {
  emitMs: 500,
  demo: false,
  setup: async () => {
    for (const [i, id] of HARD_NAMES.entries()) {
      const res = await api('blocks/create', {
        id,
        type: 'TempSensorMock',
        data: { setting: 10 + i, connected: true },
      });
      if (res.status !== 201) throw new Error(`${show(id)} was not created: ${JSON.stringify(res.body)}`);
    }
  },
});

t.test('the overview shows each block under its own name, and its link opens its own editor', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  await rig.page.waitForFunction(
    (ids) =>
      ids.every((id) =>
        [...document.querySelectorAll('section.card')].some((e) => e.getAttribute('data-block') === id),
      ),
    [...HARD_NAMES],
  );
  const cards = await rig.page.evaluate(() =>
    [...document.querySelectorAll('section.card')].map((e) => ({
      block: e.getAttribute('data-block'),
      name: e.querySelector('a.name')?.textContent ?? null,
      href: e.querySelector('a.name')?.getAttribute('href') ?? null,
    })),
  );
  t.same(
    HARD_NAMES.filter((id) => cards.find((c) => c.block === id)?.name !== id).map(show),
    [],
    'every card shows its block name as it is',
  );
  const wrongEditor: string[] = [];
  for (const id of HARD_NAMES) {
    const href = cards.find((c) => c.block === id)?.href;
    if (!href) continue;
    await rig.page.evaluate((h) => (location.hash = h), href);
    const heading = rig.page.locator('main section.panel h2').first();
    try {
      await rig.page.waitForFunction(
        (want) => document.querySelector('main section.panel h2')?.firstChild?.textContent?.trim() === want,
        id,
        { timeout: limit(5000) },
      );
    } catch {
      wrongEditor.push(`${show(id)} opened ${show((await heading.textContent().catch(() => null)) ?? '(nothing)')}`);
    }
  }
  t.same(wrongEditor, [], "every card's link opens that block's editor");
});

t.test('the graph picker offers each block field under its own name', async (t) => {
  const fields = HARD_NAMES.map((id) => `${SID}/${id}/value[degC]`);
  for (let i = 0; i < 60; i++) {
    const listed = (await postJson(`${rig.sim.cli.base}/history/timeseries/fields`, { duration: '1h' }))
      .body as string[];
    if (fields.every((f) => listed.includes(f))) break;
    await sleep(500);
  }
  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  await rig.page.locator('summary').filter({ hasText: 'Fields' }).click();
  await rig.page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid=field-picker] input[data-field]').length >= n,
    fields.length,
  );
  const offered = await rig.page.evaluate(() =>
    [...document.querySelectorAll('input[data-field]')].map((e) => e.getAttribute('data-field')),
  );
  t.same(
    fields.filter((f) => !offered.includes(f)).map(show),
    [],
    'every field is offered, named as the service names it',
  );
  const groups = await rig.page.evaluate(() =>
    [...document.querySelectorAll('fieldset[data-group]')].map((e) => e.querySelector('legend')?.textContent),
  );
  t.same(HARD_NAMES.filter((id) => !groups.includes(id)).map(show), [], 'each block has its group, headed by its name');
});
