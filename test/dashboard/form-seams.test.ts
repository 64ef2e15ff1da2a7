// Forms where two features meet, as a brewer meets them: a rename with a blank name says so (it
// did nothing); an editor with a value typed in keeps it when the block is renamed in another
// tab (the page followed the rename and dropped it); a temperature typed in a form (the editor,
// a setpoint card, a profile's steps) while the unit is switched in another tab is converted
// with the rest of the page (a 20 typed as °C was kept as 20 under a °F label and saved as
// 20 °F), and the alert rules form keeps what was typed in it then (it was read again, dropping
// it); the Setup page follows a unit switched elsewhere (it read the unit once, so its wizard
// said °C and made setpoints from bare numbers the service read as °F), its wizard's settings
// converted and its picks kept; the alert rules read a comma as the decimal point like every
// other form. A real
// Chromium against the built CLI with the demo blocks; needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);
const api = (p: string, body?: unknown) => rig.api(p, body);
const card = rig.card;
const read = async (id: string) => (await api('blocks/read', { id })).body.data;

t.test('a rename with a blank name says so', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const c = card('Fridge Sensor');
  await c.getByRole('button', { name: 'Rename' }).click();
  await c.getByTestId('rename').locator('input').fill('   ');
  await c.getByRole('button', { name: 'Save name' }).click();
  await c.getByTestId('card-answer').filter({ hasText: 'not renamed: the new name is empty' }).waitFor();
  t.equal((await api('blocks/read', { id: 'Fridge Sensor' })).status, 200, 'still named Fridge Sensor');
});

t.test('a value typed in the editor is kept when the block is renamed in another tab', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/block/${encodeURIComponent('Beer Setpoint')}`);
  const form = rig.page.getByTestId('block-form');
  await form.locator('input[name=storedSetting]').fill('21.5');
  t.equal((await api('blocks/rename', { existing: 'Beer Setpoint', desired: 'Tank Setpoint' })).status, 200);
  await rig.page.locator('.block-page h2').filter({ hasText: 'Tank Setpoint' }).waitFor();
  t.equal(await form.locator('input[name=storedSetting]').inputValue(), '21.5', 'the typed value is still there');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await rig.page.getByTestId('editor-answer').filter({ hasText: 'saved' }).waitFor();
  t.equal((await read('Tank Setpoint')).storedSetting.value, 21.5, 'and saved under the new name');
});

t.test('a temperature typed while the unit is switched elsewhere is converted with the page', async (t) => {
  t.teardown(() => rig.unitElsewhere('degC'));
  const made = await api('blocks/create', {
    id: 'Beer Profile',
    type: 'SetpointProfile',
    data: { enabled: false, targetId: { __objtype: 'Link', id: 'Tank Setpoint' }, points: [] },
  });
  t.equal(made.status, 201);

  // The editor.
  await rig.page.goto(`${rig.sim.cli.base}/#/block/${encodeURIComponent('Tank Setpoint')}`);
  const form = rig.page.getByTestId('block-form');
  const stored = form.locator('label', { has: rig.page.locator('input[name=storedSetting]') });
  await stored.locator('input').fill('20');
  await rig.unitElsewhere('degF');
  await stored.locator('.unit').filter({ hasText: '°F' }).waitFor();
  t.equal(await stored.locator('input').inputValue(), '68', '20 °C typed is shown as 68 °F');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await rig.page.getByTestId('editor-answer').filter({ hasText: 'saved' }).waitFor();
  t.same(
    (await read('Tank Setpoint')).storedSetting,
    { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'degF', value: 68 },
    'saved as 68 °F',
  );

  // A setpoint card and a profile's start form.
  await rig.unitElsewhere('degC');
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const setting = card('Tank Setpoint').getByTestId('setting-Tank Setpoint');
  await card('Tank Setpoint').locator('.unit').filter({ hasText: '°C' }).waitFor();
  await setting.fill('18,5');
  const profile = card('Beer Profile').getByTestId('profile-form');
  await profile.getByRole('columnheader', { name: 'Temperature (°C)' }).waitFor();
  await profile.getByLabel('step 1 temperature').fill('21');
  await rig.unitElsewhere('degF');
  await card('Tank Setpoint').locator('.unit').filter({ hasText: '°F' }).waitFor();
  await profile.getByRole('columnheader', { name: 'Temperature (°F)' }).waitFor();
  t.equal(await setting.inputValue(), '65.3', 'the setting typed as 18,5 °C is 65.3 °F');
  t.equal(await profile.getByLabel('step 1 temperature').inputValue(), '69.8', 'a step typed as 21 °C is 69.8 °F');
  t.equal(await profile.getByLabel('step 2 temperature').inputValue(), '69.8', "the template's 21 °C is 69.8 °F");
  await card('Tank Setpoint').getByRole('button', { name: 'Set' }).click();
  await card('Tank Setpoint').getByRole('status').filter({ hasText: 'saved' }).waitFor();
  t.equal((await read('Tank Setpoint')).storedSetting.value, 65.3, 'saved as 65.3 °F');
});

