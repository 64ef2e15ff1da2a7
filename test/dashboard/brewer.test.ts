// The dashboard as a brewer meets it (issue 27), in Debian's Chromium against the built CLI on
// emulated hardware with the demo blocks: a fresh controller's graph shows its last minutes with
// each setpoint drawn with its measured value, a field picker that searches, groups by block
// and is remembered; sparklines on sensor and setpoint cards; a mutex card that says who waits;
// renaming in one click (links follow) and a new sensor asking for a name; a fermentation
// profile started from a template, paused, skipped and resumed; one button that stops all
// outputs and says so; the connection state noticed within 5 s when the service stops or hangs;
// every page at desktop and phone width (no sideways scrolling), keyboard navigation, an
// axe-core check, and a screenshot of each page in test-output/screenshots/.
// Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { axeSource, axeViolations, demoInBrowser, requireWebBuild, screenshot, startSim } from './browser.js';

const SID = 'edge-one';

requireWebBuild();
// Fails with a clear message when axe-core is missing, before anything starts.
axeSource();

t.setTimeout(limit(400_000));

const rig = demoInBrowser(t);

const api = rig.api;
const card = (id: string) => rig.page.locator(`section.card[data-block="${id}"]`);

t.test(
  'sensor and setpoint cards carry a sparkline of the last hour; a mutex card says who holds and who waits',
  async (t) => {
    await rig.historyHas([`${SID}/Beer Sensor/value[degC]`], 2);
    await rig.historyHas([`${SID}/Beer Setpoint/value[degC]`], 2);
    await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
    for (const id of ['Beer Sensor', 'Beer Setpoint']) {
      const spark = card(id).getByTestId('sparkline');
      await spark.waitFor();
      t.ok(Number(await spark.getAttribute('data-points')) >= 2, `${id} has a sparkline`);
      t.match(await spark.getAttribute('aria-label'), `${id}, last hour`, 'it says what it shows');
    }
    const mutex = card('Heat Cool Mutex').getByTestId('headline');
    await mutex.waitFor();
    t.match(
      await mutex.innerText(),
      /^(held by (Heater|Cooler)(, \d+ (s|min) more)?|free|(Heater|Cooler) waits( \d+ (s|min))?)$/,
      'the mutex headlines its state: who holds it or who waits',
    );
  },
);

t.test('rename in one click (links follow); a discovered sensor asks for a name', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  await card('Beer Sensor').getByRole('button', { name: 'Rename', exact: true }).click();
  await card('Beer Sensor').getByLabel('New name').fill('Wort Sensor');
  await card('Beer Sensor').getByRole('button', { name: 'Save name' }).click();
  await card('Wort Sensor').waitFor({ timeout: limit(10_000) });
  const pair = (await api('blocks/read', { id: 'Beer Setpoint' })).body;
  t.equal(pair.data.sensorId.id, 'Wort Sensor', 'the setpoint that reads it follows the new name');

  const found = (await api('blocks/discover')).body as Array<{ id: string; type: string }>;
  const fresh = found.find((b) => b.type === 'TempSensorOneWire');
  t.ok(fresh, 'discovery found the room sensor');
  const ask = card(fresh!.id).getByTestId('rename');
  await ask.waitFor();
  t.match(await ask.innerText(), 'New sensor: name it', 'the card asks for a name without a click');
  await ask.getByRole('textbox').fill('Room Sensor');
  await ask.getByRole('button', { name: 'Save name' }).click();
  await card('Room Sensor').waitFor({ timeout: limit(10_000) });
  t.equal(await card('Room Sensor').getByTestId('rename').count(), 0, 'a named sensor no longer asks');
});

