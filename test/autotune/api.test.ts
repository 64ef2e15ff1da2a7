// The autotune driven the way clients drive it: REST block patches and MQTT controller
// messages (real Mosquitto), with the refusals answered as 422 naming the field.
import t from 'tap';
import { heaterPidApp } from './rest-app.js';
import { controllerTopic, Recorder, SERVICE_ID, until } from '../mqtt/fixtures.js';

t.test('REST and MQTT start, stop and refuse a tuning', async (t) => {
  const { bus, rt, post, ok } = await heaterPidApp(t);

  // Refusals: 422 naming data.tuning.command, nothing changed.
  const refused = async (body: unknown, message: RegExp, path = 'data.tuning.command') => {
    const r = await post('blocks/patch', body);
    t.equal(r.status, 422, `refused: ${JSON.stringify(body)}`);
    t.match(JSON.stringify(r.body), message);
    t.match(JSON.stringify(r.body), path);
  };
  await refused(
    { id: 'PID', type: 'Pid', data: { tuning: { command: 'APPLY' } } },
    /nothing to apply: the tuning is IDLE/,
  );
  await refused({ id: 'PID', type: 'Pid', data: { tuning: { command: 'LAUNCH' } } }, /LAUNCH/);
  await refused({ id: 'PID', type: 'Pid', data: { tuning: { amplitude: 50 } } }, /amplitude/, 'data.tuning.amplitude');
  await refused(
    { id: 'PID', type: 'Pid', data: { kp: 0, tuning: { command: 'START' } } },
    /kp of PID is 0: give it the sign/,
  );
  t.equal((await ok('blocks/read', { id: 'PID' })).data.tuning.state, 'IDLE');

  // REST: START with settings, read back.
  const started = await ok('blocks/patch', {
    id: 'PID',
    type: 'Pid',
    data: {
      tuning: { command: 'START', amplitude: { __objtype: 'Quantity', unit: 'delta_degC', value: 1 }, cycles: 3 },
    },
  });
  t.equal(started.data.tuning.state, 'RUNNING');
  t.equal(started.data.tuning.command, 'NONE', 'the command reads back as NONE');
  t.equal(started.data.tuning.amplitude.value, 1);
  t.equal(started.data.tuning.cycles, 3);
  t.ok(started.data.tuning.levels.up > 0, 'the relay drives the output up first (at the setting)');
  // The read-only parts cannot be written by a client.
  const written = await ok('blocks/patch', { id: 'PID', type: 'Pid', data: { tuning: { state: 'APPLIED' } } });
  t.equal(written.data.tuning.state, 'RUNNING', 'tuning.state is not writable');

  // MQTT: STOP through the controller topic.
  const client = await Recorder.connect(bus.brokerUrl(rt.app));
  t.teardown(() => client.end());
  await until(() => rt.app.mqtt.connected, 'the runtime to connect');
  await client.publish(
    controllerTopic('patch'),
    JSON.stringify({ id: 'PID', serviceId: SERVICE_ID, type: 'Pid', data: { tuning: { command: 'STOP' } } }),
  );
  let state = '';
  for (let i = 0; i < 50 && state !== 'ABORTED'; i++) {
    state = (await ok('blocks/read', { id: 'PID' })).data.tuning.state;
    if (state !== 'ABORTED') await new Promise((r) => setTimeout(r, 100));
  }
  const after = await ok('blocks/read', { id: 'PID' });
  t.equal(after.data.tuning.state, 'ABORTED', 'stopped over MQTT');
  t.equal(after.data.tuning.message, 'stopped by the user');
  t.equal(after.data.kp.value, 20, 'gains unchanged');
  t.end();
});
