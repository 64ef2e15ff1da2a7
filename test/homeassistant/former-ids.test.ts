// A controller given a new service id (or topic root) is a new Home Assistant device: its unique
// ids and node are made of the id. The configs of the old id stayed retained on the broker, so
// Home Assistant kept a second device `edgeblocks <old id>` with every entity unavailable, for
// good (found again at each Home Assistant restart). The data dir remembers the ids it published
// under; configs of a former id are cleared once that id's availability says it is not online,
// and never those of a controller that runs with that id (a copy of the data dir).
// tags: slow (a real Mosquitto, services restarted under other ids)
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { formerIds, MAX_FORMER_IDS } from '../../src/homeassistant/former-ids.js';
import { logLines } from '../helpers/log-lines.js';
import { startApp, type RunningApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { retainedTopics } from '../helpers/retained-topics.js';
import { Recorder } from '../mqtt/fixtures.js';
import { until } from '../helpers/until.js';

const tempDir = (t: Test) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ha-former-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

/** The retained (non-empty) topics a new subscriber to `filters` reads (retained-topics.ts). */
const retained = (url: string, ...filters: string[]) => retainedTopics(url, filters);

/** A real Mosquitto for the test, and the options of a controller with Home Assistant on it. */
async function haBroker(t: Test) {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  return { broker, options: { mqttUrl: broker.url, homeAssistant: 'true', emitInterval: '200' } };
}

async function sensorOf(rt: RunningApp, id: string): Promise<number> {
  const res = await rt.post('blocks/create', { id, type: 'TempSensorMock', data: { setting: 20 } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.nid;
}

/** A sensor made on `rt` (serviceId `id`), once its Home Assistant config is retained: the config's topic. */
async function announced(rt: RunningApp, url: string, block: string, id: string): Promise<string> {
  const config = `homeassistant/sensor/edgeblocks_${id}/${await sensorOf(rt, block)}_value/config`;
  await until(async () => (await retained(url, config)).length === 1, `the config of ${block} retained`);
  return config;
}

t.test('a new service id clears the configs and states of the old one', async (t) => {
  const { broker, options } = await haBroker(t);
  const dataDir = tempDir(t);
  const first = await startApp({ ...options, serviceId: 'ferm-old' }, { dataDir });
  const nid = await sensorOf(first, 'Beer');
  const oldConfig = `homeassistant/sensor/edgeblocks_ferm-old/${nid}_value/config`;
  const oldState = `svc/ha/ferm-old/${nid}`;
  await until(
    async () => (await retained(broker.url, oldConfig, oldState)).length === 2,
    'the old config and state retained',
  );
  await first.close();

  const bus = await Recorder.connect(broker.url);
  t.teardown(() => bus.end());
  await bus.subscribe('homeassistant/+/edgeblocks_ferm-old/+/config', oldState);
  const second = await startApp({ ...options, serviceId: 'ferm-new' }, { dataDir });
  t.teardown(() => second.close());
  await bus.waitFor((m) => m.topic === oldConfig && m.payload.length === 0, 'the old config cleared');
  await bus.waitFor((m) => m.topic === oldState && m.payload.length === 0, 'the old state cleared');
  await bus.waitFor(
    (m) => m.topic.includes('/alert_') && m.payload.length === 0,
    'the old alert binary_sensors cleared',
  );
  t.same(await retained(broker.url, 'homeassistant/+/edgeblocks_ferm-old/#'), [], 'nothing of ferm-old is left');
  t.ok(
    (await retained(broker.url, `homeassistant/sensor/edgeblocks_ferm-new/${nid}_value/config`)).length,
    'the entity is announced under the new id',
  );
});

t.test('a former id is forgotten once cleared: a controller given that id later keeps its device', async (t) => {
  const { broker, options } = await haBroker(t);
  const dataDir = tempDir(t);
  const first = await startApp({ ...options, serviceId: 'ferm' }, { dataDir });
  const config = await announced(first, broker.url, 'Beer', 'ferm');
  await first.close();
  const cleared = logLines();
  const renamed = await startApp({ ...options, serviceId: 'cellar' }, { dataDir, log: cleared.log });
  await until(async () => (await retained(broker.url, config)).length === 0, 'the device of ferm removed');
  // Forgotten once the broker acknowledged every clear.
  await until(
    () => cleared.lines.some((l) => /removed the entities of the former service id ferm /.test(l.msg)),
    'ferm forgotten',
  );
  await renamed.close();

  // Another controller is given the id ferm, and is off when cellar starts again.
  const other = await startApp({ ...options, serviceId: 'ferm' }, { dataDir: tempDir(t) });
  const otherConfig = await announced(other, broker.url, 'Wort', 'ferm');
  await other.close();

  const bus = await Recorder.connect(broker.url);
  t.teardown(() => bus.end());
  await bus.subscribe('homeassistant/+/edgeblocks_ferm/+/config', 'homeassistant/+/edgeblocks_cellar/+/config');
  const { log, lines } = logLines();
  const again = await startApp({ ...options, serviceId: 'cellar' }, { dataDir, log });
  t.teardown(() => again.close());
  await bus.waitFor((m) => m.topic.includes('edgeblocks_cellar') && !m.retain, 'cellar announces its entities');
  t.notOk(
    lines.some((l) => /removing the entities of the former service id ferm/.test(l.msg)),
    'cellar does not act on ferm any more',
  );
  t.same(
    bus.messages.filter((m) => m.topic.includes('edgeblocks_ferm') && m.payload.length === 0).map((m) => m.topic),
    [],
    'no config of the new ferm is cleared',
  );
  t.same(await retained(broker.url, otherConfig), [otherConfig], 'the new ferm keeps its device');
});

t.test('the configs of a controller running with the former id are left alone', async (t) => {
  const { broker, options } = await haBroker(t);
  // This data dir ran as ferm-old once; a copy of it runs on as ferm-old on another controller.
  const copyDir = tempDir(t);
  const first = await startApp({ ...options, serviceId: 'ferm-old' }, { dataDir: copyDir });
  await first.close();
  const other = await startApp({ ...options, serviceId: 'ferm-old' }, { dataDir: tempDir(t) });
  t.teardown(() => other.close());
  const liveConfig = await announced(other, broker.url, 'Beer', 'ferm-old');

  const bus = await Recorder.connect(broker.url);
  t.teardown(() => bus.end());
  await bus.subscribe('homeassistant/+/edgeblocks_ferm-old/+/config');
  const { log, lines } = logLines();
  const renamed = await startApp({ ...options, serviceId: 'ferm-new' }, { dataDir: copyDir, log });
  t.teardown(() => renamed.close());
  await until(
    () => lines.some((l) => /ferm-old is online/.test(l.msg)),
    'the renamed controller to see the former id online',
  );
  t.same(
    bus.messages.filter((m) => m.payload.length === 0).map((m) => m.topic),
    [],
    'no config of the running ferm-old is cleared',
  );
  t.same(await retained(broker.url, liveConfig), [liveConfig], 'its entity is still retained');
});

t.test('a controller that starts with the former id after the clear keeps its new configs', async (t) => {
  const { broker, options } = await haBroker(t);
  const copyDir = tempDir(t);
  const first = await startApp({ ...options, serviceId: 'ferm-old' }, { dataDir: copyDir });
  const config = await announced(first, broker.url, 'Beer', 'ferm-old');
  await first.close();

  const bus = await Recorder.connect(broker.url);
  t.teardown(() => bus.end());
  await bus.subscribe('homeassistant/+/edgeblocks_ferm-old/+/config');
  const { log, lines } = logLines();
  const renamed = await startApp({ ...options, serviceId: 'ferm-new' }, { dataDir: copyDir, log });
  t.teardown(() => renamed.close());
  await bus.waitFor((m) => m.topic === config && m.payload.length === 0, 'the old config cleared');
  await until(
    async () => (await retained(broker.url, 'homeassistant/+/edgeblocks_ferm-old/#')).length === 0,
    'all cleared',
  );
  const from = bus.messages.length;
  // The copy of the data dir starts as ferm-old now, while the renamed one watches that id.
  const copy = await startApp({ ...options, serviceId: 'ferm-old' }, { dataDir: tempDir(t) });
  t.teardown(() => copy.close());
  t.equal(
    `homeassistant/sensor/edgeblocks_ferm-old/${await sensorOf(copy, 'Beer')}_value/config`,
    config,
    'the same nid, so the same config topic',
  );
  await until(() => lines.some((l) => /ferm-old is online/.test(l.msg)), 'the renamed one to see ferm-old online');
  await until(async () => (await retained(broker.url, config)).length === 1, "the copy's config retained");
  t.same(
    bus.messages
      .slice(from)
      .filter((m) => m.payload.length === 0)
      .map((m) => m.topic),
    [],
    'none of the configs the copy sent (its block, its alert binary_sensors) was cleared',
  );
});

t.test(
  'a former id stays remembered until the broker took its clears: a start that could not clear it leaves it to the next',
  async (t) => {
    const dir = tempDir(t);
    const acl = path.join(dir, 'acl');
    writeFileSync(acl, 'topic readwrite #\n');
    // mosquitto started as root reads its files as the mosquitto user
    chmodSync(dir, 0o755);
    chmodSync(acl, 0o644);
    const broker = await startMosquitto(undefined, [`acl_file ${acl}`, 'log_type information']);
    t.teardown(() => broker.stop());
    const options = { mqttUrl: broker.url, homeAssistant: 'true', emitInterval: '200' };
    const dataDir = tempDir(t);
    const first = await startApp({ ...options, serviceId: 'ferm-old' }, { dataDir });
    const config = await announced(first, broker.url, 'Beer', 'ferm-old');
    await first.close();

    // Renamed, the controller may read the old node but not write it: its clears do not land. (The
    // fleet's ACL lets it read no other id's topics either: test/homeassistant/fleet-acl.test.ts.)
    writeFileSync(
      acl,
      [
        'topic readwrite svc/#',
        'topic read homeassistant/#',
        'topic readwrite homeassistant/+/edgeblocks_ferm-new/#',
        '',
      ].join('\n'),
    );
    await broker.reload();
    const { log, lines } = logLines();
    const renamed = await startApp({ ...options, serviceId: 'ferm-new' }, { dataDir, log });
    await until(
      () => lines.some((l) => /removing the entities of the former service id ferm-old/.test(l.msg)),
      'the clear of ferm-old to begin',
    );
    await renamed.close();
    writeFileSync(acl, 'topic readwrite #\n');
    await broker.reload();
    t.same(await retained(broker.url, config), [config], 'the clear did not land: the old entity is still retained');

    // The broker's rules are fixed; the next start clears what the last one could not.
    const again = await startApp({ ...options, serviceId: 'ferm-new' }, { dataDir });
    t.teardown(() => again.close());
    await until(
      async () => (await retained(broker.url, 'homeassistant/+/edgeblocks_ferm-old/#')).length === 0,
      'the device of ferm-old removed at the next start',
    );
    await until(
      async () => (await retained(broker.url, 'svc/ha/ferm-old/+')).every((s) => s.endsWith('/availability')),
      'its block state cleared',
    );
  },
);

t.test('the remembered ids: a new id makes the old one former, going back makes it current', async (t) => {
  const id = (serviceId: string, topicRoot = 'svc') => ({ serviceId, topicRoot });
  t.same(formerIds(undefined, id('a')), [], 'a first start has none');
  t.same(formerIds('{not json', id('a')), [], 'damaged text reads as none');
  t.same(formerIds(JSON.stringify({ ...id('a'), former: [] }), id('b')), [id('a')]);
  t.same(
    formerIds(JSON.stringify({ ...id('a'), former: [] }), id('a', 'brew')),
    [],
    'a new topic root alone is the same device (node and unique ids): its configs go out again on their topics',
  );
  t.same(
    formerIds(JSON.stringify({ ...id('a'), former: [] }), id('b', 'brew')),
    [id('a')],
    'the root of a former id is kept',
  );
  t.same(formerIds(JSON.stringify({ ...id('b'), former: [id('a')] }), id('a')), [id('b')], 'back to a: b is former');
  t.same(
    formerIds(JSON.stringify({ ...id('+'), former: [id('a', 'svc/#'), id('b/c'), id('d')] }), id('z')),
    [id('d')],
    'a damaged row naming wildcards or levels is not an id',
  );
  const many = Array.from({ length: 20 }, (_, i) => id(`x${i}`));
  t.equal(formerIds(JSON.stringify({ ...id('y'), former: many }), id('z')).length, MAX_FORMER_IDS, 'bounded');
});
