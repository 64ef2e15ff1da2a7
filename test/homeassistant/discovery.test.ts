// Home Assistant MQTT discovery against the embedded broker, read by a plain MQTT client: the
// retained config topics, availability, device info and stable unique ids, a command round trip
// through the runtime (a setpoint and a switch whose constraint holds it off), bad commands, and
// deleted blocks (also ones left from before a restart) removing their entities.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import t from 'tap';
import { startApp, type RunningApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';

const NODE = 'edgeblocks_edge-one';
const secs = (value: number) => ({ __objtype: 'Quantity', unit: 'second', value });

class Watcher {
  readonly retained = new Map<string, string>();
  readonly seen: Array<{ topic: string; payload: string; retain: boolean }> = [];
  private constructor(readonly client: mqtt.MqttClient) {
    client.on('message', (topic, payload, packet) => {
      this.seen.push({ topic, payload: payload.toString(), retain: packet.retain });
      if (payload.length === 0) this.retained.delete(topic);
      else this.retained.set(topic, payload.toString());
    });
  }
  static async connect(port: number, filters: string[]): Promise<Watcher> {
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0 });
    const w = new Watcher(client);
    await client.subscribeAsync(filters);
    return w;
  }
  json(topic: string): any {
    const p = this.retained.get(topic);
    return p === undefined ? undefined : JSON.parse(p);
  }
  configs(): string[] {
    return [...this.retained.keys()].filter((k) => k.startsWith('homeassistant/')).sort();
  }
}

async function seed(rt: RunningApp) {
  const ok = async (route: string, body: unknown) => {
    const res = await rt.post(route, body);
    if (res.status >= 300) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const sensor = await ok('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 19.5 } });
  const sp = await ok('blocks/create', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, storedSetting: 18, 'sensorId<>': 'Beer Sensor' },
  });
  await ok('blocks/create', { id: 'pins', type: 'MockPins', data: {} });
  const heater = await ok('blocks/create', {
    id: 'Heater',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': 'pins', channel: 1, storedState: 'STATE_INACTIVE' },
  });
  const pump = await ok('blocks/create', {
    id: 'Pump',
    type: 'DigitalActuator',
    data: {
      'hwDevice<>': 'pins',
      channel: 2,
      storedState: 'STATE_INACTIVE',
      constraints: { delayedOn: { duration: secs(3600), enabled: true } },
    },
  });
  await ok('blocks/create', { id: 'Fan', type: 'DigitalActuator', data: { 'hwDevice<>': 'pins', channel: 3 } });
  const pwm = await ok('blocks/create', {
    id: 'Fan PWM',
    type: 'ActuatorPwm',
    data: { 'actuatorId<>': 'Fan', storedSetting: 40 },
  });
  return { sensor, sp, heater, pump, pwm };
}

