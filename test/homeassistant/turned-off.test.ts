// Turning Home Assistant off (`homeAssistant: false`) left its discovery configs retained on the
// broker, so Home Assistant kept showing the device with every entity unavailable, for good (found
// again at each of its restarts). The data dir remembers the ids it published under
// (former-ids.ts): a start with Home Assistant off removes that device, once its availability
// says it is not online (a clean stop, or the broker's last will after kill -9), and forgets the id.
// tags: slow (a real Mosquitto, kill -9 of the built CLI, services restarted)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { logLines } from '../helpers/log-lines.js';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { retainedTopics } from '../helpers/retained-topics.js';
import { until } from '../helpers/until.js';
import { assertBuilt, Recorder, spawnCli } from '../mqtt/fixtures.js';

t.before(() => assertBuilt());

const tempDir = (t: Test) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ha-off-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

/** The retained (non-empty) topics a new subscriber to `filters` reads (retained-topics.ts). */
const retained = (url: string, ...filters: string[]) => retainedTopics(url, filters);

/** What Home Assistant reads of controller `id`: its configs, block states and alert states (and its availability). */
const deviceOf = (id: string) => [`homeassistant/+/edgeblocks_${id}/#`, `svc/ha/${id}/#`, `svc/alerts/${id}/ha`];

/** What is left retained of that device, less its availability (`offline`, which started the clear). */
async function leftOf(url: string, id: string): Promise<string[]> {
  return (await retained(url, ...deviceOf(id))).filter((topic) => !topic.endsWith('/availability'));
}

t.test('a start with Home Assistant off removes the device it had, and forgets it', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const options = { mqttUrl: broker.url, serviceId: 'ferm', emitInterval: '200' };
  const dataDir = tempDir(t);
  const on = await startApp({ ...options, homeAssistant: 'true' }, { dataDir });
  const res = await on.post('blocks/create', { id: 'Beer', type: 'TempSensorMock', data: { setting: 20 } });
  t.equal(res.status, 201);
  const config = `homeassistant/sensor/edgeblocks_ferm/${res.body.nid}_value/config`;
  await until(async () => (await retained(broker.url, config)).length === 1, 'the entity announced');
  await on.close();
  t.ok((await leftOf(broker.url, 'ferm')).length > 3, 'configs and states retained');

  const cleared = logLines();
  const off = await startApp({ ...options, homeAssistant: 'false' }, { dataDir, log: cleared.log });
  await until(
    async () => (await leftOf(broker.url, 'ferm')).length === 0,
    'the device removed: block and alert configs and states',
  );
  await until(
    () => cleared.lines.some((l) => /removed the entities of the former service id ferm /.test(l.msg)),
    'ferm forgotten, once the broker acknowledged every clear',
  );
  await off.close();

  // Forgotten: a later start with it off does nothing more.
  const { log, lines } = logLines();
  const again = await startApp({ ...options, homeAssistant: 'false' }, { dataDir, log });
  await until(() => (again.app.mqtt.status() as { subscribed: boolean }).subscribed, 'the controller subscribed');
  await again.close();
  t.same(
    lines.filter((l) => /former service id/.test(l.msg)).map((l) => l.msg),
    [],
    'nothing left to remove',
  );

  // Turned on again, the device comes back whole.
  const back = await startApp({ ...options, homeAssistant: 'true' }, { dataDir });
  t.teardown(() => back.close());
  await until(async () => (await retained(broker.url, config)).length === 1, 'the entity announced again');
});

t.test('kill -9 with Home Assistant on, started with it off: the device goes', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const dataDir = tempDir(t);
  const args = ['--mqtt-url', broker.url, '--data-dir', dataDir, '--service-id', 'ferm', '--emit-interval', '200'];
  const on = await spawnCli([...args, '--home-assistant', 'true'], t);
  t.teardown(() => on.child.kill('SIGKILL'));
  // The alert binary_sensors are announced at start; no block is needed for a device.
  await until(
    async () => (await retained(broker.url, 'homeassistant/binary_sensor/edgeblocks_ferm/+/config')).length > 0,
    'the alert binary_sensors announced',
  );
  on.child.kill('SIGKILL');
  await on.exited;
  await until(
    async () => (await retained(broker.url, 'svc/ha/ferm/availability')).length === 1,
    'the last will (offline) retained',
  );

  const off = await spawnCli([...args, '--home-assistant', 'false'], t);
  t.teardown(() => off.child.kill('SIGKILL'));
  await until(async () => (await leftOf(broker.url, 'ferm')).length === 0, 'the device removed');
});

t.test('a controller that never had Home Assistant on writes nothing for it', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const bus = await Recorder.connect(broker.url);
  t.teardown(() => bus.end());
  await bus.subscribe('homeassistant/#', 'svc/ha/#');
  const app = await startApp({ mqttUrl: broker.url, serviceId: 'ferm', emitInterval: '200' });
  t.teardown(() => app.close());
  await until(() => (app.app.mqtt.status() as { subscribed: boolean }).subscribed, 'the controller subscribed');
  const row = app.app.db.prepare("SELECT count(*) AS n FROM settings WHERE key = 'homeassistant_ids'").get() as {
    n: number;
  };
  t.equal(row.n, 0, 'no ids remembered');
  t.same(bus.messages, [], 'nothing published for Home Assistant');
});
