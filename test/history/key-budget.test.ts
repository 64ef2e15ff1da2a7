// The history key budget (issue 23, item 5): one publisher (one topic) sending 1000 distinct keys
// gets its share only; a later publisher and the controller's own history are still accepted,
// the refusals are counted, and keys not seen for a while age out, freeing their places.
import t from 'tap';
import { ingestRig } from '../helpers/ingest-rig.js';
import { INGEST_LIMITS } from '../../src/history/limits.js';

t.test('one publisher cannot use up the key budget; idle keys age out', async (t) => {
  const { store, ingest, now, settled, advance } = ingestRig(t);
  const send = (topic: string, key: string, v = 1) =>
    ingest.handle(topic, Buffer.from(JSON.stringify({ key, data: { v } })));

  // 1000 keys from one client, slow enough that no rate limit is what stops them.
  for (let i = 0; i < 1000; i++) {
    advance(100);
    send('svc/history/greedy', `k${i}`);
  }
  await settled();
  const held = (await store.fields(0)).filter((f) => f.startsWith('k'));
  t.ok(held.length <= INGEST_LIMITS.keysPerPublisher, `the greedy publisher holds ${held.length} keys`);

  advance(100);
  send('svc/history/later', 'later', 7);
  send('svc/history/edge-one', 'edge-one', 21.5);
  await settled();
  t.same(
    ingest
      .metrics(['later/v', 'edge-one/v'], 0)
      .map((m) => [m.metric, m.value])
      .sort(),
    [
      ['edge-one/v', 21.5],
      ['later/v', 7],
    ],
    'a later publisher and the controller are accepted',
  );
  const refused = ingest.drops.points.keys ?? 0;
  t.ok(refused >= 1000 - INGEST_LIMITS.keysPerPublisher, `the points of refused keys counted (${refused})`);

  // The greedy keys go quiet; later ones keep publishing. After the idle time the greedy
  // publisher's places are free again, the others' keys are kept.
  for (let s = 0; s < INGEST_LIMITS.idleMs / 60_000 + 1; s++) {
    advance(60_000);
    send('svc/history/later', 'later', s);
    send('svc/history/edge-one', 'edge-one', s);
    await settled();
  }
  send('svc/history/greedy', 'fresh', 3);
  await settled();
  t.same(
    ingest.metrics(['fresh/v'], 0).map((m) => m.value),
    [3],
    'a key after the idle time is accepted',
  );
  t.ok(ingest.metrics(['later/v', 'edge-one/v'], now()).length === 2, 'the active keys are still there');
  t.notOk(ingest.metrics(['k0/v'], 0).length, 'an aged-out key has left the last-value cache');
});
