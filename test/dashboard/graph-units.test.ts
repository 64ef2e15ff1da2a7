// Fields of one graph recorded in different temperature units share the temperature axis only
// in one unit: after a switch to °F, a sensor's °C field from before (still in the picker) ticked
// beside its °F twin was drawn in °C on the °F axis, its legend saying °C, so a 20 °C beer sat
// far below its 68 °F line. It is now drawn in °F, converted, and its legend says so.
// A real Chromium against the built CLI with the demo blocks; needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, type Plotted, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);

t.test('a °C field ticked beside its °F twin is drawn in °F, and its legend says so', async (t) => {
  const celsius = 'edge-one/Beer Sensor/value[degC]';
  const fahrenheit = 'edge-one/Beer Sensor/value[degF]';
  await rig.recorded(celsius);
  await rig.unitElsewhere('degF');
  t.ok(await rig.recorded(fahrenheit), 'the history holds the sensor in both units');

  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  const picker = rig.page.getByTestId('field-picker');
  await picker.locator(`input[data-field="${fahrenheit}"]:checked`).waitFor({ state: 'attached' });
  await rig.page.getByText(/^Fields \(/).click();
  await picker.locator(`input[data-field="${celsius}"]`).check();
  await rig.plotted(celsius);
  const drawn = await rig.page.evaluate((f) => {
    const p = window.__graphPlotted as Plotted;
    const i = p.fields.indexOf(f);
    return p.cols[0].map((time, row) => [time, p.cols[i + 1]![row]] as const).filter(([, v]) => v !== null);
  }, celsius);
  const raw = (
    (await postJson(`${rig.sim.cli.base}/history/timeseries/ranges`, { fields: [celsius], duration: '1h' }))
      .body as Array<{ values: Array<[number, string]> }>
  )[0]!.values.map(([, v]) => Number(v));
  const inF = raw.map((c) => (c * 9) / 5 + 32);
  t.ok(drawn.length > 0, 'the °C field has points on the graph');
  t.same(
    drawn.filter(([, v]) => !inF.some((f) => Math.abs(f - v!) < 1e-6)),
    [],
    `each point of the °C field is drawn as its value in °F (recorded ${raw.slice(0, 3).join(', ')} °C)`,
  );
  const legend = await rig.page.getByTestId('chart').locator('.u-legend .u-series .u-label').allTextContents();
  t.ok(
    legend.includes('Beer Sensor · Value (°F, recorded in °C)'),
    `the legend says the °C field is drawn in °F: ${legend.join(' | ')}`,
  );
  t.notOk(
    legend.some((l) => l.endsWith('(°C)')),
    `no legend on the temperature axis says °C: ${legend.join(' | ')}`,
  );
});
