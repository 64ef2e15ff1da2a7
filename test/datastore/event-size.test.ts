// A datastore change event must fit what every reader of the bus takes (BODY_LIMIT), whatever the
// documents of one call add up to. A request body fits the limit, but its documents as stored can
// be several times larger (`1e20` is stored as `100000000000000000000`), and a backup load
// changes a whole namespace at once.
import t from 'tap';
import mqtt from 'mqtt';
import { setTimeout as sleep } from 'node:timers/promises';
import { BODY_LIMIT } from '../../src/shared/limits.js';
import { limit } from '../helpers/limits.js';
import { datastoreApp, ids } from './helpers.js';

async function until(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + limit(ms);
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A document of about `inputBytes` of request JSON that is 4.4 times as long when stored. */
const expanding = (namespace: string, id: string, inputBytes: number) =>
  `{"namespace":"${namespace}","id":"${id}","x":[${Array(Math.floor(inputBytes / 5))
    .fill('1e20')
    .join(',')}]}`;

const five = ['a', 'b', 'c', 'd', 'e'];
const bytes = (payload: unknown) => Buffer.byteLength(JSON.stringify(payload));

t.test('documents stored larger than an event can carry are split over several events', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  // Five documents of 200 kB of request JSON each: 880 kB each as stored, 4.4 MB together.
  const values = five.map((id) => expanding('big', id, 200_000));
  const res = await ds('mset', `{"values":[${values.join(',')}]}`);
  t.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  const published = events();
  t.ok(published.length >= 5, `${published.length} events`);
  for (const e of published) {
    t.equal(e.topic, 'svc/datastore/big');
    t.ok(bytes(e.payload) <= BODY_LIMIT, `an event of ${bytes(e.payload)} bytes fits ${BODY_LIMIT}`);
    t.ok('changed' in e.payload, 'only changed events');
  }
  const changed = published.flatMap((e) => ('changed' in e.payload ? e.payload.changed : []));
  t.same(ids(changed), ['big:a', 'big:b', 'big:c', 'big:d', 'big:e'], 'every document is in one of them, once');
  t.equal((changed[0]!.x as number[]).length, 40_000);
});

t.test('a document too large for its event is refused, naming it, and nothing is stored', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  const doc = expanding('big', 'huge', 600_000); // 600 kB of request JSON, 2.6 MB stored
  const one = await ds('set', `{"value":${doc}}`);
  t.equal(one.status, 422, JSON.stringify(one.body).slice(0, 300));
  t.match(one.body.message, /value: .*bytes/);
  const many = await ds('mset', `{"values":[{"namespace":"big","id":"small"},${doc}]}`);
  t.equal(many.status, 422);
  t.match(many.body.message, /values\.1: .*bytes/);
  t.same((await ds('mget', { namespace: 'big' })).body, { values: [] }, 'nothing stored');
  t.same(events(), [], 'nothing published');
});

t.test('over a real broker: the service stays connected and a subscriber gets every document', async (t) => {
  const h = await datastoreApp({ host: '127.0.0.1', mqttUrl: 'embedded', mqttPort: '0' });
  t.teardown(h.close);
  await h.app.start();
  await until('the app to connect', () => h.app.mqtt.connected);
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${h.app.mqtt.brokerPort}`, {
    protocolVersion: 4,
    reconnectPeriod: 0,
  });
  t.teardown(() => client.endAsync());
  const got: { topic: string; bytes: number; ids: string[] }[] = [];
  client.on('message', (topic, payload) => {
    const event = JSON.parse(payload.toString()) as { changed?: { namespace: string; id: string }[] };
    got.push({ topic, bytes: payload.length, ids: ids(event.changed ?? []) });
  });
  await client.subscribeAsync('svc/datastore/#', { qos: 0 });

  // 4.4 MB as stored: over the embedded broker's packet limit (4 MiB) were it one event.
  const values = five.map((id) => expanding('big', id, 200_000));
  t.equal((await h.ds('mset', `{"values":[${values.join(',')}]}`)).status, 200);
  // A later small change: it arrives only if the service's connection outlived the large one.
  t.equal((await h.ds('set', { value: { namespace: 'after', id: 'x' } })).status, 200);
  await until('the later event', () => got.some((m) => m.topic === 'svc/datastore/after'));
  t.same(
    got
      .filter((m) => m.topic === 'svc/datastore/big')
      .flatMap((m) => m.ids)
      .sort(),
    ['big:a', 'big:b', 'big:c', 'big:d', 'big:e'],
  );
  for (const m of got) t.ok(m.bytes <= BODY_LIMIT, `${m.bytes} bytes`);
  t.equal(h.app.mqtt.status().connects, 1, 'the broker never closed the service connection');
});

t.test('deleted keys are split alike, in key order, each event within the limit', async (t) => {
  const { changeEvents } = await import('../../src/store/datastore-events.js');
  const keys = Array.from({ length: 10 }, (_, i) => `ns:${String(i).padStart(2, '0')}${'k'.repeat(40)}`);
  const events = changeEvents('svc', { deleted: [...keys].reverse() }, 200);
  t.ok(events.length > 1, `${events.length} events`);
  for (const e of events) {
    t.equal(e.topic, 'svc/datastore/ns');
    t.ok(bytes(e.payload) <= 200, `${bytes(e.payload)} bytes`);
  }
  t.same(
    events.flatMap((e) => ('deleted' in e.payload ? e.payload.deleted : [])),
    keys,
  );
});
