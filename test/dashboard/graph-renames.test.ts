// A graph follows a renamed block. History names a field by the block's id, so after a rename
// the block's points go on under its new name: the graph used to keep drawing the old name's
// field, which stopped at the rename (blank in the short ranges, and gone from the graph a month
// later) and said nothing. Now, by whatever path the block was renamed (the REST API while the
// graph is open, the card's Rename or REST while it is not), the graph draws the new name's field,
// keeps the old one (the history from before the rename) in the same colour under a legend saying
// so, and a notice says what happened, with a button to take the old lines off. Names with quotes,
// slashes, unicode and spaces; on a phone a long name wraps in the legend and the field picker
// (each took the width of its longest word, past the screen). A backup load (its nids are the
// backup's) and a browser memory from another data dir (a reinstall: nids from 100 again) are no
// renames: the graph said "Beer Sensor was renamed to Cellar Sensor" of a loaded block that took
// Beer Sensor's nid, and drew it as Beer Sensor's line. A real Chromium against the built CLI (the
// built-in history store) with the demo blocks; needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

declare const document: {
  querySelectorAll(s: string): ArrayLike<{ textContent: string | null }>;
  documentElement: { scrollWidth: number };
};

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);
const api = (p: string, body?: unknown) => rig.api(p, body);

const legend = () =>
  rig.page.evaluate(() =>
    Array.from(document.querySelectorAll('[data-testid=chart] .u-legend .u-series .u-label'), (e) =>
      (e.textContent ?? '').trim(),
    ).filter(Boolean),
  );

/** Waits until the legend holds every label in `wanted` (the time first). */
async function legendShows(wanted: string[]): Promise<string[]> {
  const deadline = Date.now() + limit(15_000);
  let now: string[] = [];
  while (Date.now() < deadline) {
    now = await legend();
    if (wanted.every((w) => now.includes(w)) && now.length === wanted.length + 1) return now;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the legend shows ${JSON.stringify(now)}, not ${JSON.stringify(wanted)}`);
}

const saved = () =>
  rig.page.evaluate(() => JSON.parse(localStorage.getItem('edgeblocks.graph.fields') ?? '[]') as string[]);

t.test('an open graph follows a rename made through the REST API', async (t) => {
  const errors: string[] = [];
  rig.page.on('pageerror', (e) => errors.push(e.message));
  const old = 'edge-one/Fridge Sensor/value[degC]';
  await rig.historyHas([old]);
  await rig.page.goto(`${rig.sim.cli.base}/`);
  await rig.page.evaluate(
    (f) => {
      localStorage.setItem('edgeblocks.graph.fields', JSON.stringify(f));
      localStorage.setItem('edgeblocks.graph.range', '1h');
    },
    [old],
  );
  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  await legendShows(['Fridge Sensor · Value (°C)']);

  const name = 'Fridge "Cellar"/Ünï 🍺 two  spaces';
  t.equal((await api('blocks/rename', { existing: 'Fridge Sensor', desired: name })).status, 200);
  await legendShows([`Fridge Sensor (now ${name}) · Value (°C)`, `${name} · Value (°C)`]);
  t.same(await saved(), [old, `edge-one/${name}/value[degC]`], 'the graph keeps both, the old name first');
  const notice = await rig.page.getByTestId('graph-renamed').innerText();
  t.match(notice, `"Fridge Sensor" was renamed to "${name}"`, 'the notice names both');
  t.match(notice, 'history from before the rename', 'and says where the older points are');
  await rig.historyHas([`edge-one/${name}/value[degC]`]);
  t.same(errors, [], 'no page error');
});

t.test('a rename made while no graph was open is followed when one opens', async (t) => {
  const setting = 'edge-one/Beer Setpoint/setting[degC]';
  await rig.historyHas([setting]);
  await rig.page.evaluate((f) => localStorage.setItem('edgeblocks.graph.fields', JSON.stringify(f)), [setting]);
  await rig.page.goto('about:blank');
  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  await legendShows(['Beer Setpoint · Setting (°C)']);

  // Renamed on its card, with the graph closed.
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const first = "Tank 'A', 100%";
  const card = rig.page.locator('section.card[data-block="Beer Setpoint"]');
  await card.getByRole('button', { name: 'Rename' }).click();
  await card.getByTestId('rename').locator('input').fill(first);
  await card.getByRole('button', { name: 'Save name' }).click();
  await rig.page.locator(`section.card[data-block="${first}"]`).waitFor();
  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  await legendShows([`Beer Setpoint (now ${first}) · Setting (°C)`, `${first} · Setting (°C)`]);

  // Renamed again through REST with no page open at all.
  await rig.page.goto('about:blank');
  const second = '温度 a/b/c';
  t.equal((await api('blocks/rename', { existing: first, desired: second })).status, 200);
  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  await legendShows([
    `Beer Setpoint (now ${second}) · Setting (°C)`,
    `${first} (now ${second}) · Setting (°C)`,
    `${second} · Setting (°C)`,
  ]);
  t.same(
    await saved(),
    [setting, `edge-one/${first}/setting[degC]`, `edge-one/${second}/setting[degC]`],
    'every name the block had, and its name now',
  );

  // The old lines taken off: the notice goes, the new name stays.
  for (const old of ['Beer Setpoint', first])
    await rig.page.getByRole('button', { name: `Take "${old}" off the graph` }).click();
  await legendShows([`${second} · Setting (°C)`]);
  t.equal(await rig.page.getByTestId('graph-renamed').count(), 0, 'no notice once the old lines are off');
  t.same(await saved(), [`edge-one/${second}/setting[degC]`]);
});

t.test('on a phone a long new name wraps in the notice, the legend and the field picker', async (t) => {
  const long = 'Fermenter_1_Beer_Temperature_Setpoint_A_with_a_long_name';
  await rig.page.setViewportSize({ width: 360, height: 740 });
  t.teardown(() => rig.page.setViewportSize({ width: 1200, height: 900 }));
  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  await legendShows(['温度 a/b/c · Setting (°C)']);
  t.equal((await api('blocks/rename', { existing: '温度 a/b/c', desired: long })).status, 200);
  await legendShows([`温度 a/b/c (now ${long}) · Setting (°C)`, `${long} · Setting (°C)`]);
  const width = () => rig.page.evaluate(() => document.documentElement.scrollWidth);
  t.ok((await width()) <= 360, `the page is ${await width()} px wide on a 360 px screen`);
  await rig.page.locator('summary').filter({ hasText: 'Fields' }).click();
  await rig.page.locator(`fieldset.fieldlist[data-group="${long}"]`).waitFor();
  t.ok((await width()) <= 360, `with the field picker open, the page is ${await width()} px wide`);
});

/** The graph's memory as the page keeps it. */
const memoryNow = () =>
  rig.page.evaluate(
    () => JSON.parse(localStorage.getItem('edgeblocks.graph.blocks') ?? '{}') as { set?: string; former?: object },
  );

/** Waits until the graph said a rename, or took the block set `notSet` is not. */
async function settled(notSet: string | undefined): Promise<void> {
  const deadline = Date.now() + limit(15_000);
  while (Date.now() < deadline) {
    if ((await rig.page.getByTestId('graph-renamed').count()) > 0) return;
    const set = (await memoryNow()).set;
    if (typeof set === 'string' && set !== notSet) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the graph never took the block set (memory ${JSON.stringify(await memoryNow())})`);
}

