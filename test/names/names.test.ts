// Names are user text (DESIGN §11; issue 44, item 1): a block id the API accepts is carried by
// every path. Generated names (test/helpers/names.ts: quotes, backslashes, unicode, emoji,
// spaces, slashes, dots, '%', 200 characters, names differing only in case or normalisation)
// go through create -> history (the embedded store, and a real VictoriaMetrics) -> graph query
// (fields, ranges, metrics, CSV) -> Home Assistant discovery -> backup -> restore -> rename, and
// each step must hold every one of them. The seed is in the test name; EDGEBLOCKS_TEST_NAMES_SEED
// repeats a run.
import t, { type Test } from 'tap';
import { names, namesSeed, show } from '../helpers/names.js';
import { startApp, type RunningApp } from '../helpers/app.js';
import { startVictoria } from '../helpers/victoria.js';
import { Recorder, SERVICE_ID, sleep, until } from '../mqtt/fixtures.js';
import { parseCsv } from '../helpers/csv.js';
import { limit } from '../helpers/limits.js';

const SEED = namesSeed();
const COUNT = 60;
/** Home Assistant's entity id rule (homeassistant/core.py VALID_ENTITY_ID). */
const HA_ENTITY_ID = /^(?!.+__)(?!_)[\da-z_]+(?<!_)\.(?!_)[\da-z_]+(?<!_)$/;
/** What Home Assistant's MQTT discovery takes as node and object id in a config topic. */
const HA_TOPIC_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * The history field of a block field as the Brewblox UI names it (brewblox-ui
 * makeBlockGraphConfig: `[serviceId, block.id, key + postfix].join('/')`): the raw id.
 */
const uiField = (id: string, key = 'value', postfix = '[degC]') => [SERVICE_ID, id, key + postfix].join('/');

/** A setting per name, distinct, so each value read back shows it came from its own block. */
const settingOf = (i: number) => 10 + i * 0.25;

async function post(rt: RunningApp, route: string, body?: unknown) {
  const res = await rt.post(route, body);
  if (res.status >= 300) throw new Error(`${route} answered ${res.status}: ${res.raw.slice(0, 500)}`);
  return res.body;
}

/** Every history field of `ids` is stored, and each reads back its own block's value, through every query route. */
async function historyHolds(t: Test, rt: RunningApp, ids: string[], values: number[], what: string) {
  const fields = ids.map((id) => uiField(id));
  const flush = () => rt.app.history!.store.flush();
  let listed: string[] = [];
  const deadline = performance.now() + limit(30_000);
  while (performance.now() < deadline) {
    await flush();
    listed = await post(rt, '/history/timeseries/fields', { duration: '1h' });
    if (fields.every((f) => listed.includes(f))) break;
    await sleep(250);
  }
  const missing = fields.filter((f) => !listed.includes(f));
  t.same(
    missing.map(show),
    [],
    `${what}: every field is listed by /history/timeseries/fields, named as the Brewblox UI names it`,
  );

  // VictoriaMetrics answers a range up to the last whole step: the newest points show a step later.
  let wrong: string[] = fields;
  while (wrong.length && performance.now() < deadline + limit(15_000)) {
    const ranges = (await post(rt, '/history/timeseries/ranges', { fields, duration: '10m' })) as {
      metric: { __name__: string };
      values: [number, string][];
    }[];
    wrong = fields.filter((f, i) => {
      const r = ranges.find((x) => x.metric.__name__ === f);
      return !r || Number(r.values.at(-1)?.[1]) !== values[i];
    });
    if (wrong.length) await sleep(500);
  }
  t.same(wrong.map(show), [], `${what}: ranges gives each field its own block's value`);

  const metrics = (await post(rt, '/history/timeseries/metrics', { fields })) as { metric: string; value: number }[];
  t.same(
    fields.filter((f, i) => metrics.find((m) => m.metric === f)?.value !== values[i]).map(show),
    [],
    `${what}: metrics gives each field its own block's value`,
  );

  const csv = await rt.post('/history/timeseries/csv', { fields, duration: '10m', precision: 'ms' });
  t.equal(csv.status, 200, `${what}: csv answers`);
  const rows = parseCsv(csv.raw);
  t.same(
    rows[0]?.map(show),
    ['time', ...fields].map(show),
    `${what}: the CSV header names every field exactly (RFC 4180 quoting)`,
  );
  const last = new Map<number, number>();
  for (const row of rows.slice(1))
    row.slice(1).forEach((cell, i) => {
      if (cell !== '') last.set(i, Number(cell));
    });
  t.same(
    fields.filter((_, i) => last.get(i) !== values[i]).map(show),
    [],
    `${what}: each CSV column holds its own block's value`,
  );
}

