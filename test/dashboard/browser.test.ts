// The dashboard in a real browser (Debian's Chromium via playwright-core) against the built CLI
// on emulated hardware: it loads, discovery and the fermentation-fridge wizard build a working
// chain, values follow the emulated temperature, a setpoint edit survives a reload, a 422 is
// shown in words, a block deleted elsewhere is reported, and the page says "offline" while the
// service is down and comes back by itself. Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import type { Browser, Page } from 'playwright-core';
import { postJson } from '../helpers/cli.js';
import { launchBrowser, removeDir, startSim, type SimService, requireWebBuild } from './browser.js';
import { limit } from '../helpers/limits.js';

// What the functions run inside the page use of it: this file compiles without the DOM library.
declare const document: { querySelector(selector: string): { textContent: string | null } | null };

const SID = 'edge-one';
const BEER = 'Sensor b001';
const AIR = 'Sensor a001';
const RELAYS = 'DS2408 00000000d001';

requireWebBuild();

// A browser and several service starts: more than the default per-file limit on a busy machine.
t.setTimeout(limit(300_000));

let sim: SimService;
let browser: Browser;
let page: Page;
const dataDirs: string[] = [];

t.before(async () => {
  sim = await startSim();
  dataDirs.push(sim.dataDir);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
});

t.teardown(async () => {
  await browser?.close().catch(() => undefined);
  await sim?.stop();
  for (const d of dataDirs) removeDir(d);
});

const api = (p: string, body?: unknown) => postJson(`${sim.cli.base}/${SID}/${p}`, body);
const card = (id: string) => page.locator(`section.card[data-block="${id}"]`);

t.test('the page loads from / and shows the service live', async (t) => {
  const res = await page.goto(`${sim.cli.base}/`);
  t.equal(res?.status(), 200);
  await page
    .getByTestId('online')
    .filter({ hasText: 'online' })
    .waitFor({ timeout: limit(15000) });
  await card('SysInfo').waitFor();
  t.match(await page.locator('header').innerText(), SID, 'the service id is in the header');
  t.equal(await page.getByTestId('logout').count(), 0, 'no logout button with auth off');
});

