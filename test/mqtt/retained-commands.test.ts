// A command left retained on the broker (`mosquitto_pub -r` on a block API topic, a Home
// Assistant entity set to retain its commands) is applied when it is sent, and never again: the
// broker hands it to every new subscription, so before, each restart of the service or reconnect
// to the broker played it again, over whatever was written since (a setpoint back to an old
// value, a block deleted again). Against a real Mosquitto, which keeps retained messages while
// the controller restarts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp, type RunningApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { Recorder, SERVICE_ID, until, untilSubscribed } from './fixtures.js';

t.test('retained commands are applied once, when sent; not again at the next connect', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-retained-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const start = async () => {
    const rt = await startApp({ mqttUrl: broker.url, homeAssistant: 'true' }, { dataDir });
    await untilSubscribed(rt.app, 8000);
    return rt;
  };
  let rt: RunningApp = await start();
  t.teardown(() => rt.close());
  const pub = await Recorder.connect(broker.url);
  t.teardown(() => pub.end());
  const block = (id: string, data: Record<string, unknown>) =>
    JSON.stringify({ serviceId: SERVICE_ID, id, type: 'SetpointSensorPair', data });
  const setting = (id: string) => (rt.app.runtime.read({ id }).json().data as any).storedSetting.value;

  t.equal(
    (await rt.post('blocks/create', { id: 'Beer', type: 'SetpointSensorPair', data: { storedSetting: 20 } })).status,
    201,
  );
  t.equal(
    // Enabled: Home Assistant's commands to a disabled setpoint are refused (disabled-commands.test.ts).
    (
      await rt.post('blocks/create', {
        id: 'Wort',
        type: 'SetpointSensorPair',
        data: { enabled: true, storedSetting: 20 },
      })
    ).status,
    201,
  );
  const wortNid = rt.app.runtime.find('Wort')!.nid;

  // Sent retained, and applied as they are sent.
  await pub.publish('svc/controller/blocks/patch', block('Beer', { storedSetting: 30 }), true);
  await pub.publish(`svc/ha/${SERVICE_ID}/${wortNid}/set/setting`, '30', true);
  await until(() => setting('Beer') === 30 && setting('Wort') === 30, 'the commands applied as sent');

  // Changed since, by REST; then the service restarts and subscribes again.
  for (const id of ['Beer', 'Wort'])
    t.equal(
      (await rt.post('blocks/patch', { id, type: 'SetpointSensorPair', data: { storedSetting: 18 } })).status,
      200,
    );
  await rt.close();
  rt = await start();
  // A live command after the subscriptions: once it is here, the retained ones were too.
  await pub.publish('svc/controller/blocks/create', block('Marker', {}));
  await until(() => rt.app.runtime.find('Marker') !== undefined, 'the live command after the restart');
  t.equal(setting('Beer'), 18, 'the retained block API patch was not played again');
  t.equal(setting('Wort'), 18, 'the retained Home Assistant command was not played again');

  // Clearing a retained command (an empty retained message) is no command and no warning.
  const dropped = (rt.app.mqtt.status() as any).dropped.blockApi;
  await pub.publish('svc/controller/blocks/patch', '', true);
  await pub.publish('svc/controller/blocks/create', block('Marker 2', {}));
  await until(() => rt.app.runtime.find('Marker 2') !== undefined, 'the live command after the clear');
  t.equal((rt.app.mqtt.status() as any).dropped.blockApi, dropped, 'the clear is not counted as a bad message');
});
