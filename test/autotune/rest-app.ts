// A heating PID on a mock sensor's setpoint, made through REST on the running app with a real
// Mosquitto: the rig the REST and MQTT autotune tests drive as clients do.
import type { Test } from 'tap';
import { startApp } from '../helpers/app.js';
import { VARIANTS } from '../mqtt/fixtures.js';

export const link = (id: string) => ({ __objtype: 'Link', id });

export async function heaterPidApp(t: Test) {
  const bus = await VARIANTS.find((v) => v.name === 'mosquitto')!.setup();
  t.teardown(() => bus.close());
  const rt = await startApp({ ...bus.overrides });
  t.teardown(() => rt.close());
  /** A REST call that must succeed (201 for a create), its body. */
  const ok = async (route: string, body: unknown) => {
    const r = await rt.post(route, body);
    t.equal(r.status, route === 'blocks/create' ? 201 : 200, `${route}: ${JSON.stringify(r.body).slice(0, 300)}`);
    return r.body;
  };
  await ok('blocks/create', { id: 'Sensor', type: 'TempSensorMock', data: { setting: 20 } });
  await ok('blocks/create', {
    id: 'Setpoint',
    type: 'SetpointSensorPair',
    data: { sensorId: link('Sensor'), storedSetting: 20, enabled: true, filter: 'FILTER_NONE' },
  });
  await ok('blocks/create', { id: 'Heater', type: 'ActuatorAnalogMock', data: {} });
  await ok('blocks/create', {
    id: 'PID',
    type: 'Pid',
    data: { inputId: link('Setpoint'), outputId: link('Heater'), kp: 20, ti: 3600, td: 0, enabled: true },
  });
  return { bus, rt, post: rt.post, ok };
}