t.test(
  'graphs: a fresh controller shows its last minutes, setpoints paired with their values, a remembered field picker',
  async (t) => {
    await rig.page.evaluate(() => localStorage.clear());
    await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
    await rig.page.getByTestId('chart').locator('canvas').waitFor();
    await rig.page.waitForFunction('window.__graphPoints > 0');
    t.equal(
      await rig.page.getByRole('button', { name: 'show the last 10m' }).getAttribute('aria-pressed'),
      'true',
      'the range fits minutes of data: 10 min',
    );
    const checked = await rig.page
      .getByTestId('field-picker')
      .locator('input[type=checkbox]:checked')
      .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).dataset.field));
    t.ok(
      checked.includes(`${SID}/Beer Setpoint/setting[degC]`) && checked.includes(`${SID}/Beer Setpoint/value[degC]`),
      `the beer setpoint is drawn with its measured value: ${checked.join(', ')}`,
    );
    t.ok(checked.length <= 6, 'at most six fields by default');

    await rig.page.locator('summary').filter({ hasText: 'Fields' }).click();
    await rig.page.getByLabel('Search fields').fill('heat pwm');
    const groups = await rig.page
      .getByTestId('field-picker')
      .locator('fieldset')
      .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.group));
    t.same(groups, ['Heat PWM'], 'search narrows the list to one block, grouped under its name');
    await rig.page.getByTestId('field-picker').getByLabel('Value', { exact: true }).check();
    await rig.page.getByRole('button', { name: 'show the last 1h' }).click();
    await rig.page.reload();
    await rig.page.getByTestId('chart').locator('canvas').waitFor();
    const kept = JSON.parse(
      (await rig.page.evaluate(() => localStorage.getItem('edgeblocks.graph.fields'))) ?? '[]',
    ) as string[];
    t.ok(kept.includes(`${SID}/Heat PWM/value`), 'the choice is remembered in this browser');
    t.equal(
      await rig.page.getByRole('button', { name: 'show the last 1h' }).getAttribute('aria-pressed'),
      'true',
      'and so is the range',
    );
  },
);

t.test('a fermentation profile from a template: where it is, what is next, pause, skip, resume', async (t) => {
  const made = await api('blocks/create', {
    id: 'Beer Profile',
    type: 'SetpointProfile',
    data: { enabled: false, targetId: { __objtype: 'Link', id: 'Beer Setpoint' }, points: [] },
  });
  t.equal(made.status, 201);
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const c = card('Beer Profile');
  const form = c.getByTestId('profile-form');
  await form.getByLabel('Template').selectOption('Lager');
  await form.getByLabel('step 1 temperature').fill('11');
  await form.getByRole('button', { name: 'Start Lager profile' }).click();
  const now = c.getByTestId('profile-now');
  await now.filter({ hasText: 'step 1 of 5: hold 11 °C for 10.0 d' }).waitFor();
  t.match(await now.innerText(), 'Next: ramp 11 → 16 °C over 2.0 d');
  let b = (await api('blocks/read', { id: 'Beer Profile' })).body;
  t.equal(b.data.enabled, true, 'the profile runs');
  t.equal(b.data.points[0].temperature.value, 11, 'with the edited first step');

  await c.getByRole('button', { name: 'Pause' }).click();
  await now.filter({ hasText: 'Paused at' }).waitFor();
  b = (await api('blocks/read', { id: 'Beer Profile' })).body;
  t.equal(b.data.enabled, false, 'paused: the profile no longer drives the setpoint');
  t.type(b.meta.pausedAt, 'number', 'the place is kept on the block, for any browser');
  // Paused, the beer keeps the temperature of the place it was paused at (step 1: 11 °C); a
  // setpoint the profile left without a setting would leave it uncontrolled.
  let sp = (await api('blocks/read', { id: 'Beer Setpoint' })).body;
  // The setting follows at the setpoint's next update (within a second).
  for (let i = 0; i < 50 && sp.data.setting?.value == null; i++) {
    await new Promise((r) => setTimeout(r, 100));
    sp = (await api('blocks/read', { id: 'Beer Setpoint' })).body;
  }
  t.equal(sp.data.claimedBy.id, null, 'the setpoint is free');
  t.equal(sp.data.setting?.value ?? null, 11, 'and holds 11 °C');

  await c.getByRole('button', { name: 'Skip step' }).click();
  await now.filter({ hasText: 'step 2 of 5' }).waitFor();
  await c.getByRole('button', { name: 'Resume' }).click();
  await now.filter({ hasText: /Now: step 2 of 5: ramp 11 → 16 °C/ }).waitFor();
  b = (await api('blocks/read', { id: 'Beer Profile' })).body;
  t.equal(b.data.enabled, true, 'resumed');
  t.ok(
    Math.abs(Date.now() / 1000 - Date.parse(b.data.start) / 1000 - 10 * 86400) < 120,
    'at the start of step 2 (10 days in)',
  );
  // Stopped while it runs, the profile lets go of the setpoint, which keeps the setting of the
  // moment (the start of step 2's ramp: 11 °C) as its own, as a thermostat would: a setpoint left
  // in CLAIMED mode without a setting would leave the beer uncontrolled.
  await c.getByRole('button', { name: 'Stop' }).click();
  await c.getByRole('button', { name: 'Start profile now' }).waitFor();
  t.equal(await c.getByTestId('profile-steps').locator('li').count(), 5, 'stopped, it lists its steps to start again');
  t.match(await c.locator('.answer').innerText(), 'profile stopped: Beer Setpoint holds its setting', 'and says so');
  b = (await api('blocks/read', { id: 'Beer Profile' })).body;
  t.equal(b.data.enabled, false, 'stopped: the profile no longer drives the setpoint');
  sp = (await api('blocks/read', { id: 'Beer Setpoint' })).body;
  for (let i = 0; i < 50 && sp.data.setting?.value == null; i++) {
    await new Promise((r) => setTimeout(r, 100));
    sp = (await api('blocks/read', { id: 'Beer Setpoint' })).body;
  }
  t.equal(sp.data.claimedBy.id, null, 'the setpoint is free');
  const held = sp.data.setting?.value ?? null;
  t.ok(held !== null && Math.abs(held - 11) < 0.01, `and holds the setting of the moment, 11 °C (${held})`);
  t.equal(sp.data.storedSetting.value, held, 'as its own setting');
});

