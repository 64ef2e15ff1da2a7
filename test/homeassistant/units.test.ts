// Home Assistant after a unit switch (issue 24.2), on a real Mosquitto: switching the units
// document announces every config again in the new unit (unit, min and max converted; the step
// stays the typing granularity, 0.1 in either unit), the
// states follow, and a command is read in the unit the entity's config announces: 50 is 50 degF
// after the switch to degF, and 20 is 20 degC after the switch back (not 20 degF, -6.7 degC).
import mqtt from 'mqtt';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { Recorder, until } from '../mqtt/fixtures.js';

const NODE = 'edgeblocks_edge-one';

t.test('a unit switch re-announces the configs and commands follow the announced unit', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const rt = await startApp({ mqttUrl: broker.url, homeAssistant: 'true', emitInterval: '200' });
  t.teardown(() => rt.close());
  const ok = async (route: string, body: unknown) => {
    const res = await rt.post(route, body);
    if (res.status >= 300) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  await ok('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 19.5 } });
  const sp = await ok('blocks/create', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, storedSetting: 20, 'sensorId<>': 'Beer Sensor' },
  });
  const setUnits = async (temperature: string) => {
    const res = await fetch(rt.base.replace(/\/edge-one$/, '/history/datastore/set'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ value: { namespace: 'edge-one', id: 'units', temperature } }),
    });
    t.equal(res.status, 200, `units set to ${temperature}`);
  };
  /** The stored setting in degC, whatever the display unit. */
  const storedC = async () => {
    const q = (await ok('blocks/read', { id: 'Beer Setpoint' })).data.storedSetting;
    return Math.round((q.unit === 'degF' ? ((q.value - 32) * 5) / 9 : q.value) * 1000) / 1000;
  };

  const numberTopic = `homeassistant/number/${NODE}/${sp.nid}_setting/config`;
  const sensorTopic = `homeassistant/sensor/${NODE}/${sp.nid}_value/config`;
  const stateTopic = `svc/ha/edge-one/${sp.nid}`;
  const w = await Recorder.connect(broker.url);
  t.teardown(() => w.end());
  await w.subscribe('homeassistant/#', 'svc/ha/#');
  const latest = (topic: string) => {
    const m = w.on(topic).at(-1);
    return m && m.payload.length ? m.json() : undefined;
  };

  await until(() => latest(numberTopic)?.unit_of_measurement === '°C', 'the number config in degC');
  t.match(latest(numberTopic), { min: -40, max: 150, step: 0.1 });

  // To degF: every config again, converted; the state follows.
  let from = w.messages.length;
  await setUnits('degF');
  const numberF = (
    await w.waitFor(
      (m) => m.topic === numberTopic && m.json().unit_of_measurement === '°F',
      'the number config in degF',
      3000,
      from,
    )
  ).json();
  t.match(
    numberF,
    { min: -40, max: 302, step: 0.1 },
    'range converted; the step is how finely a value is typed, 0.1 in either unit',
  );
  t.equal(
    (await w.waitFor((m) => m.topic === sensorTopic, 'the sensor config again', 3000, from)).json().unit_of_measurement,
    '°F',
  );
  await until(() => latest(stateTopic)?.setting === 68, 'the state in degF');
  // Nothing announced in degC after the switch.
  t.notOk(
    w.messages
      .slice(from)
      .some((m) => m.topic.startsWith('homeassistant/') && m.payload.length && m.json().unit_of_measurement === '°C'),
    'no config goes out in the old unit',
  );

  // A command right after the switch is read in degF, as the config says.
  w.client.publish(numberF.command_topic, '50');
  await until(() => latest(stateTopic)?.setting === 50, 'the command echoed in degF');
  t.equal(await storedC(), 10, '50 degF is stored as 10 degC');
  // The range is the announced one: 350 degF is outside -40..302 (and 350 degC outside -40..150 too).
  w.client.publish(numberF.command_topic, '350');
  await new Promise((r) => setTimeout(r, 300));
  t.equal(await storedC(), 10, '350 degF is refused');

  // Back to degC: configs again, and 20 means 20 degC.
  from = w.messages.length;
  await setUnits('degC');
  const numberC = (
    await w.waitFor(
      (m) => m.topic === numberTopic && m.json().unit_of_measurement === '°C',
      'the number config in degC again',
      3000,
      from,
    )
  ).json();
  t.match(numberC, { min: -40, max: 150, step: 0.1 });
  w.client.publish(numberC.command_topic, '20');
  await until(() => latest(stateTopic)?.setting === 20, 'the command echoed in degC');
  t.equal(await storedC(), 20, '20 is 20 degC, not 20 degF');

  // A late subscriber (Home Assistant restarting) finds the retained configs in the current unit.
  const late = await mqtt.connectAsync(broker.url, { protocolVersion: 4 });
  t.teardown(() => late.endAsync(true));
  const retained: Record<string, any> = {};
  late.on('message', (topic, payload) => payload.length && (retained[topic] = JSON.parse(payload.toString())));
  await late.subscribeAsync('homeassistant/#');
  await until(() => retained[numberTopic] !== undefined && retained[sensorTopic] !== undefined, 'retained configs');
  t.equal(retained[numberTopic].unit_of_measurement, '°C');
  t.equal(retained[sensorTopic].unit_of_measurement, '°C');
});
