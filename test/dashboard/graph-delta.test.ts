// A temperature difference on the graph: a PID's error (Δ°C) and a sensor's value (°C) shared
// the temperature axis, so an error of 2 degrees was drawn at 2 °C under a 20 °C beer, read off the
// same scale. The difference now has an axis of its own, labelled in the unit it is drawn in:
// Δ°F once the controller shows °F. A real Chromium against the built CLI with the demo blocks;
// needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);

async function waitFor(field: string) {
  if (!(await rig.recorded(field))) throw new Error(`${field} not recorded`);
}

interface Axis {
  scale: string;
  label: string;
  min: number | null;
  max: number | null;
  fields: string[];
}
/** The chart's y axes as it drew them last (uPlot draws them on its canvas). */
const axes = async () => (await rig.page.evaluate(() => window.__graphAxes ?? [])) as Axis[];
const axisOf = (all: Axis[], field: string) => all.find((a) => a.fields.includes(field));

t.test("a PID's error is drawn on an axis of its own, not on the temperatures'", async (t) => {
  const error = 'edge-one/Heat PID/error[delta_degC]';
  const sensor = 'edge-one/Beer Sensor/value[degC]';
  await waitFor(error);
  await waitFor(sensor);
  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  const picker = rig.page.getByTestId('field-picker');
  await rig.page.getByText(/^Fields \(/).click();
  for (const f of [error, sensor]) {
    const box = picker.locator(`input[data-field="${f}"]`);
    if (!(await box.isChecked())) await box.check();
  }
  await rig.plotted(error);
  const drawn = await axes();
  const errorAxis = axisOf(drawn, error);
  const sensorAxis = axisOf(drawn, sensor);
  t.equal(sensorAxis?.label, 'temperature', 'the sensor on the temperature axis');
  t.equal(errorAxis?.label, 'temperature difference (Δ°C)', 'the error on an axis of its own, in Δ°C');
  t.not(errorAxis?.scale, sensorAxis?.scale, 'not on the same scale');

  // The controller shows °F: the difference is drawn in Δ°F, and its axis says so.
  const set = await postJson(`${rig.sim.cli.base}/history/datastore/set`, {
    value: { namespace: 'edge-one', id: 'units', temperature: 'degF' },
  });
  t.equal(set.status, 200);
  await rig.page.waitForFunction(
    () => ((window.__graphAxes ?? []) as Axis[]).some((a) => a.label === 'temperature difference (Δ°F)'),
    undefined,
    { timeout: limit(30_000) },
  );
  const after = await axes();
  t.notOk(
    after.some((a) => a.label.includes('Δ°C')),
    `no axis says Δ°C once °F is shown: ${after.map((a) => a.label).join(' | ')}`,
  );
});
