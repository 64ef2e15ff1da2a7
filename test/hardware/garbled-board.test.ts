// A relay board that is on its bus (it answers the search and the reset) but whose every reply
// arrives garbled (a noisy bus, a long cable, a failing chip) is not "missing from its bus": the
// alert and the hardware status say its replies fail their checks. A board that then goes (it is
// unplugged) is missing; the two are one alert, its wording following what the board does. The
// built CLI on the emulated DS2482 and DS2408, real drivers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startCli } from '../helpers/cli.js';
import { until } from '../helpers/until.js';
import { oneWireSim } from './relay-boards.js';

const SIM = oneWireSim([
  { name: 'relays', type: 'DS2408', address: '29-0000000000d1' },
  { name: 'beer', type: 'DS18B20', address: '28-0000000000b1', sense: 'beer' },
]);
const BOARD = 'DS2408 0000000000d1';
const GARBLED =
  /^DS2408 0000000000d1 \(.*\) answers but its replies fail their checks \(CRC\): a noisy bus, a long cable or a failing chip$/;
const MISSING = /^DS2408 0000000000d1 \(.*\) is missing from its bus$/;

interface Alert {
  key: string;
  kind: string;
  blockId: string;
  text: string;
  count: number;
}

t.test('a board that answers with garbled replies is told apart from one that is gone, in one alert', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-garbled-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const simConfig = path.join(dir, 'sim.json');
  writeFileSync(simConfig, JSON.stringify(SIM));
  const cli = await startCli(
    ['--hardware', 'sim', '--sim-config', simConfig, '--data-dir', path.join(dir, 'data'), '--mqtt-port', '0'],
    {},
    t,
  );
  t.teardown(() => void cli.child.kill('SIGKILL'));
  const api = `${cli.base}/edge-one`;
  const call = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${api}/${route}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  t.equal((await call('PUT', 'alerts/rules', { hardware: { after: 0 }, sensorNull: { after: 0 } })).status, 200);
  t.equal((await call('POST', 'blocks/discover')).status, 200);
  const created = await call('POST', 'blocks/create', {
    id: 'Heater',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': BOARD, channel: 1, storedState: 'STATE_ACTIVE' },
  });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const board = async () => (await call('POST', 'blocks/read', { id: BOARD })).body.data;
  await until(async () => (await board()).connected === true, 'the board to read');

  const active = async () =>
    ((await call('GET', 'alerts')).body.active as Alert[]).filter((a) => a.kind === 'device-missing');
  let seen: Alert[] = [];
  const alertMatching = (re: RegExp) => async () => {
    seen = await active();
    return seen.length === 1 && re.test(seen[0]!.text);
  };

  t.equal((await call('POST', 'sim/devices/relays/fault', { fault: 'crc', count: 'always' })).status, 200);
  await until(alertMatching(GARBLED), 'the garbled-replies alert', 15_000).catch((e) => {
    t.fail(`${e.message}; alerts: ${JSON.stringify(seen)}`);
  });
  t.match(seen, [{ blockId: BOARD, text: GARBLED }], 'the alert says the board answers, garbled');
  const first = seen[0];
  const status = (await call('GET', 'system/status')).body.hardware.onewire;
  t.equal(status.missing.length, 1, 'the status counts it among the devices not read');
  t.same(status.garbled, status.missing, `the status names it garbled (${JSON.stringify(status)})`);

  t.equal((await call('POST', 'sim/devices/relays/unplug')).status, 200);
  await until(alertMatching(MISSING), 'the missing alert', 60_000).catch((e) => {
    t.fail(`${e.message}; alerts: ${JSON.stringify(seen)}`);
  });
  t.equal(seen[0]?.key, first?.key, 'gone, it is the same alert');
  // (Its times are not compared: shown on the wall clock, they move by a millisecond between reads.)
  t.equal(seen[0]?.count, 1, 'not resolved and raised again, nor counted as a flap');
  const gone = (await call('GET', 'system/status')).body.hardware.onewire;
  t.same(gone.garbled, [], 'unplugged, it is not garbled but missing');
  t.equal(gone.missing.length, 1);

  t.equal((await call('POST', 'sim/devices/relays/plug')).status, 200);
  await until(alertMatching(GARBLED), 'the garbled-replies alert again', 60_000).catch((e) => {
    t.fail(`${e.message}; alerts: ${JSON.stringify(seen)}`);
  });
  t.equal(seen[0]?.key, first?.key, 'back and still garbled: still the one alert');
  t.equal(seen[0]?.count, 1, 'never cleared between the wordings');
  const history = (await call('GET', 'alerts')).body.history as Array<{ key: string; event: string }>;
  t.same(
    history.filter((h) => h.key === first?.key && (h.event === 'fired' || h.event === 'resolved')).map((h) => h.event),
    ['fired'],
    'it fired once and never resolved',
  );

  // A temperature sensor whose replies are garbled is told apart in the status too.
  t.equal((await call('POST', 'sim/devices/beer/fault', { fault: 'crc', count: 'always' })).status, 200);
  let onewire: { missing: string[]; garbled: string[] } = { missing: [], garbled: [] };
  await until(async () => {
    onewire = (await call('GET', 'system/status')).body.hardware.onewire;
    return onewire.garbled.length === 2;
  }, 'the sensor among the garbled').catch((e) => t.fail(`${e.message}; ${JSON.stringify(onewire)}`));
  t.same(onewire.garbled.slice().sort(), onewire.missing.slice().sort(), 'the board and the sensor, both garbled');
  // Its sensor-null alert says why it reads nothing: its replies fail their CRC, not that it is gone.
  let nulls: Alert[] = [];
  await until(async () => {
    nulls = ((await call('GET', 'alerts')).body.active as Alert[]).filter((a) => a.kind === 'sensor-null');
    return nulls.length === 1 && /CRC/.test(nulls[0]!.text);
  }, 'the sensor-null alert naming the CRC').catch((e) => t.fail(`${e.message}; ${JSON.stringify(nulls)}`));
  t.match(nulls, [
    {
      key: /^sensor-null:\d+$/,
      text: /^Sensor 00b1 reads no value for more than 0 s: it \(device [0-9a-f]{16}\) answers but its replies fail their checks \(CRC\): a noisy bus, a long cable or a failing chip$/,
    },
  ]);
});
