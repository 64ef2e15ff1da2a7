// Home Assistant and a disabled setpoint or PWM, on a real Mosquitto. Home Assistant has no
// switch to enable a block, and a disabled block uses no setting: its number shows unknown.
// Before, a setting sent from Home Assistant was stored and nothing happened (the number stayed
// unknown, no line in the log), and it came back unannounced weeks later when the block was
// enabled on the dashboard. A command to a disabled block is now refused by the same path as one
// to a driven block, with the reason in the log; enabled, the block takes it.
import t from 'tap';
import { startApp, type RunningApp } from '../helpers/app.js';
import { logLines } from '../helpers/log-lines.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { Recorder, until } from '../mqtt/fixtures.js';

const NODE = 'edgeblocks_edge-one';
const link = (id: string) => ({ __objtype: 'Link', id });
const degC = (value: number) => ({ __objtype: 'Quantity', unit: 'degC', value });

t.test('a command from Home Assistant to a disabled setpoint or PWM is refused, and says why', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const captured = logLines('warn');
  const rt: RunningApp = await startApp(
    { mqttUrl: broker.url, homeAssistant: 'true', emitInterval: '200' },
    { log: captured.log },
  );
  t.teardown(() => rt.close());
  const ok = async (route: string, body: unknown) => {
    const res = await rt.post(route, body);
    if (res.status >= 300) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const data = (id: string) => rt.app.runtime.read({ id }).json().data as Record<string, any>;

  await ok('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: degC(14) } });
  const beer = await ok('blocks/create', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: false, sensorId: link('Beer Sensor'), storedSetting: degC(20) },
  });
  const spare = await ok('blocks/create', {
    id: 'Spare Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, sensorId: link('Beer Sensor'), storedSetting: degC(10) },
  });
  await ok('blocks/create', { id: 'Pins', type: 'MockPins', data: {} });
  await ok('blocks/create', {
    id: 'Heater',
    type: 'DigitalActuator',
    data: { hwDevice: link('Pins'), channel: 1, storedState: 'STATE_INACTIVE' },
  });
  const pwm = await ok('blocks/create', {
    id: 'Heat PWM',
    type: 'ActuatorPwm',
    data: {
      enabled: false,
      storedSetting: 30,
      actuatorId: link('Heater'),
      period: { __objtype: 'Quantity', unit: 's', value: 10 },
    },
  });

  const w = await Recorder.connect(broker.url);
  t.teardown(() => w.end());
  await w.subscribe('homeassistant/#', 'svc/ha/#');
  const latest = (topic: string) => {
    const m = w.on(topic).at(-1);
    return m && m.payload.length ? m.json() : undefined;
  };
  const numberTopic = (nid: number) => `homeassistant/number/${NODE}/${nid}_setting/config`;
  let marker = 10;
  /** Sends `payload` to the entity, then a new setting to the spare setpoint, and waits for that. */
  const command = async (nid: number, payload: string) => {
    await until(() => latest(numberTopic(nid)) && latest(numberTopic(spare.nid)), 'the numbers to be announced');
    w.client.publish(latest(numberTopic(nid)).command_topic, payload);
    marker += 0.5;
    w.client.publish(latest(numberTopic(spare.nid)).command_topic, String(marker));
    await until(() => data('Spare Setpoint').storedSetting.value === marker, 'the command after it to be read');
  };

  await command(beer.nid, '18');
  t.equal(data('Beer Setpoint').storedSetting.value, 20, 'the setting from Home Assistant is not stored');
  await command(pwm.nid, '70');
  t.equal(data('Heat PWM').storedSetting, 30, 'nor the PWM setting');
  const said = (nid: number) => captured.lines.find((l) => String(l.msg).includes(`${nid}/set/setting`))?.msg;
  t.match(
    said(beer.nid),
    /refused: Beer Setpoint is disabled: a setting from Home Assistant would not be used; enable it first/,
    'the log says why',
  );
  t.match(said(pwm.nid), /refused: Heat PWM is disabled/);

  // Enabled (on the dashboard), a setting from Home Assistant is taken.
  await ok('blocks/patch', { id: 'Beer Setpoint', type: 'SetpointSensorPair', data: { enabled: true } });
  await command(beer.nid, '18');
  await until(() => data('Beer Setpoint').setting.value === 18, 'the setting from Home Assistant to be used');
});
