// Two controllers on one broker whose service ids differ only by punctuation (`ferm.1` and
// `ferm_1`, both valid ids) must not share a Home Assistant node: sharing it, they wrote their
// block entities on the same discovery topics (the last writer's config won and the other
// controller's entity vanished) and one device in Home Assistant.
// tags: slow (a real Mosquitto, two services)
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { Recorder } from '../mqtt/fixtures.js';
import { nodeId } from '../../src/shared/service-id.js';

t.test('node ids are distinct for ids that differ only by punctuation', async (t) => {
  const ids = ['ferm.1', 'ferm_1', 'ferm~1', 'ferm-1', 'a_d', 'a.', 'a__', 'a_.', 'A_d'];
  const nodes = ids.map(nodeId);
  t.equal(new Set(nodes).size, ids.length, `distinct: ${nodes.join(' ')}`);
  for (const n of nodes) t.match(n, /^[A-Za-z0-9_-]+$/, `${n} is a node id Home Assistant takes`);
  t.equal(nodeId('edge-one'), 'edgeblocks_edge-one', 'an id of letters, digits, _ and - keeps its node');
  t.equal(nodeId('ferm_1'), 'edgeblocks_ferm_1');
});

t.test('ferm.1 and ferm_1 on one Mosquitto keep their own entities', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const nids: number[] = [];
  for (const serviceId of ['ferm.1', 'ferm_1']) {
    const rt = await startApp({ mqttUrl: broker.url, serviceId, homeAssistant: 'true', emitInterval: '200' });
    t.teardown(() => rt.close());
    const res = await rt.post('blocks/create', { id: 'Beer', type: 'TempSensorMock', data: { setting: 20 } });
    t.equal(res.status, 201, JSON.stringify(res.body));
    nids.push(res.body.nid);
  }
  t.equal(nids[0], nids[1], 'both blocks have the same nid (the case that collided)');
  const want = ['ferm.1', 'ferm_1'].map((id) => `edgeblocks_${id}_${nids[0]}_value`);
  // A subscriber that comes later (Home Assistant after a restart) reads the retained configs.
  const has = async () => {
    const late = await Recorder.connect(broker.url);
    try {
      await late.subscribe('homeassistant/sensor/#');
      await late.waitFor(
        () => {
          const retained = new Map(late.messages.filter((m) => m.retain).map((m) => [m.topic, m.payload.toString()]));
          const uids = [...retained.values()].filter((p) => p).map((p) => JSON.parse(p).unique_id);
          return want.every((u) => uids.includes(u));
        },
        'both controllers` configs retained',
        5000,
      );
      return true;
    } catch {
      return false;
    } finally {
      late.end();
    }
  };
  t.ok(await has(), `each controller's entity config is retained (${want.join(', ')})`);
});

t.test('configs ferm.1 left under the node it had before are cleared, and only its own', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const bus = await Recorder.connect(broker.url);
  t.teardown(() => bus.end());
  const mine = 'homeassistant/sensor/edgeblocks_ferm_1/4242_value/config';
  const theirs = 'homeassistant/sensor/edgeblocks_ferm_1/4243_value/config';
  await bus.subscribe('homeassistant/+/edgeblocks_ferm_1/#');
  await bus.publish(mine, JSON.stringify({ name: 'Old', unique_id: 'edgeblocks_ferm.1_4242_value' }), true);
  await bus.publish(theirs, JSON.stringify({ name: 'Other', unique_id: 'edgeblocks_ferm_1_4243_value' }), true);
  const rt = await startApp({ mqttUrl: broker.url, serviceId: 'ferm.1', homeAssistant: 'true', emitInterval: '200' });
  t.teardown(() => rt.close());
  await bus.waitFor((m) => m.topic === mine && m.payload.length === 0, 'the old config of ferm.1 cleared');
  // One more after it: its clear comes after anything the controller did with the first two.
  const later = 'homeassistant/number/edgeblocks_ferm_1/4242_setting/config';
  await bus.publish(later, JSON.stringify({ name: 'Old', unique_id: 'edgeblocks_ferm.1_4242_setting' }), true);
  await bus.waitFor((m) => m.topic === later && m.payload.length === 0, 'the later old config cleared');
  t.same(
    bus.on(theirs).map((m) => m.payload.toString()),
    [JSON.stringify({ name: 'Other', unique_id: 'edgeblocks_ferm_1_4243_value' })],
    "ferm_1's config is left alone",
  );
});