/** Home Assistant discovery of each id: valid ids and topics, the name, unique ids, the state. */
async function homeAssistantHolds(
  t: Test,
  ha: Recorder,
  ids: string[],
  nids: number[],
  values: number[],
  what: string,
) {
  const retained = () => {
    const map = new Map<string, Buffer>();
    for (const m of ha.messages) map.set(m.topic, m.payload);
    return map;
  };
  const configTopic = (nid: number) => `homeassistant/sensor/edgeblocks_${SERVICE_ID}/${nid}_value/config`;
  const json = (topic: string) => {
    const p = retained().get(topic);
    return p?.length ? JSON.parse(p.toString()) : undefined;
  };
  const named = () => ids.every((id, i) => json(configTopic(nids[i]!))?.name === id);
  await until(named, `${what}: a Home Assistant config naming each block`, 10_000).catch(() => undefined);
  t.same(
    ids.filter((id, i) => json(configTopic(nids[i]!))?.name !== id).map(show),
    [],
    `${what}: each block's entity is announced under its name`,
  );
  const configs = ids.map((_, i) => json(configTopic(nids[i]!)) ?? {});
  t.same(
    configs
      .filter((c) => !HA_ENTITY_ID.test(c.default_entity_id ?? ''))
      .map((c) => show(`${c.name}: ${c.default_entity_id}`)),
    [],
    `${what}: every default entity id is a valid Home Assistant entity id`,
  );
  t.equal(new Set(configs.map((c) => c.unique_id)).size, ids.length, `${what}: unique ids are unique`);
  const badTopics = [...retained().keys()].filter((topic) => {
    const parts = topic.split('/');
    if (topic.includes('+') || topic.includes('#') || Buffer.byteLength(topic) > 65535) return true;
    return parts[0] === 'homeassistant' && !(HA_TOPIC_ID.test(parts[2] ?? '') && HA_TOPIC_ID.test(parts[3] ?? ''));
  });
  t.same(
    badTopics.map(show),
    [],
    `${what}: every topic is a valid MQTT topic, discovery ids as Home Assistant takes them`,
  );
  const leaked = [...retained().keys()].filter((topic) => ids.some((id) => id.length > 3 && topic.includes(id)));
  t.same(leaked.map(show), [], `${what}: no block name is put into a topic (nids are)`);
  await until(
    () => ids.every((_, i) => json(String(configs[i].state_topic))?.value === values[i]),
    `${what}: each entity's state`,
    10_000,
  ).catch(() => undefined);
  t.same(
    ids.filter((_, i) => json(String(configs[i].state_topic))?.value !== values[i]).map(show),
    [],
    `${what}: each entity's state topic holds its own block's value`,
  );
}

const STORES: Array<{ name: string; setup(t: Test): Promise<Record<string, string>> }> = [
  { name: 'embedded history', setup: async () => ({}) },
  {
    name: 'VictoriaMetrics',
    setup: async (t) => {
      const vm = await startVictoria();
      t.teardown(() => vm.stop());
      return { historyUrl: vm.url };
    },
  },
];

for (const store of STORES) {
  t.test(`names (seed ${SEED}) through every sink, ${store.name}`, async (t) => {
    const all = names(SEED, COUNT * 2);
    const first = all.slice(0, COUNT);
    const renamed = all.slice(COUNT);
    const rt = await startApp({ emitInterval: '200', homeAssistant: 'true', ...(await store.setup(t)) });
    t.teardown(() => rt.close());
    await until(() => rt.app.mqtt.connected, 'the app to connect');
    const ha = await Recorder.connect(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`);
    t.teardown(() => ha.end());
    await ha.subscribe('homeassistant/#', 'svc/ha/#');

    // create
    const nids: number[] = [];
    for (const [i, id] of first.entries()) {
      const res = await rt.post('blocks/create', {
        id,
        type: 'TempSensorMock',
        data: { setting: settingOf(i), connected: true },
      });
      t.equal(res.status, 201, `create ${show(id)}`);
      t.equal(res.body?.id, id, 'the id comes back as given');
      nids.push(res.body?.nid);
    }
    const values = first.map((_, i) => settingOf(i));
    await historyHolds(t, rt, first, values, 'created');
    await homeAssistantHolds(t, ha, first, nids, values, 'created');

    // backup -> restore (into the same controller, after everything is gone)
    const backup = await post(rt, 'blocks/backup/save');
    t.same(
      first.filter((id) => !backup.blocks.some((b: { id: string }) => b.id === id)).map(show),
      [],
      'the backup holds every name',
    );
    const text = JSON.stringify(backup);
    await post(rt, 'blocks/all/delete');
    const loaded = await post(rt, 'blocks/backup/load', JSON.parse(text));
    t.same(loaded.messages, [], 'the backup loads without a message');
    const read = (await post(rt, 'blocks/all/read')) as {
      id: string;
      nid: number;
      data: { setting: { value: number } };
    }[];
    t.same(
      first.filter((id, i) => read.find((b) => b.id === id)?.data.setting.value !== values[i]).map(show),
      [],
      'every block is back with its own setting',
    );

    // rename, each to another generated name
    for (const [i, id] of first.entries()) {
      const res = await rt.post('blocks/rename', { existing: id, desired: renamed[i] });
      t.equal(res.status, 200, `rename ${show(id)} -> ${show(renamed[i]!)}`);
    }
    const after = (await post(rt, 'blocks/all/read')) as { id: string; nid: number }[];
    t.same(
      renamed.filter((id, i) => after.find((b) => b.id === id)?.nid !== nids[i]).map(show),
      [],
      'every renamed block keeps its nid',
    );
    await historyHolds(t, rt, renamed, values, 'renamed');
    await homeAssistantHolds(t, ha, renamed, nids, values, 'renamed');

    const history = rt.app.status().history as {
      ok: boolean;
      dropped: { points: object; messages: object; own: object };
    };
    t.equal(history.ok, true, 'history is ok');
    t.same(history.dropped, { ...history.dropped, points: {}, messages: {}, own: {} }, 'nothing was dropped');
  });
}
