// What goes wrong, as the dashboard shows it, in a real browser (Debian's Chromium) against the
// built CLI on emulated hardware with the demo blocks: the hardware page's buses, devices and
// error counters (a counter moves when a fault is injected), a disconnected sensor, an output
// held back by a constraint and for how long, who claims an output (and that it then offers no
// On/Off); and, with an external
// Mosquitto, the broker going away does not stop the page (it reads the service's event
// stream) and is reported until it is back. Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { requireWebBuild, simInBrowser } from './browser.js';

const SID = 'edge-one';
const BEER = 'Beer Sensor';
const AIR = 'Fridge Sensor';
const BEER_BUS = 'ds2482-sim-0x18-ch0';

requireWebBuild();

t.setTimeout(limit(300_000));

let mosquitto: Mosquitto;

t.before(async () => {
  mosquitto = await startMosquitto();
});
// Teardowns run last first: the broker stops after the service.
t.teardown(() => mosquitto?.stop());
const rig = simInBrowser(t, { extra: () => ['--mqtt-url', mosquitto.url] });

const api = rig.api;
const simApi = (p: string, body?: unknown) => postJson(`${rig.sim.cli.base}/${SID}/sim/${p}`, body);
const card = (id: string) => rig.page.locator(`section.card[data-block="${id}"]`);
const problems = (id: string) => card(id).locator('ul.problems');

async function busCounters(): Promise<Record<string, number>> {
  const res = await fetch(`${rig.sim.cli.base}/${SID}/system/status`);
  const bus = ((await res.json()) as any).hardware.onewire.buses.find((b: { name: string }) => b.name === BEER_BUS);
  return bus;
}

