// The entity ids edgeblocks suggests (`default_entity_id`) are distinct: the entities of one
// block of one component (an EnvSensorI2c's temperature, humidity and pressure sensors) and
// blocks whose names differ only by punctuation (`ferm.1`, `ferm_1`) once suggested one id, and
// Home Assistant then numbered them `_2`, `_3` in the order their configs arrived, so which one
// was the humidity depended on the day. The block with the lower nid keeps the plain id.
import mqtt from 'mqtt';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';

t.test('default entity ids never repeat', async (t) => {
  const rt = await startApp({ homeAssistant: 'true', emitInterval: '200' });
  t.teardown(() => rt.close());
  const retained = new Map<string, any>();
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort!}`, { reconnectPeriod: 0 });
  t.teardown(() => client.end(true));
  // Only what is sent now, in the order it is sent. The copies the broker kept (retain flag set)
  // answer our subscription, and aedes sends them after the SUBACK, on a loaded machine seconds
  // later: a copy of an entity's config from before a delete or a rename then arrived after the
  // new one and put the old id back in this map (the test then waited for an id it had seen).
  // Every config this test reads is sent after the subscription, so none is missed.
  client.on('message', (topic, payload, packet) => {
    if (packet.retain) return;
    if (payload.length === 0) retained.delete(topic);
    else retained.set(topic, JSON.parse(payload.toString()));
  });
  await client.subscribeAsync('homeassistant/+/edgeblocks_edge-one/+/config');
  const create = async (id: string, type: string, data: Record<string, unknown>) => {
    const res = await rt.post('blocks/create', { id, type, data });
    t.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.nid as number;
  };
  const room = await create('Room', 'EnvSensorI2c', { chip: 'BME280', bus: '1', address: 0x76 });
  const under = await create('ferm_1', 'TempSensorMock', {});
  const dotted = await create('ferm.1', 'TempSensorMock', {});
  const spaced = await create('Ferm 1', 'TempSensorMock', {});
  const roomHumidity = await create('Room humidity', 'TempSensorMock', {});
  const entity = (nid: number, key: string) =>
    [...retained.entries()].find(([k]) => k.split('/')[3] === `${nid}_${key}`)?.[1]?.default_entity_id;
  const all = () =>
    [...retained.entries()].filter(([k]) => /\/\d+_[a-z]+\/config$/.test(k)).map(([, c]) => c.default_entity_id);
  await until(() => entity(roomHumidity, 'value') !== undefined && entity(room, 'pressure') !== undefined, 'configs');
  await until(() => new Set(all()).size === all().length, 'distinct entity ids').catch(() => undefined);
  t.same(
    all().filter((id, i, ids) => ids.indexOf(id) !== i),
    [],
    `no default entity id is suggested twice: ${all().join(' ')}`,
  );
  t.equal(entity(room, 'value'), 'sensor.edge_one_room', 'the temperature keeps the plain id');
  t.equal(entity(room, 'humidity'), 'sensor.edge_one_room_humidity', 'the humidity is named by its label');
  t.equal(entity(room, 'pressure'), 'sensor.edge_one_room_pressure');
  t.equal(entity(under, 'value'), 'sensor.edge_one_ferm_1', 'the lower nid keeps the plain id');
  t.equal(entity(dotted, 'value'), `sensor.edge_one_ferm_1_${dotted}`, 'a later one gets its nid');
  t.equal(entity(spaced, 'value'), `sensor.edge_one_ferm_1_${spaced}`);
  t.equal(entity(roomHumidity, 'value'), `sensor.edge_one_room_humidity_${roomHumidity}`);

  // The lower nid leaves: the next one takes the plain id, and its config says so again.
  t.equal((await rt.post('blocks/delete', { id: 'ferm_1' })).status, 200);
  await until(() => entity(dotted, 'value') === 'sensor.edge_one_ferm_1', 'ferm.1 announced with the plain id');
  t.equal(entity(spaced, 'value'), `sensor.edge_one_ferm_1_${spaced}`);
  // A rename into a taken id: the renamed block (higher nid) gets its nid.
  t.equal((await rt.post('blocks/rename', { existing: 'Room humidity', desired: 'ferm 1' })).status, 200);
  await until(() => entity(roomHumidity, 'value') === `sensor.edge_one_ferm_1_${roomHumidity}`, 'renamed');
  t.equal(entity(dotted, 'value'), 'sensor.edge_one_ferm_1');
});

t.test('long names: suggested ids fit Home Assistant 255 characters and stay distinct', async (t) => {
  // Home Assistant cuts an entity id at 255 characters: ids that differ only past that would meet.
  const serviceId = `s${'x'.repeat(62)}`;
  const rt = await startApp({ serviceId, homeAssistant: 'true', emitInterval: '200' });
  t.teardown(() => rt.close());
  const configs = new Map<string, any>();
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort!}`, { reconnectPeriod: 0 });
  t.teardown(() => client.end(true));
  client.on('message', (topic, payload, packet) => {
    // Sent now only (see above): the blocks are made after the subscription.
    if (packet.retain) return;
    if (payload.length) configs.set(topic, JSON.parse(payload.toString()));
  });
  await client.subscribeAsync('homeassistant/sensor/+/+/config');
  const names = ['a', 'b'].map((last) => `${'Fermenter '.repeat(19)}${last}`.slice(-200));
  for (const id of names) {
    const res = await rt.post('blocks/create', { id, type: 'TempSensorMock', data: {} });
    t.equal(res.status, 201, JSON.stringify(res.body));
  }
  const ids = () => [...configs.values()].filter((c) => names.includes(c.name)).map((c) => c.default_entity_id);
  await until(() => ids().length === 2, 'both configs');
  t.same(
    ids().filter((id) => id.length > 255),
    [],
    'no suggested id is longer than 255',
  );
  t.equal(new Set(ids().map((id) => id.slice(0, 255))).size, 2, `distinct: ${ids().join(' ')}`);
});