t.test('discovery and the fermentation-fridge wizard create a working chain', async (t) => {
  await page.goto(`${sim.cli.base}/#/setup`);
  await page.getByTestId('discover').click();
  await page.getByText(/found \d+ new/).waitFor({ timeout: limit(15000) });
  const wizard = page.getByTestId('wizard');
  // The demo's door contact is an input line: offered neither as heater nor as cooler (issue 24.7).
  const pins = (await api('blocks/read', { id: 'GpioPins' })).body.data;
  const door = pins.lines.find((l: { name: string }) => l.name === 'door');
  t.ok(door, 'the demo has a door input');
  for (const select of ['heat', 'cool']) {
    const offered = await wizard
      .locator(`select[name=${select}] option`)
      .evaluateAll((os) => os.map((o) => (o as { value: string }).value));
    t.ok(offered.includes(`${RELAYS}#1`), `${select}: relay channels offered`);
    t.notOk(offered.includes(`GpioPins#${door.channel}`), `${select}: the door input is not offered`);
  }
  await wizard.locator('select[name=beerSensor]').selectOption(BEER);
  await wizard.locator('select[name=fridgeSensor]').selectOption(AIR);
  await wizard.locator('select[name=heat]').selectOption(`${RELAYS}#1`);
  await wizard.locator('select[name=cool]').selectOption(`${RELAYS}#2`);
  await wizard.locator('input[name=beerSetting]').fill('21');
  await page.getByTestId('wizard-create').click();
  await page
    .getByTestId('wizard-log')
    .getByText(/^done:/)
    .waitFor({ timeout: limit(20000) });

  const all = (await api('blocks/all/read')).body as Array<{ id: string; type: string; data: any; meta?: any }>;
  const made = all.filter((b) => b.meta?.wizard === 'fermentation-fridge');
  t.same(
    made.map((b) => b.type).sort(),
    [
      'ActuatorPwm',
      'ActuatorPwm',
      'DigitalActuator',
      'DigitalActuator',
      'Mutex',
      'Pid',
      'Pid',
      'SetpointProfile',
      'SetpointSensorPair',
      'SetpointSensorPair',
    ].sort(),
  );
  const byId = new Map(all.map((b) => [b.id, b]));
  t.equal(byId.get('Ferment Beer Setpoint')?.data.storedSetting.value, 21);
  t.equal(byId.get('Ferment Heat Actuator')?.data.hwDevice.id, RELAYS);
  t.equal(byId.get('Ferment Cool Actuator')?.data.channel, 2);
  t.equal(byId.get('Ferment Heat PID')?.data.inputId.id, 'Ferment Beer Setpoint');
  // Working: the PIDs read the beer sensor and drive their PWMs, which claim the actuators.
  let heatPid: any;
  for (let i = 0; i < 40; i++) {
    heatPid = (await api('blocks/read', { id: 'Ferment Heat PID' })).body;
    if (heatPid.data.active === true && heatPid.data.inputValue.value !== null) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  t.equal(heatPid.data.active, true, 'the heat PID is active');
  const heatAct = (await api('blocks/read', { id: 'Ferment Heat Actuator' })).body;
  t.equal(heatAct.data.claimedBy.id, 'Ferment Heat PWM', 'the heat PWM drives the heater');
});

t.test('a value on screen follows the emulated temperature', async (t) => {
  await page.goto(`${sim.cli.base}/#/overview`);
  const headline = card(BEER).getByTestId('headline');
  await headline.waitFor();
  for (const value of [31.25, 12.5]) {
    const forced = await postJson(`${sim.cli.base}/${SID}/sim/devices/2801b00000000066/temperature`, { value });
    t.equal(forced.status, 200);
    await page.waitForFunction(
      ([sel, text]) => document.querySelector(sel)?.textContent?.includes(text),
      [`section.card[data-block="${BEER}"] [data-testid=headline]`, `${value.toFixed(1)} °C`] as const,
      { timeout: limit(15000) },
    );
    t.match(await headline.innerText(), `${value.toFixed(1)} °C`);
  }
});

t.test('a setpoint edit persists across a reload', async (t) => {
  const input = page.getByTestId('setting-Ferment Beer Setpoint');
  await input.fill('18.5');
  await card('Ferment Beer Setpoint').getByRole('button', { name: 'Set' }).click();
  await card('Ferment Beer Setpoint').getByRole('status').filter({ hasText: 'saved' }).waitFor();
  t.equal(
    (await api('blocks/read', { id: 'Ferment Beer Setpoint' })).body.data.storedSetting.value,
    18.5,
    'the server has it',
  );
  await page.reload();
  await page.getByTestId('setting-Ferment Beer Setpoint').waitFor();
  t.equal(
    await page.getByTestId('setting-Ferment Beer Setpoint').inputValue(),
    '18.5',
    'the page shows it after a reload',
  );

  await input.fill('warm');
  await card('Ferment Beer Setpoint').getByRole('button', { name: 'Set' }).click();
  await card('Ferment Beer Setpoint').getByText('enter a number').waitFor();
  t.equal(
    (await api('blocks/read', { id: 'Ferment Beer Setpoint' })).body.data.storedSetting.value,
    18.5,
    'invalid input was not sent',
  );
});

t.test('a claimed output offers no manual switch; a free one shows what it does after a click', async (t) => {
  t.equal(
    await card('Ferment Cool Actuator').getByRole('button', { name: 'On' }).count(),
    0,
    'the PWM drives the cooler: no On/Off',
  );
  t.match(await card('Ferment Cool Actuator').getByTestId('output-story').innerText(), 'Driven by Ferment Cool PWM');
  const made = await api('blocks/create', {
    id: 'Spare Relay',
    type: 'DigitalActuator',
    data: { hwDevice: { __objtype: 'Link', id: RELAYS }, channel: 4, storedState: 'STATE_INACTIVE' },
  });
  t.equal(made.status, 201);
  await card('Spare Relay').getByRole('button', { name: 'On' }).click();
  await card('Spare Relay').getByRole('status').filter({ hasText: 'asked on' }).waitFor();
  t.equal((await api('blocks/read', { id: 'Spare Relay' })).body.data.storedState, 'STATE_ACTIVE');
  await card('Spare Relay')
    .getByTestId('output-doing')
    .filter({ hasText: /^Output: on$/ })
    .waitFor({ timeout: limit(15000) });
  t.match(await card('Spare Relay').getByTestId('output-story').innerText(), 'Switched by hand: on');
});

t.test('a 422 from the server is shown in words', async (t) => {
  // The link picker offers existing blocks only; the server still refuses one deleted (elsewhere)
  // between the pick and the save, and the page shows its message as sent.
  t.equal((await api('blocks/create', { id: 'Spare Sensor', type: 'TempSensorMock', data: {} })).status, 201);
  await page.goto(`${sim.cli.base}/#/block/${encodeURIComponent('Ferment Beer Setpoint')}`);
  const form = page.getByTestId('block-form');
  await form.locator('select[name=sensorId]').selectOption('Spare Sensor');
  t.equal((await api('blocks/delete', { id: 'Spare Sensor' })).status, 200);
  // The picker keeps the deleted block chosen, marked, so the save below still sends it.
  await form
    .locator('select[name=sensorId] option[value="Spare Sensor"]', { hasText: '(missing)' })
    .waitFor({ state: 'attached' });
  await form.getByRole('button', { name: 'Save changes' }).click();
  const answer = page.getByTestId('editor-answer');
  await answer.filter({ hasText: '422' }).waitFor();
  const direct = await api('blocks/patch', {
    id: 'Ferment Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { sensorId: { __objtype: 'Link', id: 'Spare Sensor' } },
  });
  t.equal(direct.status, 422);
  t.match(await answer.innerText(), direct.body.message, 'the server message, as sent');
  t.match(await answer.innerText(), 'Spare Sensor');
});

t.test('a block deleted elsewhere is reported on its open page', async (t) => {
  await page.goto(`${sim.cli.base}/#/block/${encodeURIComponent('Ferment Profile')}`);
  await page.getByTestId('block-form').waitFor();
  t.equal((await api('blocks/delete', { id: 'Ferment Profile' })).status, 200);
  await page
    .getByTestId('block-gone')
    .filter({ hasText: 'was deleted' })
    .waitFor({ timeout: limit(10000) });
  t.pass('the editor says the block is gone');
});

t.test('graphs draw history, append live and export CSV', async (t) => {
  const field = `${SID}/Ferment Beer Setpoint/setting[degC]`;
  let fields: string[] = [];
  for (let i = 0; i < 60 && !fields.includes(field); i++) {
    const res = await fetch(`${sim.cli.base}/history/timeseries/fields`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"duration": "1h"}',
    });
    if (res.status !== 200) throw new Error(`history fields answered ${res.status}`);
    fields = (await res.json()) as string[];
    if (!fields.includes(field)) await new Promise((r) => setTimeout(r, 500));
  }
  t.ok(fields.includes(field), 'history has the wizard setpoint');
  await page.evaluate(
    (f) => {
      localStorage.setItem('edgeblocks.graph.fields', JSON.stringify(f));
      localStorage.setItem('edgeblocks.graph.range', '1h');
    },
    [field, `${SID}/${BEER}/value[degC]`],
  );
  await page.goto(`${sim.cli.base}/#/graphs`);
  await page.getByTestId('chart').locator('canvas').waitFor();
  await page.waitForFunction('window.__graphPoints > 0');
  const rows = (await page.evaluate('window.__graphRows')) as number;
  t.ok(rows > 0, `the graph has ${rows} rows`);
  await page.waitForFunction(`window.__graphRows > ${rows}`, undefined, { timeout: limit(30000) });
  t.pass('live points were appended');
  const [dl] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const csv = await (await dl.createReadStream())!.toArray();
  const text = Buffer.concat(csv).toString('utf8');
  t.match(text.split('\n')[0], `time,${field}`, 'the CSV has the chosen fields');
  t.ok(text.trim().split('\n').length > 1, 'and data rows');
});

