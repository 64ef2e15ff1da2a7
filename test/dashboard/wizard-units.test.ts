// The fermentation-fridge wizard on a controller set to °F makes the same chain as on one in °C,
// in a real Chromium against the built CLI on emulated hardware. The wizard sent its PID gains,
// the setpoints' filter threshold and the profile's diacetyl rise as bare numbers, which the API
// reads in the user's unit: in °F the PIDs came out 1.8 times as strong (Kp 100 per °F is 180 per
// °C), the filter threshold 5 °F (2.8 °C) and the rise 3 °F (1.7 °C), where the quick start means
// per °C. Its numbers now name their units; the settings typed in °F still mean °F.
// Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(120_000));

const rig = demoInBrowser(t);

const api = rig.api;
type Qty = { unit: string; value: number };
const near = (a: number, b: number) => Math.abs(a - b) < 0.01;

t.test('the wizard in °F: settings in °F, gains, threshold and rise as the quick start means them', async (t) => {
  await rig.unitElsewhere('degF');
  await rig.page.goto(`${rig.sim.cli.base}/#/setup`);
  await rig.page.getByTestId('units').locator('input[value=degF]:checked').waitFor();
  const wizard = rig.page.getByTestId('wizard');
  await wizard.locator('select[name=heat] option').nth(1).waitFor({ state: 'attached' });
  await wizard.locator('input[name=prefix]').fill('F');
  await wizard.locator('select[name=beerSensor]').selectOption('Beer Sensor');
  await wizard.locator('select[name=fridgeSensor]').selectOption('Fridge Sensor');
  await wizard.locator('select[name=heat]').selectOption('DS2408 00000000d001#3');
  await wizard.locator('select[name=cool]').selectOption('DS2408 00000000d001#4');
  await wizard.locator('input[name=beerSetting]').fill('68');
  await wizard.locator('input[name=fridgeSetting]').fill('50');
  await rig.page.getByTestId('wizard-create').click();
  await rig.page
    .getByTestId('wizard-log')
    .getByText(/^done:/)
    .waitFor();

  // Read back in °C: the chain as the quick start means it.
  await rig.unitElsewhere('degC');
  const data = async (id: string) => {
    const res = await api('blocks/read', { id });
    t.equal(res.status, 200, `${id} was made`);
    return res.body.data;
  };
  const beer = await data('F Beer Setpoint');
  t.ok(near((beer.storedSetting as Qty).value, 20), `68 °F typed is 20 °C (got ${beer.storedSetting.value})`);
  t.ok(near((await data('F Fridge Setpoint')).storedSetting.value, 10), '50 °F typed is 10 °C');
  t.ok(near((beer.filterThreshold as Qty).value, 5), `filter threshold 5 °C (got ${beer.filterThreshold.value})`);
  const heat = (await data('F Heat PID')).kp as Qty;
  const cool = (await data('F Cool PID')).kp as Qty;
  t.equal(heat.unit, '1 / degC');
  t.ok(near(heat.value, 100), `heat Kp 100 per °C, as in °C (got ${heat.value})`);
  t.ok(near(cool.value, -50), `cool Kp -50 per °C (got ${cool.value})`);
  const points = (await data('F Profile')).points as Array<{ temperature: Qty }>;
  t.same(
    points.map((p) => Math.round(p.temperature.value * 100) / 100),
    [20, 20, 23],
    'the profile holds the setting, then rises 3 °C',
  );
});
