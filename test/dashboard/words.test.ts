// Nothing a brewer has to translate (issue 47.2-47.4, 47.6), in Debian's Chromium against the
// built CLI on the demo hardware plus an analog input, at desktop and phone width: the block
// editor of a DigitalActuator with constraints in words (enum values, units, constraints with
// their state, JSON only behind "Show JSON"), the hardware page in words, every device fully
// shown (humidity, pressure, an analog input in its unit, a thermocouple fault, I2C addresses
// as 0x60, short I2C names offered for renaming), driven outputs offering no manual setting, the
// mutex headlining its state, and the alert band in °F converted by the service's own table.
// Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Browser, Page } from 'playwright-core';
import { postJson, ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import {
  launchBrowser,
  removeDir,
  screenshot,
  startSim,
  type SimService,
  requireWebBuild,
  loadDemoBlocks,
} from './browser.js';

const SID = 'edge-one';

requireWebBuild();

t.setTimeout(limit(300_000));

let sim: SimService;
let browser: Browser;

const api = (p: string, body?: unknown) => postJson(`${sim.cli.base}/${SID}/${p}`, body);
const read = async (id: string) => (await api('blocks/read', { id })).body;

t.before(async () => {
  // The demo hardware with a keg pressure transducer on an ADS1115 input 1 (2.5 V).
  const config = JSON.parse(readFileSync(path.join(ROOT, 'scripts/demo-sim.json'), 'utf8'));
  config.i2cSensors.push({ name: 'keg', type: 'ADS1115', address: '0x48', inputs: [0, 2.5, 0, 0] });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eb-words-'));
  t.teardown(() => removeDir(dir));
  const file = path.join(dir, 'sim.json');
  writeFileSync(file, JSON.stringify(config));
  sim = await startSim(['--sim-config', file]);
  await loadDemoBlocks(sim);
  const found = (await api('blocks/discover')).body as Array<{ id: string }>;
  const ids = found.map((b) => b.id);
  for (const id of ['BME280 0x76', 'MCP9600 0x60', 'ADS1115 0x48'])
    if (!ids.includes(id)) throw new Error(`discovery did not name ${id}: ${ids.join(', ')}`);
  // The keg: 0.5-4.5 V is 0-10 bar, on input 1.
  const keg = await api('blocks/patch', {
    id: 'ADS1115 0x48',
    type: 'AnalogSensorI2c',
    data: { channel: 1, unit: 'BAR', voltsLow: 0.5, valueLow: 0, voltsHigh: 4.5, valueHigh: 10 },
  });
  if (keg.status !== 200) throw new Error(`keg not set up: ${JSON.stringify(keg.body)}`);
  // A free relay with every timing constraint, for the editor.
  const spare = await api('blocks/create', {
    id: 'Spare Relay',
    type: 'DigitalActuator',
    data: {
      hwDevice: { __objtype: 'Link', id: 'DS2408 00000000d001' },
      channel: 4,
      storedState: 'STATE_INACTIVE',
      constraints: { minOn: { duration: 60, enabled: true } },
    },
  });
  if (spare.status !== 201) throw new Error(`spare relay not created: ${JSON.stringify(spare.body)}`);
  browser = await launchBrowser();
});

t.teardown(async () => {
  await browser?.close().catch(() => undefined);
  await sim?.stop();
  if (sim) removeDir(sim.dataDir);
});

async function open(width: number): Promise<{ page: Page; errors: string[] }> {
  const phone = width < 500;
  const page = await browser.newPage({ viewport: { width, height: 900 }, isMobile: phone, hasTouch: phone });
  page.setDefaultTimeout(limit(15_000));
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  return { page, errors };
}

const card = (page: Page, id: string) => page.locator(`section.card[data-block="${id}"]`);
/** Text a person sees, with the API's spellings a brewer should never meet. */
const API_WORDS =
  /__objtype|__bloxtype|STATE_(IN)?ACTIVE|\bST_[A-Z]|\bCLAIMED\b|\bFILTER_|crcErrors|presenceErrors|verifyErrors/;

for (const [width, label] of [
  [1200, 'desktop'],
  [390, 'phone'],
] as const) {
  t.test(`${label}: the editor of a DigitalActuator with constraints, in words`, async (t) => {
    const { page, errors } = await open(width);
    t.teardown(() => page.close());
    await page.goto(`${sim.cli.base}/#/block/${encodeURIComponent('Cooler')}`);
    const form = page.getByTestId('block-form');
    await form.waitFor();
    await page.getByTestId('constraint-state-mutexed').waitFor();
    const options = async (name: string) =>
      form.locator(`select[name="${name}"] option`).evaluateAll((os) => os.map((o) => (o.textContent ?? '').trim()));
    t.same((await options('storedState')).slice(0, 2), ['Off', 'On'], 'the manual state in words');
    t.ok((await options('settingMode')).includes('Driven by Cool PWM'), 'the setting mode names the driver');
    t.ok((await options('transitionDurationPreset')).includes('No soft start'), 'presets in words');
    t.match(await form.getByTestId('driven-storedState').innerText(), 'Cool PWM drives it now');
    const constraints = form.getByTestId('field-constraints');
    for (const words of ['Minimum off time', 'Minimum on time', 'Delay before switching on', 'Mutex'])
      t.match(await constraints.innerText(), words, `constraint "${words}" by name`);
    t.equal(
      await constraints.locator('select[name="constraints.mutexed.mutexId"]').inputValue(),
      'Heat Cool Mutex',
      'the mutex is picked from the mutexes',
    );
    t.equal(
      await constraints.locator('input[name="constraints.mutexed.extraHoldTime"]').inputValue(),
      '10 min',
      'a duration as a person writes it',
    );
    t.match(
      await page.getByTestId('constraint-state-mutexed').innerText(),
      /^(Heat Cool Mutex is free for it|holds Heat Cool Mutex|waiting .*for Heat Cool Mutex.*)$/,
      'the mutex constraint says what it does now',
    );
    const visible = await page.locator('main').innerText();
    t.notMatch(visible, API_WORDS, 'no API spelling on the page');
    t.equal(
      await page.locator('details.json').evaluate((d) => (d as { open: boolean }).open),
      false,
      'the JSON is behind "Show JSON"',
    );
    await page.getByText('Show JSON').click();
    t.match(await page.locator('details.json pre').innerText(), '"__objtype"', 'and there when asked for');
    await screenshot(page, `editor-digital-actuator-${label}`);
    t.same(errors, []);
  });
}

t.test('the editor switches constraints on and off, checks durations, and shows the wait in words', async (t) => {
  const { page, errors } = await open(1200);
  t.teardown(() => page.close());
  await page.goto(`${sim.cli.base}/#/block/${encodeURIComponent('Spare Relay')}`);
  const form = page.getByTestId('block-form');
  await form.waitFor();
  const row = (c: string) => form.locator(`[data-constraint=${c}]`);
  await row('minOff').getByRole('checkbox').check();
  await row('minOff').locator('input[name="constraints.minOff.duration"]').fill('a while');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await form.getByTestId('error-constraints').filter({ hasText: 'is not a duration' }).waitFor();
  t.notOk((await read('Spare Relay')).data.constraints.minOff, 'a bad duration is not sent');
  await row('minOff').locator('input[name="constraints.minOff.duration"]').fill('5 min 10 s');
  await row('minOn').getByRole('checkbox').uncheck();
  await form.getByRole('button', { name: 'Save changes' }).click();
  await page.getByTestId('editor-answer').filter({ hasText: 'saved' }).waitFor();
  const stored = (await read('Spare Relay')).data.constraints;
  t.equal(stored.minOff.duration.value, 310, '"5 min 10 s" is stored as 310 s');
  t.equal(stored.minOn, undefined, 'a constraint switched off is removed');
  // Switch it on and off, then ask for on: the minimum off time holds it, and the page says so.
  // (The wait counts from the relay's last switch off, some seconds before on a loaded machine
  // when the first "on" was held too: "4 min 50 s" as well as "5 min 9 s".)
  for (const state of ['STATE_ACTIVE', 'STATE_INACTIVE', 'STATE_ACTIVE'])
    await api('blocks/patch', { id: 'Spare Relay', type: 'DigitalActuator', data: { storedState: state } });
  await page
    .getByTestId('constraint-state-minOff')
    .filter({ hasText: /^waiting (\d+ min( \d+ s)?|\d+ s) for the minimum off time$/ })
    .waitFor({ timeout: limit(20_000) });
  const said = await page.getByTestId('constraint-state-minOff').innerText();
  const remaining = (await read('Spare Relay')).data.constraints.minOff.remaining.value as number;
  t.ok(remaining > 0 && remaining <= 310, `the editor says: ${said} (${remaining} s left of 310)`);
  t.match(
    await page.getByTestId('block-now').innerText(),
    /Waiting .* for the minimum off time/,
    'and the block page says why it is off',
  );
  await screenshot(page, 'editor-digital-actuator-waiting-desktop');
  t.same(errors, []);
});

t.test('units beside numbers in the editor', async (t) => {
  const { page } = await open(1200);
  t.teardown(() => page.close());
  const unitOf = async (id: string, field: string) => {
    await page.goto(`${sim.cli.base}/#/block/${encodeURIComponent(id)}`);
    const label = page
      .getByTestId('block-form')
      .locator('label')
      .filter({ has: page.locator(`[name="${field}"]`) });
    return label.locator('.unit').innerText();
  };
  t.equal(await unitOf('Beer Setpoint', 'storedSetting'), '°C');
  t.equal(await unitOf('Beer Setpoint', 'filterThreshold'), 'Δ°C');
  t.equal(await unitOf('Heat PWM', 'storedSetting'), '%');
  t.equal(await unitOf('ADS1115 0x48', 'voltsHigh'), 'V');
  t.equal(await unitOf('ADS1115 0x48', 'valueHigh'), 'bar');
  // A Setpoint Driver's limits are Δ°C whatever the preference: it said nothing, beside a setting in Δ°F.
  const driver = await api('blocks/create', {
    id: 'Fridge Driver',
    type: 'ActuatorOffset',
    data: { constraints: { max: { value: 10, enabled: true } } },
  });
  t.equal(driver.status, 201, JSON.stringify(driver.body));
  t.teardown(() => api('blocks/delete', { id: 'Fridge Driver' }));
  t.equal(await unitOf('Fridge Driver', 'constraints.max.value'), 'Δ°C');
  await page.goto(`${sim.cli.base}/#/block/${encodeURIComponent('Heat PWM')}`);
  await page.getByTestId('block-form').locator('input[name="constraints.max"]').check();
  const pwmLimit = page
    .getByTestId('block-form')
    .locator('label')
    .filter({ has: page.locator('[name="constraints.max.value"]') });
  t.equal(await pwmLimit.locator('.unit').innerText(), '%', "a PWM's limits are its duty");
});

for (const [width, label] of [
  [1200, 'desktop'],
  [390, 'phone'],
] as const) {
  t.test(`${label}: every device fully shown, driven outputs, the mutex, the hardware page`, async (t) => {
    const { page, errors } = await open(width);
    t.teardown(() => page.close());
    await page.goto(`${sim.cli.base}/#/overview`);
    const env = card(page, 'BME280 0x76');
    await env
      .locator('dd')
      .filter({ hasText: '%RH' })
      .waitFor({ timeout: limit(20_000) });
    t.match(await env.innerText(), /Humidity\s+55\.0 %RH/, 'humidity on the BME280 card');
    t.match(await env.innerText(), /Pressure\s+1013\.0 hPa/, 'and pressure');
    t.match(await env.innerText(), /Address\s+0x76 on bus sim/, 'the address as the datasheet writes it');
    t.match(await card(page, 'MCP9600 0x60').innerText(), /Address\s+0x60/, 'not "Address 96"');
    t.match(
      await env.getByTestId('rename').innerText(),
      'New sensor: name it',
      'a discovered I2C sensor asks for a name',
    );
    const keg = card(page, 'ADS1115 0x48');
    await keg
      .getByTestId('headline')
      .filter({ hasText: /^5\.00 bar$/ })
      .waitFor({ timeout: limit(20_000) });
    t.match(await keg.innerText(), /Input\s+AIN1 · 2\.500 V/, 'the analog input in its scaled unit, with its volts');

    t.equal(await card(page, 'Heat PWM').locator('input').count(), 1, 'a driven PWM offers no manual setting');
    t.match(await card(page, 'Heat PWM').getByTestId('manual-note').innerText(), 'disable Heat PID first');
    t.match(
      await card(page, 'Heat Cool Mutex').getByTestId('headline').innerText(),
      /^(free|held by (Heater|Cooler)(, .* more)?|(Heater|Cooler) waits.*)$/,
      'the mutex headlines its state',
    );
    t.notMatch(await card(page, 'Heat Cool Mutex').innerText(), /wait 10 min/, 'not its setting');
    await screenshot(page, `overview-devices-${label}`);

    await page.goto(`${sim.cli.base}/#/hardware`);
    await page.getByTestId('plant').waitFor();
    const hw = await page.locator('main').innerText();
    t.notMatch(hw, API_WORDS, 'no counter names of the API');
    t.match(await page.getByTestId('plant').innerText(), /Beer\s+\d+\.\d °C/, 'the plant rounded, with units');
    t.notMatch(await page.getByTestId('plant').innerText(), /\d\.\d{3,}/, 'no long decimals');
    t.match(await page.getByTestId('i2c').innerText(), '0x60', 'I2C addresses as 0x60');
    t.match(
      await page.getByTestId('buses').innerText(),
      '28-00000000b001',
      '1-Wire addresses as the kernel names them',
    );
    await screenshot(page, `hardware-words-${label}`);
    t.same(errors, []);
  });
}

t.test('a thermocouple fault in words; humidity, pressure and the analog unit in the graph picker', async (t) => {
  const { page, errors } = await open(1200);
  t.teardown(() => page.close());
  await page.goto(`${sim.cli.base}/#/overview`);
  t.equal((await postJson(`${sim.cli.base}/${SID}/sim/devices/herms/fault`, { fault: 'open' })).status, 200);
  const tc = card(page, 'Thermocouple f001');
  await tc
    .locator('ul.problems')
    .filter({ hasText: 'Thermocouple fault' })
    .waitFor({ timeout: limit(20_000) });
  t.match(await tc.locator('ul.problems').innerText(), /thermocouple open: it is not connected or a wire is broken/);
  t.notMatch(await tc.locator('ul.problems').innerText(), 'value is null', 'the fault says why, not "null"');
  await postJson(`${sim.cli.base}/${SID}/sim/faults/clear`);

  for (let i = 0; i < 60; i++) {
    const res = await fetch(`${sim.cli.base}/history/timeseries/fields`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"duration": "1h"}',
    });
    const fields = (await res.json()) as string[];
    if (fields.includes(`${SID}/BME280 0x76/pressure`) && fields.includes(`${SID}/ADS1115 0x48/value`)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  await page.goto(`${sim.cli.base}/#/graphs`);
  const picker = page.getByTestId('field-picker');
  await picker.waitFor({ state: 'attached' });
  const words = await picker.locator('fieldset[data-group="BME280 0x76"] label').allTextContents();
  t.ok(words.map((w) => w.trim()).includes('Humidity (%RH)'), `humidity with its unit: ${words.join(', ')}`);
  t.ok(words.map((w) => w.trim()).includes('Pressure (hPa)'), 'pressure with its unit');
  const keg = await picker.locator('fieldset[data-group="ADS1115 0x48"] label').allTextContents();
  t.ok(keg.map((w) => w.trim()).includes('Value (bar)'), `the analog input in its unit: ${keg.join(', ')}`);
  t.same(errors, []);
});

t.test('alerts: the setpoint band in °F is converted by the service’s table both ways', async (t) => {
  const { page, errors } = await open(1200);
  t.teardown(async () => {
    await postJson(`${sim.cli.base}/history/datastore/set`, {
      value: { namespace: SID, id: 'units', temperature: 'degC' },
    });
    await page.close();
  });
  const rules = async () => ((await (await fetch(`${sim.cli.base}/${SID}/alerts/rules`)).json()) as any).rules;
  const before = (await rules()).setpointBand.band as number;
  await postJson(`${sim.cli.base}/history/datastore/set`, {
    value: { namespace: SID, id: 'units', temperature: 'degF' },
  });
  await page.goto(`${sim.cli.base}/#/alerts`);
  const band = page.getByTestId('alert-rules').locator('input[name=band]');
  await page
    .getByTestId('alert-rules')
    .locator('label')
    .filter({ has: page.locator('input[name=band]') })
    .locator('.unit')
    .filter({ hasText: '°F' })
    .waitFor({ timeout: limit(15_000) });
  await page.waitForFunction(
    (want) =>
      (document.querySelector('[data-testid=alert-rules] input[name=band]') as { value: string } | null)?.value ===
      want,
    String(Number((before * 1.8).toFixed(2))),
  );
  t.pass(`a band of ${before} °C shows as ${(before * 1.8).toFixed(2)} °F`);
  await band.fill('5.4');
  await page.getByRole('button', { name: 'Save rules' }).click();
  await page.getByTestId('rules-answer').filter({ hasText: 'saved' }).waitFor();
  const stored = (await rules()).setpointBand.band as number;
  t.ok(Math.abs(stored - 3) < 1e-9, `5.4 °F is stored as 3 °C (${stored})`);
  await screenshot(page, 'alerts-degF-desktop');
  t.same(errors, []);
});