t.test('the editor labels fields in words and enforces the ranges of the field table', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/block/${encodeURIComponent('Beer Setpoint')}`);
  const form = rig.page.getByTestId('block-form');
  await form.waitFor();
  const labels = await form.locator('label').evaluateAll((els) => els.map((e) => e.firstChild?.textContent?.trim()));
  t.ok(labels.includes('Setting') && labels.includes('Filter threshold'), `labels in words: ${labels.join(', ')}`);
  t.notOk(
    labels.some((l) => /[a-z][A-Z]/.test(l ?? '')),
    'no camelCase label',
  );
  t.notOk(labels.includes('Value'), 'read-only fields are not inputs');
  const sensors = await form
    .locator('select[name=sensorId] option')
    .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  t.ok(
    sensors.includes('Wort Sensor') && sensors.includes('Fridge Sensor'),
    `the sensor picker offers sensors: ${sensors.join(', ')}`,
  );
  t.notOk(
    sensors.includes('Heat PID') || sensors.includes('Heater') || sensors.includes('Beer Setpoint'),
    'and no block of another interface',
  );
  const stored = (await api('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting.value;
  await form.locator('input[name=storedSetting]').fill('500');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await form
    .getByTestId('error-storedSetting')
    .filter({ hasText: /Setting: between -?\d+ and \d+/ })
    .waitFor();
  t.equal(
    (await api('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting.value,
    stored,
    'the out-of-range value was not sent',
  );
});

const PAGES = ['overview', 'graphs', 'setup', 'hardware', 'alerts', `block/${encodeURIComponent('Beer Setpoint')}`];
const pageName = (p: string) => p.split('/')[0]!;

for (const [width, height, label] of [
  [1200, 900, 'desktop'],
  [390, 844, 'phone'],
] as const) {
  t.test(
    `every page at ${label} width (${width} px): laid out without sideways scrolling, screenshot, axe-core check`,
    async (t) => {
      const p = await rig.browser.newPage({
        viewport: { width, height },
        isMobile: label === 'phone',
        hasTouch: label === 'phone',
      });
      t.teardown(() => p.close());
      for (const route of PAGES) {
        await p.goto(`${rig.sim.cli.base}/#/${route}`);
        await p
          .getByTestId('online')
          .filter({ hasText: 'online' })
          .waitFor({ timeout: limit(15_000) });
        await p
          .locator('main')
          .getByText(/Loading…|Waiting for the controller…|Reading the schema…|Asking the history service/)
          .waitFor({ state: 'detached', timeout: limit(15_000) });
        if (route === 'graphs') await p.getByTestId('chart').locator('canvas').waitFor();
        const overflow = await p.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        t.ok(overflow <= 0, `${pageName(route)}: no sideways scrolling (overflow ${overflow} px)`);
        await screenshot(p, `${pageName(route)}-${label}`);
        const violations = await axeViolations(p);
        t.same(
          violations.map(
            (v) =>
              `${v.id} (${v.impact}): ${v.help} — ${v.nodes
                .slice(0, 3)
                .map((n) => n.target.join(' '))
                .join(', ')}`,
          ),
          [],
          `${pageName(route)}: axe-core finds no WCAG A/AA violation`,
        );
      }
    },
  );
}

