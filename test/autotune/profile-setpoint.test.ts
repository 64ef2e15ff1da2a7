// A tuning and a Setpoint Profile on the PID's setpoint, the way clients meet them: REST block
// writes and an MQTT controller message (real Mosquitto) on the running app. A tuning needs a
// steady setting, and a profile moves it: START is refused naming the profile (as when a PID's
// output is driven by another block), and a profile enabled under a running tuning stops it at
// once, naming it, the gains as they were.
import t from 'tap';
import { heaterPidApp, link } from './rest-app.js';
import { controllerTopic, Recorder, SERVICE_ID, sleep, until } from '../mqtt/fixtures.js';

const q = (unit: string, value: number) => ({ __objtype: 'Quantity', unit, value });

t.test('a profile on the setpoint: START refused naming it; enabled under a tuning, it stops it', async (t) => {
  const { bus, rt, post, ok } = await heaterPidApp(t);
  const read = async (id: string) => (await ok('blocks/read', { id })).data;
  const now = () => Math.floor(Date.now() / 1000);
  // Flat at 20 degC for now; the profile holds the setting the tuning would start at.
  const points = [
    { time: q('s', 0), temperature: q('degC', 20) },
    { time: q('s', 86_400), temperature: q('degC', 20) },
    { time: q('s', 90_000), temperature: q('degC', 10) },
  ];
  await ok('blocks/create', {
    id: 'Beer Profile',
    type: 'SetpointProfile',
    data: { targetId: link('Setpoint'), start: now(), enabled: true, points },
  });
  for (let i = 0; i < 50 && (await read('Setpoint')).claimedBy.id !== 'Beer Profile'; i++) await sleep(100);
  t.equal((await read('Setpoint')).claimedBy.id, 'Beer Profile', 'the profile drives the setpoint');

  const startBody = { id: 'PID', type: 'Pid', data: { tuning: { command: 'START' } } };
  const FOLLOWS =
    'its setpoint Setpoint follows the Setpoint Profile Beer Profile, and a tuning needs a steady setting: disable the profile to tune';
  const refused = async (message: string) => {
    const r = await post('blocks/patch', startBody);
    t.equal(r.status, 422, JSON.stringify(r.body));
    t.same(r.body.validation, [{ path: 'data.tuning.command', message }]);
    t.equal((await read('PID')).tuning.state, 'IDLE', 'no tuning');
  };
  await refused(`cannot start: ${FOLLOWS}`);

  // Disabled, the profile lets go; the setpoint has no setting of its own until one is written.
  await ok('blocks/patch', { id: 'Beer Profile', type: 'SetpointProfile', data: { enabled: false } });
  await refused(
    'cannot start: its setpoint Setpoint has no setting: write one (a setpoint a profile or a driver let go of keeps none of its own)',
  );
  await ok('blocks/patch', { id: 'Setpoint', type: 'SetpointSensorPair', data: { storedSetting: 20 } });
  // A profile enabled to begin tomorrow does not drive the setpoint yet; it will, under the tuning.
  await ok('blocks/patch', {
    id: 'Beer Profile',
    type: 'SetpointProfile',
    data: { enabled: true, start: now() + 86_400 },
  });
  await refused(`cannot start: ${FOLLOWS}`);

  // Without points, an enabled profile never moves the setting (it never takes the setpoint).
  await ok('blocks/patch', { id: 'Beer Profile', type: 'SetpointProfile', data: { points: [] } });
  const free = await ok('blocks/patch', startBody);
  t.equal(free.data.tuning.state, 'RUNNING', `a profile without points: ${free.data.tuning.message}`);
  await ok('blocks/patch', { id: 'PID', type: 'Pid', data: { tuning: { command: 'STOP' } } });
  t.not((await read('PID')).tuning.state, 'RUNNING', 'stopped');

  await ok('blocks/patch', { id: 'Beer Profile', type: 'SetpointProfile', data: { enabled: false, points } });
  const started = await ok('blocks/patch', startBody);
  t.equal(started.data.tuning.state, 'RUNNING', started.data.tuning.message);

  // Over MQTT, the profile is enabled under the running tuning: it stops at once, named.
  const client = await Recorder.connect(bus.brokerUrl(rt.app));
  t.teardown(() => client.end());
  await until(() => rt.app.mqtt.connected, 'the runtime to connect');
  await client.publish(
    controllerTopic('patch'),
    JSON.stringify({
      id: 'Beer Profile',
      serviceId: SERVICE_ID,
      type: 'SetpointProfile',
      data: { enabled: true, start: now() },
    }),
  );
  for (let i = 0; i < 50 && (await read('PID')).tuning.state === 'RUNNING'; i++) await sleep(100);
  const after = await read('PID');
  t.equal(after.tuning.state, 'ABORTED');
  t.equal(after.tuning.message, `stopped: ${FOLLOWS}`);
  t.same([after.kp.value, after.ti.value, after.td.value], [20, 3600, 0], 'the gains as they were');
});
