// A PWM its PID let go (the PID disabled) has no setting: Brewblox's settingMode CLAIMED keeps it
// off until the brewer sets one, as a setpoint let go by its profile. Its card showed its old
// manual setting (30 %) in the Manual setting field as if it were in use; it now shows the field
// empty ("none") and the old setting as not used, and a setting typed there takes over. While the
// PID drives it, the card offers no setting (as Home Assistant refuses one then:
// test/homeassistant/driven-commands.test.ts). The built CLI on emulated hardware, a real Chromium.
// Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium, the built CLI)
import type { Browser } from 'playwright-core';
import t from 'tap';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { until } from '../helpers/until.js';
import { desktopPage, launchBrowser, removeDir, requireWebBuild, startSim, type SimService } from './browser.js';

requireWebBuild();
t.setTimeout(limit(120_000));

const SID = 'edge-one';

t.test('a PWM its PID let go: the card shows no setting until one is set', async (t) => {
  const sim: SimService = await startSim();
  t.teardown(async () => {
    await sim.stop();
    removeDir(sim.dataDir);
  });
  let browser: Browser | undefined = await launchBrowser();
  t.teardown(async () => {
    await browser?.close().catch(() => undefined);
  });
  const api = (p: string, body?: unknown) => postJson(`${sim.cli.base}/${SID}/${p}`, body);
  const pwm = async () => (await api('blocks/read', { id: 'PWM' })).body.data;
  for (const body of [
    { id: 'Sensor', type: 'TempSensorMock', data: { 'setting[degC]': 14 } },
    {
      id: 'Setpoint',
      type: 'SetpointSensorPair',
      data: { enabled: true, 'sensorId<>': 'Sensor', 'storedSetting[degC]': 10 },
    },
    { id: 'Pins', type: 'MockPins', data: {} },
    // Switched on by hand before the PWM drives it.
    { id: 'Heater', type: 'DigitalActuator', data: { 'hwDevice<>': 'Pins', channel: 1, storedState: 'STATE_ACTIVE' } },
    { id: 'PWM', type: 'ActuatorPwm', data: { enabled: true, storedSetting: 30, 'actuatorId<>': 'Heater' } },
    {
      id: 'PID',
      type: 'Pid',
      data: { enabled: true, 'inputId<>': 'Setpoint', 'outputId<>': 'PWM', kp: -10, ti: 0, td: 0 },
    },
  ])
    t.equal((await api('blocks/create', body)).status, 201, `${body.id} created`);

  const page = await desktopPage(browser);
  await page.goto(`${sim.cli.base}/#/overview`);
  const card = page.locator('section.card[data-block="PWM"]');
  await card.getByTestId('manual-note').filter({ hasText: 'while PID drives it' }).waitFor();
  t.equal(await card.getByTestId('setting-PWM').count(), 0, 'driven: no setting is offered');

  // The editor takes a manual setting while the PID drives the PWM (as the REST API does), and
  // says what becomes of it: not used now, nor once the PID lets go (Brewblox's ratchet puts the
  // PWM back in CLAIMED at the PID's next update). It said "Used when nothing drives it".
  const editor = await desktopPage(browser);
  await editor.goto(`${sim.cli.base}/#/block/PWM`);
  const form = editor.getByTestId('block-form');
  const hint = form.getByTestId('driven-storedSetting');
  await hint.waitFor();
  t.notMatch(await hint.innerText(), 'Used when nothing drives it', 'the editor does not promise it is used later');
  t.match(
    await hint.innerText(),
    'PID drives it now: a setting here is kept but not used, nor once PID lets go (no setting until one is set)',
  );
  await form.locator('input[name="storedSetting"]').fill('80');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await form.getByTestId('editor-answer').waitFor();
  await until(async () => (await pwm()).storedSetting === 80, 'the editor to store 80 %');
  // The patch set settingMode STORED; the PID's next update claims the PWM back (CLAIMED).
  await until(async () => (await pwm()).settingMode === 'CLAIMED', "the PID's next update to claim it back");
  t.equal((await pwm()).desiredSetting, 40, "the PID's setting is used, not the 80");
  await editor.close();

  t.equal(
    (await api('blocks/patch', { id: 'PID', type: 'Pid', data: { enabled: false } })).status,
    200,
    'the PID disabled over the API',
  );
  await card.getByTestId('let-go-note').waitFor();
  const field = card.getByTestId('setting-PWM');
  t.equal(await field.inputValue(), '', 'let go: the field is empty, not the 80 from the editor');
  t.equal(await field.getAttribute('placeholder'), 'none', 'it says none');
  t.match(await card.getByTestId('let-go-note').innerText(), 'earlier setting by hand, 80 %, is not used');
  const d = await pwm();
  t.same([d.claimedBy.id, d.desiredSetting, d.settingMode], [null, null, 'CLAIMED'], 'what the API says');

  // The brewer takes over: a setting typed there is used (settingMode STORED).
  await field.fill('55');
  await card.getByRole('button', { name: 'Set' }).click();
  await card.locator('.answer').filter({ hasText: 'PWM holds 55 %' }).waitFor();
  await until(async () => (await pwm()).desiredSetting === 55, 'the PWM to hold 55 %');
  t.equal((await pwm()).settingMode, 'STORED');
  await card.getByTestId('let-go-note').waitFor({ state: 'detached' });
  t.equal(await card.getByTestId('setting-PWM').inputValue(), '55', 'the field shows the setting in use');

  // The PWM off, its heater is let go: off until switched by hand, and its card says so, not
  // "Switched by hand: on" (its state by hand from before the PWM, not used).
  const heater = card.page().locator('section.card[data-block="Heater"]');
  t.equal((await api('blocks/patch', { id: 'PWM', type: 'ActuatorPwm', data: { enabled: false } })).status, 200);
  await until(async () => {
    const h = (await api('blocks/read', { id: 'Heater' })).body.data;
    return h.claimedBy.id === null && h.settingMode === 'CLAIMED' && h.desiredState === null;
  }, 'the heater to be let go');
  await heater.locator('.problems').filter({ hasText: 'inactive since the block that drove it let go' }).waitFor();
  t.notMatch(
    await heater.getByTestId('output-story').innerText(),
    'Switched by hand',
    'its old state by hand is not shown as used',
  );
  await browser.close();
  browser = undefined;
});
