// A profile started from the dashboard starts at the controller's time, not the browser's. A Pi
// without a real-time clock boots at the time it last saved (10 hours behind after a night's
// power cut) and runs so until network time comes: a start stamped with the browser's clock lay
// 10 hours in the controller's future, so the profile did not drive the setpoint, and when NTP
// put the clock right the jump moved that start 10 hours later again (docs/blocks.md, "Profiles
// and the clock"). The built CLI under a moved clock (libfaketime), a real Chromium.
// Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium, the built CLI under a moved clock)
import type { Browser } from 'playwright-core';
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { launchBrowser, requireWebBuild } from './browser.js';
import { movedController } from './moved-controller.js';

requireWebBuild();
t.setTimeout(limit(120_000));

const HOUR = 3_600_000;

let browser: Browser | undefined;
t.teardown(async () => {
  await browser?.close().catch(() => undefined);
});

t.test('started on a controller 10 hours behind the browser, the profile runs now and keeps its place', async (t) => {
  const { cli, clock, api, controllerNow } = await movedController(t, 'eb-profile-clock-', '-10h');
  await api('blocks/create', { id: 'Beer', type: 'TempSensorMock', data: { 'setting[degC]': 20 } });
  await api('blocks/create', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, 'sensorId<>': 'Beer', 'storedSetting[degC]': 20 },
  });
  await api('blocks/create', {
    id: 'Beer Profile',
    type: 'SetpointProfile',
    data: { enabled: false, 'targetId<>': 'Beer Setpoint', points: [] },
  });
  t.ok(Date.now() - (await controllerNow()) > 9 * HOUR, "the controller's clock is 10 hours behind the browser's");

  browser = await launchBrowser();
  const page = await browser.newPage();
  page.setDefaultTimeout(limit(15_000));
  await page.goto(`${cli.base}/#/overview`);
  const card = page.locator('section.card[data-block="Beer Profile"]');
  const form = card.getByTestId('profile-form');
  await form.getByLabel('Template').selectOption('Lager');
  await form.getByLabel('step 1 temperature').fill('11');
  await form.getByRole('button', { name: 'Start Lager profile' }).click();
  const now = card.getByTestId('profile-now');
  await now.filter({ hasText: 'step 1 of 5: hold 11 °C for 10.0 d' }).waitFor();

  const profile = async () => (await api('blocks/read', { id: 'Beer Profile' })).data;
  const started = await profile();
  const offset = Date.parse(started.start) - (await controllerNow());
  t.ok(Math.abs(offset) < 60_000, `start is the controller's now (${Math.round(offset / 1000)} s from it)`);
  const deadline = Date.now() + limit(10_000);
  let setting = started.setting.value;
  while (setting === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    setting = (await profile()).setting.value;
  }
  t.equal(setting, 11, 'the profile drives the setpoint at its first step');

  // Network time comes: the clock jumps 10 hours forward; the profile keeps its place.
  clock.move('+0');
  await (async () => {
    const end = Date.now() + limit(15_000);
    while (Math.abs(Date.now() - (await controllerNow())) > 60_000 && Date.now() < end)
      await new Promise((r) => setTimeout(r, 200));
  })();
  const jumped = Date.now() + limit(10_000);
  let after = await profile();
  while (Math.abs(Date.now() - Date.parse(after.start)) > 60_000 && Date.now() < jumped) {
    await new Promise((r) => setTimeout(r, 200));
    after = await profile();
  }
  const behind = (Date.now() - Date.parse(after.start)) / 1000;
  t.ok(Math.abs(behind) < 60, `after the jump the profile is ${Math.round(behind)} s in, as before it`);
  t.equal(after.setting.value, 11, 'still at its first step');
  await now.filter({ hasText: 'Now: step 1 of 5' }).waitFor();
});

t.test("on a controller whose clock was never set (1970), the browser's time is the better guess", async (t) => {
  const { cli, api } = await movedController(t, 'eb-profile-clock-unset-', '@1970-01-02 00:00:00');
  await api('blocks/create', { id: 'Beer Profile', type: 'SetpointProfile', data: { enabled: false, points: [] } });
  browser ??= await launchBrowser();
  const page = await browser.newPage();
  page.setDefaultTimeout(limit(15_000));
  await page.goto(`${cli.base}/#/overview`);
  const card = page.locator('section.card[data-block="Beer Profile"]');
  await card.getByTestId('profile-form').getByRole('button', { name: 'Start Ale profile' }).click();
  await card.getByTestId('profile-now').waitFor();
  const start = Date.parse((await api('blocks/read', { id: 'Beer Profile' })).data.start);
  t.ok(
    Math.abs(start - Date.now()) < 60_000,
    `start is the browser's now, not 1970 (${new Date(start).toISOString()}): the profile waits for the clock, then runs from it`,
  );
  await page.close();
});

t.test('on a controller whose clock is not set, Resume and Skip wait for it; Pause and Stop work', async (t) => {
  // A Resume or Skip writes a start on the browser's clock, while the controller, without one, holds
  // the place of the last time it saw: the two would not line up (a paused cold crash resumed a day
  // earlier in the profile, at the warm step).
  const { cli, api } = await movedController(t, 'eb-profile-clock-resume-', '@1970-01-02 00:00:00');
  const day = 86_400;
  const points = [
    { time: 0, temperature: 20 },
    { time: 7 * day, temperature: 20 },
    { time: 7 * day, temperature: 2 },
    { time: 10 * day, temperature: 2 },
  ];
  await api('blocks/create', {
    id: 'Paused Profile',
    type: 'SetpointProfile',
    data: { enabled: false, points },
    meta: { pausedAt: 7.5 * day },
  });
  browser ??= await launchBrowser();
  const page = await browser.newPage();
  page.setDefaultTimeout(limit(15_000));
  await page.goto(`${cli.base}/#/overview`);
  const paused = page.locator('section.card[data-block="Paused Profile"]');
  await paused.getByTestId('profile-clock-unset').waitFor();
  t.ok(await paused.getByRole('button', { name: 'Resume' }).isDisabled(), 'Resume waits for the clock');
  t.ok(await paused.getByRole('button', { name: 'Stop' }).isEnabled(), 'Stop works');
  t.ok(
    await paused.getByRole('button', { name: 'Skip step' }).isEnabled(),
    'Skip of a paused profile moves the pause only',
  );
  await page.close();
});