t.test('graphs say "history not available" when the history API is missing', async (t) => {
  await page.route('**/history/timeseries/**', (r) =>
    r.fulfill({ status: 404, json: { statusCode: 404, error: 'Not Found', message: 'no route' } }),
  );
  await page.goto(`${sim.cli.base}/#/graphs`);
  await page.reload();
  await page.getByTestId('no-history').waitFor();
  t.match(await page.getByTestId('no-history').innerText(), 'History not available');
  await page.unroute('**/history/timeseries/**');
});

t.test('the page shows "offline" while the service is down and recovers', async (t) => {
  await page.goto(`${sim.cli.base}/#/overview`);
  await page.getByTestId('online').filter({ hasText: 'online' }).waitFor();
  const port = sim.cli.port;
  await sim.stop();
  await page.getByTestId('offline').waitFor({ timeout: limit(15000) });
  t.match(await page.getByTestId('online').innerText(), 'offline');
  sim = await startSim(['--port', String(port)], 1000, sim.dataDir);
  await page
    .getByTestId('online')
    .filter({ hasText: 'online' })
    .waitFor({ timeout: limit(20000) });
  t.equal(await page.getByTestId('offline').count(), 0, 'the banner is gone');
  await card('Ferment Beer Setpoint').waitFor();
  t.pass('the blocks are back');
});
