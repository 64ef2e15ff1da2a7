// The Brewblox UI's service page reads the service status from the Spark.state message (issue 24.8):
// a reader that follows the UI's own code paths finds the service id, the device id and the
// connection status, online and offline (clean stop, and the last will after kill -9), on a real
// Mosquitto. There is no Brewblox UI test harness here, so the reader is built from the UI files
// it copies the logic of (BrewBlox/brewblox-ui, src/):
// - plugins/spark/store/spark-store.ts `addService`: the listener on `<state topic>/<service id>`
//   keeps `evt.data.status` when `isSparkState(evt)` (utils/info.ts: `type === 'Spark.state'`),
//   or null when `evt.data` is null;
// - plugins/spark/store/utils.ts `asServiceStatus`/`statusDesc`: the service list's description
//   from `connection_status`, `firmware_error`, `identity_error`, `connection_kind`;
// - plugins/spark/store/spark-store.ts `fetchAll`: the page loads blocks only when
//   `connection_status === 'SYNCHRONIZED'`;
// - plugins/spark/components/SparkTroubleshooter.vue: `connectionStep` is `connection_status`
//   (or UNREACHABLE without a status), and it reads `status.enabled`;
// - the service page's device id: `status.service.device.device_id` (brewblox-proto
//   SparkStatusDescription), read without guards as the UI does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { assertBuilt, Recorder, SERVICE_ID, spawnCli, topic, type Received } from './fixtures.js';
import { uiRead } from './ui-reader.js';
import { at } from '../helpers/json.js';

const view = (m: Received) => uiRead(SERVICE_ID, m.json());

t.before(() => assertBuilt());

t.test('the UI reads the state message: online, then offline after a clean stop', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const rt = await startApp({ mqttUrl: broker.url, emitInterval: '200' });
  t.teardown(() => rt.close());
  await rt.post('blocks/create', { id: 'Fridge Sensor', type: 'TempSensorMock', data: { setting: 20 } });
  const deviceId = at(await fetch(`${rt.base}/system/status`).then((r) => r.json()), 'service', 'device', 'device_id');
  t.match(deviceId, /^[0-9a-z]+$/, 'system/status has the device id');

  const sub = await Recorder.connect(broker.url);
  t.teardown(() => sub.end());
  await sub.subscribe(topic('state'));
  const online = view(await sub.waitFor((m) => (view(m)?.blocks ?? 0) > 0, 'a state with blocks'))!;
  t.same(online, {
    desc: 'Synchronized',
    color: 'green',
    page: 'blocks',
    step: 'SYNCHRONIZED',
    serviceName: SERVICE_ID,
    deviceId,
    enabled: true,
    blocks: online.blocks,
  });
  const raw = sub.messages.at(-1)!.json().data.status;
  t.match(raw, { online: true, serviceId: SERVICE_ID, version: String }, "edgeblocks' own fields are kept");

  const from = sub.messages.length;
  await rt.close();
  const offline = view(await sub.waitFor((m) => view(m)?.step === 'DISCONNECTED', 'the offline state', 3000, from))!;
  t.same(offline, {
    desc: 'Waiting for connection',
    color: 'red',
    page: 'troubleshooter',
    step: 'DISCONNECTED',
    serviceName: SERVICE_ID,
    deviceId,
    enabled: true,
    blocks: 0,
  });
});

t.test('the UI reads the last will after kill -9', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ui-will-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const sub = await Recorder.connect(broker.url);
  t.teardown(() => sub.end());
  await sub.subscribe(topic('state'));
  const cli = await spawnCli(
    ['--mqtt-url', broker.url, '--data-dir', dataDir, '--emit-interval', '200', '--service-id', SERVICE_ID],
    t,
  );
  t.teardown(() => cli.child.kill('SIGKILL'));
  const online = view(await sub.waitFor((m) => view(m)?.step === 'SYNCHRONIZED', 'the online state'))!;
  t.equal(online.serviceName, SERVICE_ID);
  t.ok(online.deviceId, 'a device id online');

  const from = sub.messages.length;
  cli.child.kill('SIGKILL');
  await cli.exited;
  const will = view(await sub.waitFor((m) => view(m)?.step === 'DISCONNECTED', 'the last will', 5000, from))!;
  t.same(will, {
    desc: 'Waiting for connection',
    color: 'red',
    page: 'troubleshooter',
    step: 'DISCONNECTED',
    serviceName: SERVICE_ID,
    deviceId: online.deviceId,
    enabled: true,
    blocks: 0,
  });
});