t.test('discovery configs, availability, commands and removal', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ha-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  let rt = await startApp({ homeAssistant: 'true', emitInterval: '200' }, { dataDir });
  t.teardown(() => rt.close());
  const b = await seed(rt);
  const w = await Watcher.connect(rt.app.mqtt.brokerPort!, ['homeassistant/#', 'svc/ha/#']);
  t.teardown(() => w.client.end(true));
  const cfg = (component: string, nid: number, key: string) =>
    `homeassistant/${component}/${NODE}/${nid}_${key}/config`;
  const expected = [
    cfg('sensor', b.sensor.nid, 'value'),
    cfg('sensor', b.sp.nid, 'value'),
    cfg('number', b.sp.nid, 'setting'),
    cfg('switch', b.heater.nid, 'state'),
    cfg('switch', b.pump.nid, 'state'),
    cfg('sensor', b.pwm.nid, 'value'),
    cfg('number', b.pwm.nid, 'setting'),
  ];
  await until(() => expected.every((k) => w.retained.has(k)), 'every config topic retained');
  const alertConfig = /^homeassistant\/binary_sensor\/[^/]+\/alert_[a-z_]+\/config$/;
  t.ok(
    w.configs().some((k) => alertConfig.test(k)),
    'the alert binary_sensors (src/alerts) are published too',
  );
  t.ok(
    w
      .configs()
      .filter((k) => !alertConfig.test(k))
      .every((k) => expected.includes(k) || /\/\d+_state\/config$/.test(k)),
    'only blocks with entities (the Fan switch too)',
  );

  const sensorCfg = w.json(cfg('sensor', b.sensor.nid, 'value'));
  t.match(sensorCfg, {
    name: 'Beer Sensor',
    unique_id: `edgeblocks_edge-one_${b.sensor.nid}_value`,
    state_topic: `svc/ha/edge-one/${b.sensor.nid}`,
    device_class: 'temperature',
    unit_of_measurement: '°C',
    state_class: 'measurement',
    device: { identifiers: [NODE], name: 'edgeblocks edge-one', manufacturer: 'edgeblocks' },
    availability: [{ topic: 'svc/ha/edge-one/availability' }],
    default_entity_id: 'sensor.edge_one_beer_sensor',
  });
  t.notOk('object_id' in sensorCfg, 'no object_id (deprecated in Home Assistant 2025.10)');
  t.notOk(
    w.configs().some((k) => JSON.stringify(w.json(k).availability).includes('svc/state/')),
    'no entity reads the state message for availability',
  );
  await until(() => w.retained.get('svc/ha/edge-one/availability') === 'online', 'the availability topic says online');
  const number = w.json(cfg('number', b.sp.nid, 'setting'));
  t.match(number, {
    name: 'Beer Setpoint setting',
    default_entity_id: 'number.edge_one_beer_setpoint',
    command_topic: `svc/ha/edge-one/${b.sp.nid}/set/setting`,
    min: -40,
    max: 150,
    unit_of_measurement: '°C',
  });
  const sw = w.json(cfg('switch', b.heater.nid, 'state'));
  t.match(sw, { command_topic: `svc/ha/edge-one/${b.heater.nid}/set/state`, payload_on: 'true', payload_off: 'false' });
  t.same(new Set(w.configs().map((k) => w.json(k).unique_id)).size, w.configs().length, 'unique ids are unique');
  await until(() => w.json(`svc/ha/edge-one/${b.sensor.nid}`)?.value === 19.5, 'sensor state');

  // A setpoint command round trip, through the runtime like a REST patch.
  w.client.publish(number.command_topic, '21.5');
  await until(() => w.json(`svc/ha/edge-one/${b.sp.nid}`)?.setting === 21.5, 'setting state follows the command');
  t.equal(
    (await rt.post('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting.value,
    21.5,
    'the block was written',
  );
  // A switch: on and off; the delayedOn constraint keeps the pump off although it is asked on.
  w.client.publish(sw.command_topic, 'true');
  await until(() => w.json(`svc/ha/edge-one/${b.heater.nid}`)?.state === true, 'heater on');
  t.equal((await rt.post('blocks/read', { id: 'Heater' })).body.data.storedState, 'STATE_ACTIVE');
  w.client.publish(sw.command_topic, 'false');
  await until(() => w.json(`svc/ha/edge-one/${b.heater.nid}`)?.state === false, 'heater off');
  w.client.publish(`svc/ha/edge-one/${b.pump.nid}/set/state`, 'true');
  await until(
    async () => (await rt.post('blocks/read', { id: 'Pump' })).body.data.desiredState === 'STATE_ACTIVE',
    'pump asked on',
  );
  await new Promise((r) => setTimeout(r, 600));
  t.equal(
    (await rt.post('blocks/read', { id: 'Pump' })).body.data.state,
    'STATE_INACTIVE',
    'the constraint holds it off',
  );
  t.equal(w.json(`svc/ha/edge-one/${b.pump.nid}`).state, false, 'and Home Assistant sees it off');

  // Bad commands change nothing.
  for (const [topic, payload] of [
    [number.command_topic, '"warm"'],
    [number.command_topic, 'ON'],
    [sw.command_topic, '42'],
    [`svc/ha/edge-one/${b.sensor.nid}/set/value`, '20'],
    ['svc/ha/edge-one/9999/set/setting', '20'],
    [`svc/ha/edge-one/${b.pwm.nid}/set/setting`, '150'],
  ] as const)
    w.client.publish(topic, payload);
  await new Promise((r) => setTimeout(r, 500));
  t.equal((await rt.post('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting.value, 21.5);
  t.equal((await rt.post('blocks/read', { id: 'Heater' })).body.data.storedState, 'STATE_INACTIVE');
  t.equal(
    (await rt.post('blocks/read', { id: 'Fan PWM' })).body.data.storedSetting,
    40,
    'a setting outside the entity range is refused',
  );
  t.equal(rt.app.runtime.blocks().length > 0, true, 'the service is still running');

  // Delete a block: its entities go (empty retained configs).
  await rt.post('blocks/delete', { id: 'Beer Setpoint' });
  await until(
    () => !w.retained.has(cfg('number', b.sp.nid, 'setting')) && !w.retained.has(cfg('sensor', b.sp.nid, 'value')),
    'setpoint entities removed',
  );
  t.ok(
    w.seen.some((m) => m.topic === cfg('number', b.sp.nid, 'setting') && m.payload === ''),
    'an empty config message',
  );
  const late = await Watcher.connect(rt.app.mqtt.brokerPort!, ['homeassistant/#']);
  await new Promise((r) => setTimeout(r, 300));
  t.notOk(
    late.retained.has(cfg('number', b.sp.nid, 'setting')),
    'a new subscriber sees no config for the deleted block',
  );
  late.client.end(true);

  // A config left by a block deleted while the service was down is swept. (Left by the service
  // itself: no other client may publish under its node, src/mqtt/acl.ts.)
  const stale = cfg('sensor', 4242, 'value');
  rt.app.mqtt.publish(stale, JSON.stringify({ ...sensorCfg, unique_id: 'edgeblocks_edge-one_4242_value' }), {
    retain: true,
  });
  await until(() => w.seen.some((m) => m.topic === stale && m.payload === ''), 'stale config cleared');

  // Restart on the same data dir: same unique ids.
  const before = w.configs().map((k) => [k, w.json(k).unique_id]);
  await rt.close();
  rt = await startApp({ homeAssistant: 'true', emitInterval: '200' }, { dataDir });
  const again = await Watcher.connect(rt.app.mqtt.brokerPort!, ['homeassistant/#']);
  t.teardown(() => again.client.end(true));
  await until(() => again.configs().length === before.length, 'configs republished after a restart');
  t.same(
    again.configs().map((k) => [k, again.json(k).unique_id]),
    before,
    'same topics and unique ids',
  );
});

t.test('off by default: no discovery topics', async (t) => {
  const rt = await startApp({ emitInterval: '200' });
  t.teardown(() => rt.close());
  await rt.post('blocks/create', { id: 'S', type: 'TempSensorMock', data: {} });
  const w = await Watcher.connect(rt.app.mqtt.brokerPort!, ['homeassistant/#', 'svc/ha/#']);
  t.teardown(() => w.client.end(true));
  await new Promise((r) => setTimeout(r, 600));
  t.same(w.seen, []);
});