t.test('a graph kept from another data dir (a reinstall) follows no block by its nid', async (t) => {
  // The browser kept its fields and memory; the controller's data dir is new, and its nid 100,
  // a sensor like the old one, is another block.
  const old = 'edge-one/Old Probe/value[degC]';
  const memory = {
    blocks: { 'Old Probe': { nid: 100, type: 'TempSensorOneWire' } },
    former: {},
    set: 'an-old-data-dir',
  };
  await rig.page.goto(`${rig.sim.cli.base}/`);
  await rig.page.evaluate(
    ([f, m]) => {
      localStorage.setItem('edgeblocks.graph.fields', JSON.stringify(f));
      localStorage.setItem('edgeblocks.graph.blocks', JSON.stringify(m));
    },
    [[old], memory] as const,
  );
  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  await settled('an-old-data-dir');
  t.equal(await rig.page.getByTestId('graph-renamed').count(), 0, 'no notice of a rename');
  await legendShows(['Old Probe · Value (°C)']);
  t.same(await saved(), [old], 'Beer Sensor (nid 100 now) is not added');
  t.same((await memoryNow()).former, {});
});

t.test('a backup load while the graph is open is no rename, though the nids match', async (t) => {
  const field = 'edge-one/Beer Sensor/value[degC]';
  await rig.historyHas([field]);
  await rig.page.evaluate((f) => localStorage.setItem('edgeblocks.graph.fields', JSON.stringify(f)), [field]);
  await rig.page.goto('about:blank');
  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  await legendShows(['Beer Sensor · Value (°C)']);
  const before = (await memoryNow()).set;
  t.type(before, 'string');

  // Another controller's backup: its nid 100 is a sensor named Cellar Sensor.
  const backup = await api('blocks/backup/save');
  const other = JSON.parse(JSON.stringify(backup.body).replaceAll('"Beer Sensor"', '"Cellar Sensor"'));
  t.equal((await api('blocks/backup/load', other)).status, 200);
  await settled(before);
  t.equal(await rig.page.getByTestId('graph-renamed').count(), 0, 'no notice of a rename');
  await legendShows(['Beer Sensor · Value (°C)']);
  t.same(await saved(), [field], 'Cellar Sensor is not added');
  t.same((await memoryNow()).former, {});
});

t.test('renamed and back: the legend says what the graph draws now', async (t) => {
  // The chart was built again only when its fields changed: renamed back, the fields stay and
  // the legend kept "Cellar Sensor (now Keg)".
  const field = 'edge-one/Cellar Sensor/value[degC]';
  await rig.page.evaluate((f) => localStorage.setItem('edgeblocks.graph.fields', JSON.stringify(f)), [field]);
  await rig.page.goto('about:blank');
  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  await legendShows(['Cellar Sensor · Value (°C)']);
  t.equal((await api('blocks/rename', { existing: 'Cellar Sensor', desired: 'Keg' })).status, 200);
  await legendShows(['Cellar Sensor (now Keg) · Value (°C)', 'Keg · Value (°C)']);
  t.equal((await api('blocks/rename', { existing: 'Keg', desired: 'Cellar Sensor' })).status, 200);
  await legendShows(['Cellar Sensor · Value (°C)', 'Keg (now Cellar Sensor) · Value (°C)']);
  t.match(await rig.page.getByTestId('graph-renamed').innerText(), '"Keg" was renamed to "Cellar Sensor"');
});
