// Brewblox parity on the bus: with `--topic-root brewcast`, a plain MQTT client (no edgeblocks
// code) finds the service by its retained Spark.state, reads blocks with __bloxtype markers, and
// writes blocks on brewcast/spark/blocks/* as Brewblox services do (routed by serviceId).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import mqtt from 'mqtt';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { ROOT, SERVICE_ID } from './fixtures.js';

/** The `type` the MQTT page's topic table (docs/mqtt.md) gives for the messages on one topic row. */
function readmeType(topicCell: string): string | undefined {
  const readme = readFileSync(path.join(ROOT, 'docs/mqtt.md'), 'utf8');
  const row = readme.split('\n').find((l) => l.startsWith(`| \`${topicCell}\` |`));
  return row && /type: "([^"]+)"/.exec(row)?.[1];
}

interface Msg {
  topic: string;
  json: any;
  retain: boolean;
}

t.test('a plain MQTT client on a real Mosquitto', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const rt = await startApp({ mqttUrl: broker.url, topicRoot: 'brewcast', emitInterval: '200' });
  t.teardown(() => rt.close());
  t.equal(
    (await rt.post('blocks/create', { id: 'Fridge Sensor', type: 'TempSensorMock', data: { setting: 20 } })).status,
    201,
  );

  const client = await mqtt.connectAsync(broker.url, { protocolVersion: 4 });
  t.teardown(() => client.endAsync());
  const messages: Msg[] = [];
  client.on('message', (topic, payload, packet) =>
    messages.push({ topic, json: JSON.parse(payload.toString()), retain: packet.retain }),
  );
  await client.subscribeAsync(['brewcast/state/#']);
  const waitFor = async (pred: (m: Msg) => boolean, what: string) => {
    for (let i = 0; i < 100; i++) {
      const m = messages.find(pred);
      if (m) return m;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  };

  // The retained state may predate the create by one emit interval: wait for one that has the sensor.
  const hasSensor = (m: Msg) =>
    Array.isArray(m.json.data?.blocks) && m.json.data.blocks.some((b: any) => b.id === 'Fridge Sensor');
  const state = await waitFor(
    (m) => m.topic === `brewcast/state/${SERVICE_ID}` && m.json.type === 'Spark.state' && hasSensor(m),
    'a Spark.state with the sensor',
  );
  t.equal(state.json.key, SERVICE_ID);
  t.same(
    Object.keys(state.json.data).sort(),
    ['blockSet', 'blocks', 'claims', 'relations', 'status'],
    "the SparkStateEvent data shape (the UI takes the fields it knows; blockSet is edgeblocks' own)",
  );
  const sensor = state.json.data.blocks.find((b: any) => b.id === 'Fridge Sensor');
  t.match(sensor.data.value, { __bloxtype: 'Quantity', unit: 'degC' }, 'quantities carry __bloxtype');
  t.match(sensor.data.setting, { __bloxtype: 'Quantity', __objtype: 'Quantity', value: 20 });

  const publish = (action: string, body: unknown) =>
    client.publishAsync(`brewcast/spark/blocks/${action}`, JSON.stringify(body));
  await publish('create', { id: 'Other', serviceId: 'someone-else', type: 'TempSensorMock', data: {} });
  await publish('create', {
    id: 'Bus Sensor',
    serviceId: SERVICE_ID,
    type: 'TempSensorMock',
    data: { setting: { __bloxtype: 'Quantity', value: 18, unit: 'degC' } },
  });
  const created = await waitFor(
    (m) => m.json.type === 'Spark.patch' && m.json.data.changed.some((b: any) => b.id === 'Bus Sensor'),
    'the patch of the create',
  );
  t.equal(created.retain, false);
  await publish('patch', { id: 'Bus Sensor', serviceId: SERVICE_ID, type: 'TempSensorMock', data: { setting: 19 } });
  await waitFor(
    (m) =>
      m.json.type === 'Spark.patch' &&
      m.json.data.changed.some((b: any) => b.id === 'Bus Sensor' && b.data.setting.value === 19),
    'the patch of the patch',
  );
  await publish('write', { id: 'Bus Sensor', serviceId: SERVICE_ID, type: 'TempSensorMock', data: { setting: 17 } });
  await waitFor(
    (m) =>
      m.json.type === 'Spark.patch' &&
      m.json.data.changed.some((b: any) => b.id === 'Bus Sensor' && b.data.setting.value === 17),
    'the patch of the write',
  );
  await publish('delete', { id: 'Bus Sensor', serviceId: SERVICE_ID });
  await waitFor(
    (m) => m.json.type === 'Spark.patch' && m.json.data.deleted.includes('Bus Sensor'),
    'the patch of the delete',
  );
  t.equal((await rt.post('blocks/read', { id: 'Other' })).status, 404, 'a block for another service is ignored');

  // The MQTT page's table names the types the messages really carry.
  t.equal(readmeType('svc/state/{service_id}'), state.json.type, 'docs/mqtt.md: the state message type');
  t.equal(readmeType('svc/state/{service_id}/patch'), created.json.type, 'docs/mqtt.md: the patch message type');
});