t.test('the hardware page shows buses, devices and a counter that moves on a fault', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/hardware`);
  const row = rig.page.getByTestId('buses').locator(`tr[data-bus="${BEER_BUS}"]`);
  await row.waitFor();
  t.match(await row.innerText(), BEER, 'the beer sensor is listed on its bus by block name');
  t.match(await row.innerText(), '28-00000000b001', 'with its address as the kernel names it');
  t.match(await rig.page.getByTestId('buses').innerText(), 'DS2408 00000000d001', 'the relay board is on another bus');
  t.match(await rig.page.getByTestId('gpio').innerText(), 'door', 'the GPIO lines are listed');
  const chip = rig.page.getByTestId('i2c').locator('tr[data-chip="sim-0x20"]');
  await chip.waitFor();
  t.match(
    await chip.innerText(),
    /MCP23017\s+sim\s+0x20\s+found, no block/,
    'the I2C relay board is listed with bus and address',
  );
  const cell = row.locator('[data-counter=crcErrors]');
  t.equal(await cell.count(), 0, 'no CRC errors yet');
  t.match(await row.innerText(), 'No errors');

  t.equal((await simApi('devices/beer/fault', { fault: 'crc', count: 'always' })).status, 200);
  await cell.waitFor({ timeout: limit(20_000) });
  const shown = Number(await cell.locator('.count').innerText());
  t.ok(shown > 0, `the page shows ${shown} CRC errors`);
  t.ok((await busCounters()).crcErrors >= shown, 'the service counted at least as many');
  t.equal(await cell.getAttribute('class'), 'bad', 'the counter is marked');
  t.match(await cell.innerText(), /CRC errors: \d+ — readings arrived damaged.*twisted pair/, 'with what to do');
  t.not(await row.getByTestId('last-error').innerText(), '—', 'the last error is shown');
  t.equal((await simApi('faults/clear')).status, 200);
});

t.test('a disconnected sensor shows as disconnected and recovers', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  await card(AIR).getByTestId('headline').filter({ hasText: '°C' }).waitFor();
  t.equal((await simApi('devices/air/unplug')).status, 200);
  await problems(AIR)
    .filter({ hasText: 'sensor disconnected' })
    .waitFor({ timeout: limit(20_000) });
  t.equal(await card(AIR).getByTestId('headline').innerText(), '— °C', 'no number is shown for it');
  await problems(AIR)
    .filter({ hasText: 'value is null' })
    .waitFor({ timeout: limit(20_000) });
  t.match(await card(AIR).getAttribute('class'), /\berror\b/, 'the card is marked');
  t.equal((await simApi('devices/air/plug')).status, 200);
  await problems(AIR).waitFor({ state: 'detached', timeout: limit(20_000) });
  t.pass('the problem clears when the sensor is back');
});

t.test('an output held back by a constraint says which and for how long; a claimed output says by whom', async (t) => {
  const made = await api('blocks/create', {
    id: 'Fan',
    type: 'DigitalActuator',
    data: {
      hwDevice: { __objtype: 'Link', id: 'DS2408 00000000d001' },
      channel: 3,
      storedState: 'STATE_INACTIVE',
      constraints: { delayedOn: { duration: 600, enabled: true } },
    },
  });
  if (made.status !== 201) throw new Error(`Fan not created: ${JSON.stringify(made.body)}`);
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  await card('Fan').getByRole('button', { name: 'On' }).click();
  await card('Fan').getByRole('status').filter({ hasText: 'asked on' }).waitFor();
  // After the click the card says what the output actually does, and why.
  const story = card('Fan').getByTestId('output-story');
  await story.filter({ hasText: 'delay before switching on' }).waitFor({ timeout: limit(20_000) });
  const said = await story.innerText();
  t.match(
    said,
    /Waiting (9 min( \d+ s)?|10 min) for the delay before switching on/,
    `the constraint and the time left: ${said}`,
  );
  t.match(said, 'Output: off, wants on');
  const server = (await api('blocks/read', { id: 'Fan' })).body.data.constraints.delayedOn;
  t.equal(server.limiting, true, 'the server says it limits');

  // A claimed output says who drives it and offers no On/Off as if it were free.
  await card('Heater').waitFor();
  t.match(
    await card('Heater').getByTestId('output-story').innerText(),
    'Driven by Heat PWM',
    'the heater says who drives it',
  );
  t.equal(await card('Heater').getByRole('button', { name: 'On' }).count(), 0, 'no manual On for a claimed output');
  t.match(await card('Heater').getByTestId('manual-note').innerText(), 'disable Heat PWM first');
  t.match(await card('Heat PWM').getByTestId('output-story').innerText(), 'Driven by Heat PID');
  t.match(
    await card('Heat PID').getByTestId('headline').innerText(),
    /°C → .*°C · out \d+ %/,
    'the PID headlines input, setting and output',
  );
});

t.test('the broker going away does not break the page, and is reported until it is back', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  await rig.page.getByTestId('online').filter({ hasText: 'online' }).waitFor();
  await mosquitto.kill();
  await rig.page.getByTestId('broker-down').waitFor({ timeout: limit(20_000) });
  t.match(await rig.page.getByTestId('broker-down').innerText(), 'This page stays live');
  t.equal(await rig.page.getByTestId('online').innerText(), 'online', 'the page is still online');

  // Live values still arrive and edits still go through.
  const forced = await simApi('devices/beer/temperature', { value: 27.75 });
  t.equal(forced.status, 200);
  await card(BEER)
    .getByTestId('headline')
    .filter({ hasText: '27.8 °C' })
    .waitFor({ timeout: limit(20_000) });
  await card('Beer Setpoint').getByTestId('setting-Beer Setpoint').fill('17.5');
  await card('Beer Setpoint').getByRole('button', { name: 'Set' }).click();
  await card('Beer Setpoint').getByRole('status').filter({ hasText: 'saved' }).waitFor();
  t.equal(
    (await api('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting.value,
    17.5,
    'a setpoint edit works without the broker',
  );

  await mosquitto.restart();
  await rig.page.getByTestId('broker-down').waitFor({ state: 'detached', timeout: limit(60_000) });
  t.pass('the banner goes once the service is back on the broker');
  t.equal(await rig.page.getByTestId('offline').count(), 0, 'the page is not offline');
});
