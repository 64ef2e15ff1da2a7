// More forms where two features meet: the autotune's Swing and Band on a PID card, typed while
// the temperature unit is switched in another tab, are converted with the rest of the page (they
// kept their number under the new unit and were sent as °F); a setpoint the service refuses
// keeps what was typed beside the error (the stored value came back); an open graph follows a
// unit switch (it kept drawing the °C fields, which stop at the switch).
// A real Chromium against the built CLI with the demo blocks; needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);
const api = (p: string, body?: unknown) => rig.api(p, body);
const card = (id: string) => rig.page.locator(`section.card[data-block="${id}"]`);

/** The unit switched by another client (the datastore document), seen by the page's event stream. */
async function unitElsewhere(temperature: 'degC' | 'degF') {
  const set = await postJson(`${rig.sim.cli.base}/history/datastore/set`, {
    value: { namespace: 'edge-one', id: 'units', temperature },
  });
  if (set.status !== 200) throw new Error(`units not set: ${JSON.stringify(set.body)}`);
}

t.test("the autotune's swing and band typed while the unit is switched elsewhere are converted", async (t) => {
  t.teardown(async () => {
    await unitElsewhere('degC');
    await api('blocks/patch', { id: 'Heat PID', type: 'Pid', data: { enabled: true } });
  });
  // Disabled, a Tune is refused after the page sent it: what it sent is what is checked.
  t.equal((await api('blocks/patch', { id: 'Heat PID', type: 'Pid', data: { enabled: false } })).status, 200);
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const panel = card('Heat PID').getByTestId('tuning');
  const swing = panel.locator('label', { hasText: 'Swing' });
  const band = panel.locator('label', { hasText: 'Band' });
  await swing.locator('.unit').filter({ hasText: 'Δ°C' }).waitFor();
  await band.locator('.unit').filter({ hasText: 'Δ°C' }).waitFor();
  await swing.locator('input').fill('1,5');
  await band.locator('input').fill('4');
  await unitElsewhere('degF');
  await swing.locator('.unit').filter({ hasText: 'Δ°F' }).waitFor();
  await band.locator('.unit').filter({ hasText: 'Δ°F' }).waitFor();
  t.equal(await swing.locator('input').inputValue(), '2.7', 'a swing typed as 1,5 Δ°C is 2.7 Δ°F');
  t.equal(await band.locator('input').inputValue(), '7.2', 'a band typed as 4 Δ°C is 7.2 Δ°F');
  const sent = rig.page.waitForRequest((r) => r.method() === 'POST' && /blocks\/patch$/.test(r.url()));
  await panel.getByRole('button', { name: 'Tune', exact: true }).click();
  const body = (await sent).postDataJSON() as { data: { tuning: Record<string, unknown> } };
  t.same(body.data.tuning, { command: 'START', amplitude: 2.7, band: 7.2 }, 'sent in the unit the service speaks');
  await card('Heat PID').locator('.answer.bad').filter({ hasText: 'Heat PID is disabled' }).waitFor();
});

t.test('a setpoint the service refuses keeps what was typed alongside the error', async (t) => {
  // The service's own refusal (a setting out of its range), answered to the card's next patch.
  const refusal = await api('blocks/patch', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { storedSetting: 1000 },
  });
  t.equal(refusal.status, 422);
  await rig.page.route('**/blocks/patch', (r) => r.fulfill({ status: refusal.status, json: refusal.body }), {
    times: 1,
  });
  const c = card('Beer Setpoint');
  const setting = c.getByTestId('setting-Beer Setpoint');
  // The page speaks °C again (the test before switched it back).
  await c.locator('.unit').filter({ hasText: '°C' }).waitFor();
  await setting.fill('18,5');
  await c.getByRole('button', { name: 'Set' }).click();
  await c.getByRole('status').filter({ hasText: '(422)' }).waitFor();
  t.equal(await setting.inputValue(), '18,5', 'the typed value stays with the error');
  await c.getByRole('button', { name: 'Set' }).click();
  await c.getByRole('status').filter({ hasText: 'saved' }).waitFor();
  t.equal(
    (await api('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting.value,
    18.5,
    'and can be sent again',
  );
});

t.test('an open graph follows a unit switched elsewhere: its temperatures go on in the new unit', async (t) => {
  t.teardown(() => unitElsewhere('degC'));
  const celsius = 'edge-one/Beer Setpoint/value[degC]';
  const fahrenheit = 'edge-one/Beer Setpoint/value[degF]';
  const recorded = async () =>
    (await postJson(`${rig.sim.cli.base}/history/timeseries/fields`, { duration: '1h' })).body as string[];
  for (let i = 0; i < 100 && !(await recorded()).includes(celsius); i++) await new Promise((r) => setTimeout(r, 200));
  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  const picker = rig.page.getByTestId('field-picker');
  await picker.locator(`input[data-field="${celsius}"]:checked`).waitFor({ state: 'attached' });
  await rig.page.getByTestId('chart').locator('canvas').waitFor();
  const asked = rig.page.waitForRequest(
    (r) => r.url().endsWith('/history/timeseries/ranges') && (r.postData() ?? '').includes(fahrenheit),
  );
  await unitElsewhere('degF');
  await picker.locator(`input[data-field="${fahrenheit}"]:checked`).waitFor({ state: 'attached' });
  const fields = ((await asked).postDataJSON() as { fields: string[] }).fields;
  t.notOk(
    fields.some((f) => /\[(delta_)?degC\]$/.test(f) && f.startsWith('edge-one/')),
    `no field of this controller in °C is drawn: ${fields.join(', ')}`,
  );
  t.equal(await picker.locator(`input[data-field="${celsius}"]:checked`).count(), 0, 'the °C field is no longer drawn');
});
