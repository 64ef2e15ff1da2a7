// Numbers as a brewer types them, on the forms that start something: a profile step of "2,5"
// days is two and a half days (not 25: the comma was dropped by a number input), a Swing of
// "abc" on the tuning card is said and starts nothing (it was dropped, and the tuning ran with
// the block's own), and the fermentation wizard checks its settings against the setpoint's
// range before it makes any block (a refused one stopped the chain half made) and reads a comma
// as the decimal point. A card's setting typed with its unit ("1e1 °C", "16 ºC", a PWM's "50 %")
// is that number (they were refused as not numbers; the parser: test/dashboard/typed-units.test.ts). A real Chromium against the built CLI with the demo blocks; needs
// `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);
const api = (p: string, body?: unknown) => rig.api(p, body);

const card = rig.card;

t.test('a profile step typed with a comma is that number; one that is not a number is said', async (t) => {
  const made = await api('blocks/create', {
    id: 'Beer Profile',
    type: 'SetpointProfile',
    data: { enabled: false, targetId: { __objtype: 'Link', id: 'Beer Setpoint' }, points: [] },
  });
  t.equal(made.status, 201);
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const form = card('Beer Profile').getByTestId('profile-form');
  await form.getByLabel('step 1 days').fill('2,5');
  await form.getByLabel('step 2 temperature').fill('2o');
  await form.getByRole('button', { name: 'Start Ale profile' }).click();
  await card('Beer Profile')
    .getByTestId('card-answer')
    .filter({ hasText: 'not started: step 2 temperature: "2o" is not a number' })
    .waitFor();
  t.equal((await api('blocks/read', { id: 'Beer Profile' })).body.data.enabled, false, 'nothing started');

  await form.getByLabel('step 2 temperature').fill('20,5');
  await form.getByRole('button', { name: 'Start Ale profile' }).click();
  await card('Beer Profile').getByTestId('profile-now').waitFor();
  const points = (await api('blocks/read', { id: 'Beer Profile' })).body.data.points as Array<{
    time: { value: number };
    temperature: { value: number };
  }>;
  t.same(
    points.slice(0, 3).map((p) => [p.time.value / 86400, p.temperature.value]),
    [
      [0, 19],
      [2.5, 19],
      [3.5, 20.5],
    ],
    '2,5 days is two and a half; 20,5 °C is twenty and a half',
  );
  await api('blocks/delete', { id: 'Beer Profile' });
});

t.test('a Swing that is not a number is said, and no tuning starts', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const pid = card('Cool PID');
  await pid.getByTestId('tuning').waitFor();
  await pid.getByLabel('Swing').fill('abc');
  await pid.getByRole('button', { name: 'Tune', exact: true }).click();
  await pid.getByTestId('card-answer').filter({ hasText: 'not started: Swing: "abc" is not a number' }).waitFor();
  t.equal((await api('blocks/read', { id: 'Cool PID' })).body.data.tuning.state, 'IDLE', 'nothing started');
});

t.test('the wizard checks its settings before it makes a block, and reads a comma', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/setup`);
  const wizard = rig.page.getByTestId('wizard');
  await wizard.locator('select[name=heat] option').nth(4).waitFor({ state: 'attached' });
  await wizard.locator('select[name=beerSensor]').selectOption('Beer Sensor');
  await wizard.locator('select[name=fridgeSensor]').selectOption('Fridge Sensor');
  await wizard.locator('select[name=heat]').selectOption({ index: 4 });
  await wizard.locator('select[name=cool]').selectOption({ index: 5 });
  const create = wizard.getByTestId('wizard-create');

  await wizard.locator('input[name=beerSetting]').fill('500');
  await wizard.locator('p.hint').filter({ hasText: 'beer setting must be between -40 and 150 °C' }).waitFor();
  t.ok(await create.isDisabled(), 'out of the range: not offered');
  await create.click({ force: true });
  t.equal((await api('blocks/read', { id: 'Ferment Fridge Setpoint' })).status, 404, 'no block made');

  await wizard.locator('input[name=beerSetting]').fill('18,5');
  t.notMatch(await wizard.innerText(), /setting must/, '18,5 is a number');
  await create.click();
  await wizard
    .getByTestId('wizard-log')
    .filter({ hasText: 'done:' })
    .waitFor({ timeout: limit(20_000) });
  const beer = (await api('blocks/read', { id: 'Ferment Beer Setpoint' })).body;
  t.equal(beer.data.storedSetting.value, 18.5, 'the beer setpoint at 18.5 °C');
});

t.test("a setting typed with the field's unit is that number; another unit is named, nothing sent", async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const sp = card('Beer Setpoint');
  const setting = async () => (await api('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting.value;
  for (const [typed, want] of [
    ['19.5 °C', 19.5],
    ['18 C', 18],
    // E notation is taken with a unit as without; º (U+00BA) is what many keyboards give for °.
    ['1e1 °C', 10],
    ['16 ºC', 16],
    ['17,5degC', 17.5],
  ] as const) {
    await rig.setOnCard('Beer Setpoint', typed);
    for (let i = 0; i < 50 && (await setting()) !== want; i++) await new Promise((r) => setTimeout(r, 100));
    t.equal(await setting(), want, `"${typed}" in the °C field is ${want}`);
  }
  await rig.setOnCard('Beer Setpoint', '68F');
  await sp.getByTestId('card-answer').filter({ hasText: 'not set: this field is in °C: 68 F is 20 °C' }).waitFor();
  t.equal(await setting(), 17.5, '68F in a °C field is said, not sent');
});

t.test("a PWM's manual setting typed with % is that percentage", async (t) => {
  t.equal(
    (await api('blocks/create', { id: 'Typed PWM', type: 'ActuatorPwm', data: { enabled: true, storedSetting: 0 } }))
      .status,
    201,
  );
  t.teardown(() => api('blocks/delete', { id: 'Typed PWM' }));
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const pwm = card('Typed PWM');
  const setting = async () => (await api('blocks/read', { id: 'Typed PWM' })).body.data.storedSetting;
  await rig.setOnCard('Typed PWM', '50 %');
  await pwm.getByRole('status').filter({ hasText: 'saved' }).waitFor();
  t.equal(await setting(), 50, '"50 %" in the % field is 50');
  t.same(await rig.cardSays('Typed PWM'), ['saved'], 'no problem said');
});
