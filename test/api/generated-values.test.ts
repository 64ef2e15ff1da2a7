// One schema per input shape (DESIGN §10, §11): block bodies generated from the field tables
// (test/helpers/field-values.ts: every writable field of every type at the edges of its declared
// range and shape, plus seeded random values) go through every path a body travels: REST create,
// the MQTT block API (its message handler for every body, a seeded sample over the embedded
// broker), a backup load, a backup round trip, a restart and the state and history messages. No
// input is a 500; a refusal names the field; REST, MQTT and a backup load take or refuse each
// body alike; what is taken comes back the same after a backup round trip and a restart. The seed
// is in the test name; EDGEBLOCKS_TEST_VALUES_SEED repeats a run.
import { rmSync } from 'node:fs';
import t from 'tap';
import { blockTypes } from '../../src/blocks/index.js';
import { silentLogger } from '../../src/log.js';
import { handleControllerMessage } from '../../src/mqtt/controller-topics.js';
import { ALL } from '../../src/runtime/runtime.js';
import { generateBodies, valuesSeed, type Generated } from '../helpers/field-values.js';
import { startApp, type RunningApp } from '../helpers/app.js';
import { seeded } from '../../drivers/sim/seeded.js';
import { controllerTopic, Recorder, SERVICE_ID, until, untilSubscribed } from '../mqtt/fixtures.js';

const SEED = valuesSeed();
const FIRST_NID = 1000;

const show = (b: Generated) => `${b.type} ${JSON.stringify(b.data).slice(0, 160)}`;

/** One block of each creatable type, the links' targets; the same ids in every app. */
async function withTargets(rt: RunningApp): Promise<Map<string, string>> {
  const targets = new Map<string, string>();
  for (const def of blockTypes) {
    if (def.system) continue;
    const id = `target ${def.type}`;
    const res = await rt.post('blocks/create', { id, type: def.type, data: {} });
    if (res.status !== 201) throw new Error(`${id}: ${res.raw.slice(0, 300)}`);
    targets.set(def.type, id);
  }
  return targets;
}

/** Stored data of every block by id, as backups and restarts keep it. */
async function storedById(rt: RunningApp): Promise<Map<string, string>> {
  const res = await rt.post('blocks/all/read/stored');
  return new Map((res.body as { id: string; data: unknown }[]).map((b) => [b.id, JSON.stringify(b.data)]));
}

/**
 * A Sequence's store mode says what a restore does to it (NEVER_ENABLED: disabled, AT_FIRST: from
 * the first instruction, elapsed time reset): the only stored values a restore changes by rule.
 */
const changedByRestore = (b: Generated | undefined) => b?.type === 'Sequence';

type Outcome = { ok: boolean; message: string; issues: string[] };

/**
 * Every generated body created over REST, in order, on one app: the first two tests read the
 * same creates (each used to make its own app and create them all again, a third of the file's
 * time). The second test stops this app for its restart.
 */
interface Created {
  rest: RunningApp;
  bodies: Generated[];
  outcome: Map<string, Outcome>;
  serverErrors: string[];
  unnamed: string[];
  /** Stops the app once (the restart's stop, or the file's end). */
  stop(): Promise<void>;
}
let created: Promise<Created> | undefined;
function createdOverRest(): Promise<Created> {
  created ??= (async () => {
    const rest = await startApp({}, { listen: false });
    let stopped: Promise<void> | undefined;
    const stop = () => (stopped ??= rest.app.stop());
    const targets = await withTargets(rest);
    const bodies = generateBodies(blockTypes, targets, SEED, FIRST_NID);
    const outcome = new Map<string, Outcome>();
    const serverErrors: string[] = [];
    const unnamed: string[] = [];
    for (const b of bodies) {
      const res = await rest.post('blocks/create', { id: b.id, nid: b.nid, type: b.type, data: b.data });
      if (res.status >= 500) serverErrors.push(`${show(b)}: ${res.status} ${res.raw.slice(0, 200)}`);
      else if (res.status !== 201) {
        const paths: string[] = (res.body?.validation ?? []).map((v: { path: string }) => v.path);
        if (res.status !== 422 || !paths.some((p) => p === `data.${b.field}` || p.startsWith(`data.${b.field}.`)))
          unnamed.push(`${show(b)}: ${res.status} ${res.raw.slice(0, 300)}`);
      }
      const issues = (res.body?.validation ?? []).map((v: { message: string }) => v.message);
      outcome.set(b.id, { ok: res.status === 201, message: res.body?.message ?? '', issues });
    }
    return { rest, bodies, outcome, serverErrors, unnamed, stop };
  })();
  return created;
}
t.teardown(async () => {
  if (!created) return;
  const { rest, stop } = await created;
  await stop();
  rmSync(rest.dataDir, { recursive: true, force: true });
});