t.test('the alert rules read a comma as the decimal point', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/alerts`);
  const rules = rig.page.getByTestId('alert-rules');
  const band = rules.locator('input[name=band]');
  // The page speaks °C again (the unit was switched back by the test before), and the form is
  // filled from GET alerts/rules.
  await rules
    .locator('label', { has: rig.page.locator('input[name=band]') })
    .locator('.unit')
    .filter({ hasText: '°C' })
    .waitFor();
  await rig.page.waitForFunction("document.querySelector('input[name=band]')?.value");
  await band.fill('0,5');
  await rules.getByRole('button', { name: 'Save rules' }).click();
  await rules.getByTestId('rules-answer').filter({ hasText: /saved/ }).waitFor();
  t.equal(await rules.getByTestId('rules-answer').innerText(), 'saved');
  const doc = (await (await fetch(`${rig.sim.cli.base}/edge-one/alerts/rules`)).json()) as {
    rules: { setpointBand: { band: number } };
  };
  t.equal(doc.rules.setpointBand.band, 0.5, 'the band is half a degree');
});

t.test('the alert rules being edited keep what was typed when the unit is switched elsewhere', async (t) => {
  t.teardown(() => rig.unitElsewhere('degC'));
  const rules = rig.page.getByTestId('alert-rules');
  const bandUnit = rules.locator('label', { has: rig.page.locator('input[name=band]') }).locator('.unit');
  await bandUnit.filter({ hasText: '°C' }).waitFor();
  await rules.locator('input[name=sensorNullAfter]').fill('70');
  await rules.locator('input[name=band]').fill('1,5');
  // The last test's save said "saved": an edit since is not saved, and a "saved" still shown
  // would also be taken below for this save's answer.
  t.equal(await rules.getByTestId('rules-answer').count(), 0, 'an edit clears the last "saved"');
  await rig.unitElsewhere('degF');
  await bandUnit.filter({ hasText: '°F' }).waitFor();
  t.equal(await rules.locator('input[name=sensorNullAfter]').inputValue(), '70', 'the other fields are kept');
  t.equal(await rules.locator('input[name=band]').inputValue(), '2.7', 'a band typed as 1,5 °C is 2.7 °F');
  await rules.getByRole('button', { name: 'Save rules' }).click();
  await rules.getByTestId('rules-answer').filter({ hasText: /saved/ }).waitFor();
  const doc = (await (await fetch(`${rig.sim.cli.base}/edge-one/alerts/rules`)).json()) as {
    rules: { setpointBand: { band: number }; sensorNull: { after: number } };
  };
  t.ok(Math.abs(doc.rules.setpointBand.band - 1.5) < 1e-9, `the band is 1.5 °C (${doc.rules.setpointBand.band})`);
  t.equal(doc.rules.sensorNull.after, 70);
});

t.test('the wizard follows a unit switched elsewhere, its settings converted and its choices kept', async (t) => {
  t.teardown(() => rig.unitElsewhere('degC'));
  await rig.page.goto(`${rig.sim.cli.base}/#/setup`);
  const wizard = rig.page.getByTestId('wizard');
  await wizard.getByText('Beer setting (°C)').waitFor();
  await wizard.locator('select[name=beerSensor] option[value="Beer Sensor"]').waitFor({ state: 'attached' });
  await wizard.locator('select[name=beerSensor]').selectOption('Beer Sensor');
  await wizard.locator('input[name=beerSetting]').fill('18,5');
  t.equal(await wizard.locator('input[name=fridgeSetting]').inputValue(), '20');
  await rig.unitElsewhere('degF');
  await wizard.getByText('Beer setting (°F)').waitFor();
  t.equal(await wizard.locator('input[name=beerSetting]').inputValue(), '65.3', '18,5 °C typed is 65.3 °F');
  t.equal(await wizard.locator('input[name=fridgeSetting]').inputValue(), '68', 'the 20 °C offered is 68 °F');
  t.equal(await wizard.locator('select[name=beerSensor]').inputValue(), 'Beer Sensor', 'the sensor picked is kept');
  await rig.page.getByTestId('units').locator('input[value=degF]:checked').waitFor({ state: 'attached' });
});