t.test('keyboard: the pages are reached with Tab and Enter, focus is visible', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  await rig.page.reload();
  await card('Beer Setpoint').waitFor();
  let reached = false;
  for (let i = 0; i < 15 && !reached; i++) {
    await rig.page.keyboard.press('Tab');
    reached = await rig.page.evaluate(() => document.activeElement?.textContent === 'Graphs');
  }
  t.ok(reached, 'Tab reaches the Graphs link');
  const outline = await rig.page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  t.not(outline, 'none', 'the focused link shows it');
  await rig.page.keyboard.press('Enter');
  await rig.page.waitForFunction(() => location.hash === '#/graphs');
  t.pass('Enter follows it');
});

t.test('one button stops all outputs and says what it did', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const sw = rig.page.getByTestId('control-switch');
  await sw.getByRole('button', { name: 'Stop all outputs' }).click();
  await sw.getByRole('status').filter({ hasText: 'All outputs stopped' }).waitFor();
  const enabled = await (await fetch(`${rig.sim.cli.base}/${SID}/settings/enabled`)).json();
  t.same(enabled, { enabled: false }, 'control is disabled on the service');
  t.match(await sw.innerText(), 'Control is stopped: all outputs are off.');
  await rig.page.reload();
  await rig.page.getByTestId('control-switch').filter({ hasText: 'Control is stopped' }).waitFor();
  await screenshot(rig.page, 'overview-stopped-desktop');
  await rig.page.getByTestId('control-switch').getByRole('button', { name: 'Resume control' }).click();
  await rig.page.getByTestId('control-switch').getByRole('status').filter({ hasText: 'Control resumed' }).waitFor();
  t.same(await (await fetch(`${rig.sim.cli.base}/${SID}/settings/enabled`)).json(), { enabled: true });
});

t.test('connection: a stopped service is noticed within 5 s, a hung one too, and the page comes back', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  await rig.page.getByTestId('online').filter({ hasText: 'online' }).waitFor();
  await card('Beer Setpoint').waitFor();
  const port = rig.sim.cli.port;

  rig.sim.cli.child.kill('SIGSTOP');
  let t0 = Date.now();
  await rig.page.locator('[data-testid=online]:not([data-connection=online])').waitFor({ timeout: limit(5000) });
  t.pass(`a hung service is noticed after ${Date.now() - t0} ms`);
  await rig.page.getByTestId('offline').waitFor({ timeout: limit(5000) });
  t.equal(await rig.page.getByTestId('online').innerText(), 'offline', 'it does not answer: offline');
  rig.sim.cli.child.kill('SIGCONT');
  await rig.page
    .getByTestId('online')
    .filter({ hasText: 'online' })
    .waitFor({ timeout: limit(20_000) });

  t0 = Date.now();
  rig.sim.cli.child.kill('SIGKILL');
  await rig.sim.cli.exited;
  await rig.page.getByTestId('offline').waitFor({ timeout: limit(5000) });
  t.pass(`a stopped service is noticed after ${Date.now() - t0} ms`);
  await screenshot(rig.page, 'overview-offline-desktop');
  rig.sim = await startSim(['--port', String(port)], 1000, rig.sim.dataDir);
  await rig.page
    .getByTestId('online')
    .filter({ hasText: 'online' })
    .waitFor({ timeout: limit(20_000) });
  t.equal(await rig.page.getByTestId('offline').count(), 0, 'the banner is gone');
});