t.test(
  `generated field values, seed ${SEED}: REST, MQTT and backup load agree; no 500; refusals name the field`,
  async (t) => {
    const { rest, bodies, outcome: restOutcome, serverErrors, unnamed } = await createdOverRest();
    t.ok(bodies.length > 1000, `${bodies.length} bodies`);
    t.same(serverErrors, [], 'no body is answered with a 5xx');
    t.same(unnamed, [], 'every refusal is a 422 whose validation names the field given (data.<field>...)');

    // MQTT: the block API's message handler, on an app holding the same targets.
    const mqtt = await startApp({}, { listen: false });
    t.teardown(mqtt.close);
    await withTargets(mqtt);
    const mqttDisagrees: string[] = [];
    for (const b of bodies) {
      const payload = Buffer.from(
        JSON.stringify({ id: b.id, nid: b.nid, type: b.type, serviceId: mqtt.app.runtime.serviceId, data: b.data }),
      );
      const dropped = handleControllerMessage(mqtt.app.runtime, 'create', payload, silentLogger);
      const r = restOutcome.get(b.id)!;
      if (r.ok !== !dropped)
        mqttDisagrees.push(
          `${show(b)}: REST ${r.ok ? 'took it' : 'refused it'}, MQTT ${dropped ? `dropped it: ${dropped.message.slice(0, 200)}` : 'took it'}`,
        );
      else if (dropped && !dropped.message.includes(`data.${b.field}`))
        mqttDisagrees.push(
          `${show(b)}: MQTT dropped it without naming data.${b.field}: ${dropped.message.slice(0, 200)}`,
        );
    }
    t.same(mqttDisagrees, [], 'MQTT takes and refuses what REST does, naming the field');

    // A backup holding every generated body, loaded into a fresh app with the same targets.
    const saved = (await rest.post('blocks/backup/save')).body;
    const kept = saved.blocks.filter((b: { id: string }) => !bodies.some((g) => g.id === b.id));
    const fresh = await startApp({}, { listen: false });
    t.teardown(fresh.close);
    const load = await fresh.post('blocks/backup/load', {
      ...saved,
      blocks: [...kept, ...bodies.map((b) => ({ id: b.id, nid: b.nid, type: b.type, data: b.data }))],
    });
    t.equal(load.status, 200, 'the backup of every generated body loads');
    const said = (list: string[]) => {
      const byId = new Map<string, string[]>();
      for (const m of list) {
        const id = /\(id '([^']*)'/.exec(m)?.[1];
        if (id) byId.set(id, [...(byId.get(id) ?? []), m]);
      }
      return byId;
    };
    const failure = said(load.body.failures);
    const warning = said(load.body.warnings);
    const loadDisagrees: string[] = [];
    for (const b of bodies) {
      const r = restOutcome.get(b.id)!;
      const f = failure.get(b.id)?.join('; ');
      // What REST refuses, a load may load without (docs/data.md), saying so by the field's name: a
      // field this controller does not know, a link to a missing block or one of another type (a
      // delete leaves such links behind, so backups hold them), a hardware binding another block
      // of the backup has or the chip cannot have. It never loads a refused value unsaid.
      // One block per chip is a rule of a create, not of a load: a backup's two blocks on one chip
      // both load, the report naming the chip (backup-rules.ts sharedChip).
      const chip = r.ok ? undefined : / ([^:]+) is already used by block '/.exec(r.message)?.[1];
      const warned = (warning.get(b.id) ?? []).some(
        (w) =>
          w.includes(`'${b.field}`) ||
          w.includes(`link ${b.field}`) ||
          (chip && w.includes(`${chip} is named by block`)),
      );
      if (r.ok && f) loadDisagrees.push(`${show(b)}: REST took it, the load failed it: ${f.slice(0, 200)}`);
      else if (!r.ok && !f && !warned)
        loadDisagrees.push(
          `${show(b)}: REST refused it (${r.message.slice(0, 150)}), the load took it without a word of ${b.field}`,
        );
      else if (f && !f.includes(`data.${b.field}`))
        loadDisagrees.push(`${show(b)}: the load failed it without naming data.${b.field}: ${f.slice(0, 200)}`);
    }
    t.same(
      loadDisagrees,
      [],
      'a backup load takes what REST takes, and what REST refuses it fails or leaves out, naming the field',
    );
  },
);

