// Two controllers on one broker whose service ids differ only by punctuation (`ferm.1` and
// `ferm_1`, both valid ids) must not share a Home Assistant node: sharing it, they wrote their
// block entities on the same discovery topics (the last writer's config won and the other
// controller's entity vanished) and one device in Home Assistant.
// tags: slow (a real Mosquitto, two services)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { Recorder, sleep } from '../mqtt/fixtures.js';
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

t.test('after an upgrade each cleared old config is followed by its config on the new node', async (t) => {
  // Home Assistant ignores a config whose unique_id another topic holds, and the empty config on
  // that topic removes the entity: the new config has to come again after the old one is cleared.
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ha-legacy-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const options = { mqttUrl: broker.url, serviceId: 'ferm.1', homeAssistant: 'true', emitInterval: '200' };
  const newNode = 'edgeblocks-ferm_d1';
  const oldNode = 'edgeblocks_ferm_1';

  // The controller's configs as this version writes them: a block's entities and the alert binary_sensors.
  const first = await startApp(options, { dataDir });
  // A block of two entities (a sensor and a number).
  const created = await first.post('blocks/create', { id: 'Beer', type: 'SetpointSensorPair', data: {} });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const seen = await Recorder.connect(broker.url);
  await seen.subscribe(`homeassistant/+/${newNode}/+/config`);
  const nid = created.body.nid;
  await seen.waitFor((m) => m.topic.includes(`/${nid}_`) && m.payload.length > 0, 'a block config');
  await seen.waitFor((m) => m.topic.includes('/alert_') && m.payload.length > 0, 'an alert config');
  await sleep(300);
  const configs = new Map(seen.messages.filter((m) => m.payload.length).map((m) => [m.topic, m.payload.toString()]));
  await seen.end();
  await first.close();

  // What the version before left: the same configs under the shared node.
  const bus = await Recorder.connect(broker.url);
  t.teardown(() => bus.end());
  for (const [topic, payload] of configs)
    await bus.publish(topic.replace(`/${newNode}/`, `/${oldNode}/`), payload, true);
  await bus.subscribe('homeassistant/#');
  await bus.waitFor(() => bus.messages.length >= configs.size * 2, 'the retained configs');
  const from = bus.messages.length;

  const second = await startApp(options, { dataDir });
  t.teardown(() => second.close());
  t.ok(
    [...configs.keys()].some((k) => k.includes('/alert_')),
    'the alert binary_sensors are among them',
  );
  for (const [topic, payload] of configs) {
    const old = topic.replace(`/${newNode}/`, `/${oldNode}/`);
    const uid = JSON.parse(payload).unique_id as string;
    const cleared = await bus.waitFor((m) => m.topic === old && m.payload.length === 0, `${old} cleared`, 5000, from);
    const after = bus.messages.indexOf(cleared) + 1;
    const again = await bus
      .waitFor((m) => m.topic === topic && m.payload.length > 0, `${topic} after the clear`, 2000, after)
      .catch(() => undefined);
    t.ok(again, `${old} cleared, then ${uid} published again on ${topic}`);
    if (again) t.equal(again.json().unique_id, uid);
  }
});
