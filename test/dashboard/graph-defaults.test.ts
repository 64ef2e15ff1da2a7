// The fields a graph draws when the browser has none saved (a phone opening the dashboard for the
// first time): this controller's setpoints with their values and its sensors, as they are now.
// History keeps a renamed block's points under its old name and a deleted block's under its name,
// and the defaults used to be taken from every name the history had: a fresh browser drew a line
// for "Fridge Sensor" beside the same sensor under its new name, and for a block deleted a week
// ago, in the six places the graph fills by default. A real Chromium against the built CLI (the
// built-in history store) with the demo blocks; needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

declare const document: { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> };

requireWebBuild();
t.setTimeout(limit(180_000));
const rig = demoInBrowser(t, 500);

t.test('a fresh browser graphs the blocks there are, not the names history keeps of gone ones', async (t) => {
  const sensor = 'Extra Sensor';
  t.equal(
    (
      await rig.api('blocks/create', {
        id: sensor,
        type: 'TempSensorOneWire',
        data: { address: '2801c0000000000b' },
      })
    ).status,
    201,
  );
  await rig.historyHas(['edge-one/Fridge Sensor/value[degC]', `edge-one/${sensor}/value[degC]`]);
  const name = 'Fridge "Air" 🍺  two spaces';
  t.equal((await rig.api('blocks/rename', { existing: 'Fridge Sensor', desired: name })).status, 200);
  t.equal((await rig.api('blocks/delete', { id: sensor })).status, 200);
  await rig.historyHas([`edge-one/${name}/value[degC]`]);

  // A browser that has never drawn a graph here.
  const page = await rig.browser.newPage({ viewport: { width: 390, height: 844 } });
  page.setDefaultTimeout(limit(15_000));
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${rig.sim.cli.base}/#/graphs`);
  const wanted = [
    'Beer Setpoint · Setting (°C)',
    'Beer Setpoint · Value (°C)',
    'Beer Sensor · Value (°C)',
    `${name} · Value (°C)`,
  ];
  let shown: string[] = [];
  const deadline = Date.now() + limit(15_000);
  while (Date.now() < deadline) {
    shown = await page.evaluate(() =>
      Array.from(document.querySelectorAll('[data-testid=chart] .u-legend .u-series .u-label'), (e) =>
        (e.textContent ?? '').trim(),
      ).filter((l) => l && l !== 'Time'),
    );
    if (shown.length >= wanted.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.same(shown, wanted, 'the setpoint and the sensors there are now, each once');
  // The names of before are still there to pick.
  const picker = (await page.getByTestId('field-picker').textContent()) ?? '';
  t.match(picker, 'Fridge Sensor', 'the old name is still offered in the picker');
  t.same(errors, [], 'no page error');
  await page.close();
});