t.test(`generated field values, seed ${SEED}: what is taken survives a backup round trip and a restart`, async (t) => {
  const { rest: rt, bodies, outcome, stop } = await createdOverRest();
  const byId = new Map(bodies.map((b) => [b.id, b]));
  const taken = [...outcome.values()].filter((o) => o.ok).length;
  t.ok(taken > 500, `${taken} bodies taken`);

  const diff = (a: Map<string, string>, b: Map<string, string>) =>
    [...a]
      .filter(([id, data]) => b.get(id) !== data && !changedByRestore(byId.get(id)))
      .map(([id, data]) => `${id}: ${data.slice(0, 200)} became ${b.get(id)?.slice(0, 200)}`);

  // The emission that follows: the state message's blocks are what REST reads, byte for byte, and
  // the history message holds finite numbers only (a NaN or Infinity is no JSON number).
  const state = JSON.parse(
    rt.app.runtime
      .read(ALL)
      .within((blocks) => ({ blocks }))
      .toString(),
  ).blocks;
  const read = (await rt.post('blocks/all/read')).body;
  const fieldsOf = (list: { id: string; data: unknown }[]) =>
    list.filter((b) => byId.has(b.id)).map((b) => [b.id, Object.keys(b.data as object)]);
  t.same(fieldsOf(state), fieldsOf(read), 'the state message holds every block with the fields REST reads');
  const historyText = rt.app.runtime
    .read(ALL, 'history')
    .within((data) => ({ data }))
    .toString();
  const notFinite: string[] = [];
  const walk = (v: unknown, at: string) => {
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) notFinite.push(at);
    } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${at}/${k}`);
    else if (v !== null) notFinite.push(`${at}: ${JSON.stringify(v)}`);
  };
  walk(JSON.parse(historyText).data, '');
  t.same(notFinite, [], 'the history message holds numbers only');

  const before = await storedById(rt);
  const backup = (await rt.post('blocks/backup/save')).body;
  const load = await rt.post('blocks/backup/load', backup);
  t.equal(load.status, 200, 'its own backup loads');
  t.same(load.body.failures, [], 'its own backup loads whole');
  const afterLoad = await storedById(rt);
  t.same(diff(before, afterLoad), [], 'a backup round trip gives every block back the same');

  await stop();
  const open = await startApp({}, { listen: false, dataDir: rt.dataDir });
  t.teardown(open.close);
  const afterRestart = await storedById(open);
  t.same(diff(afterLoad, afterRestart), [], 'a restart gives every block back the same');
});

t.test(`generated field values, seed ${SEED}: over a real broker, the block API takes what REST takes`, async (t) => {
  // A seeded sample, with every list item of the wrong shape (the bodies that were 500s).
  const rest = await startApp({}, { listen: false });
  t.teardown(rest.close);
  const targets = await withTargets(rest);
  const all = generateBodies(blockTypes, targets, SEED, FIRST_NID);
  const rand = seeded(SEED);
  const bodies = all.filter((b) => /^\[(\[\]|"x"|5)\]$/.test(JSON.stringify(b.data[b.field])) || rand() < 0.02);
  const taken = new Set<string>();
  for (const b of bodies)
    if ((await rest.post('blocks/create', { id: b.id, nid: b.nid, type: b.type, data: b.data })).status === 201)
      taken.add(b.id);

  const rt = await startApp({ mqttUrl: 'embedded', mqttPort: '0' });
  t.teardown(rt.close);
  await withTargets(rt);
  await untilSubscribed(rt.app);
  const pub = await Recorder.connect(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`);
  t.teardown(() => pub.end());
  const dropped = () => (rt.app.mqtt.status() as { dropped: { blockApi: number } }).dropped.blockApi;
  const before = dropped();
  for (const b of bodies)
    await pub.publish(
      controllerTopic('create'),
      JSON.stringify({ serviceId: SERVICE_ID, id: b.id, nid: b.nid, type: b.type, data: b.data }),
    );
  // Messages of one client are handled in order: once the marker is here, every body was.
  await pub.publish(
    controllerTopic('create'),
    JSON.stringify({ serviceId: SERVICE_ID, id: 'marker', type: 'TempSensorMock', data: {} }),
  );
  await until(() => rt.app.runtime.find('marker') !== undefined, 'the marker after the generated bodies', 30_000);
  const disagree = bodies
    .filter((b) => taken.has(b.id) !== (rt.app.runtime.find(b.id) !== undefined))
    .map((b) => `${show(b)}: REST ${taken.has(b.id) ? 'took' : 'refused'} it, MQTT the other`);
  t.same(disagree, [], `MQTT takes the ${taken.size} bodies REST takes of ${bodies.length}, and no other`);
  t.equal(dropped() - before, bodies.length - taken.size, 'each refused message is counted as dropped');
});
