// The controller's own history key (its service id) comes from its own topic alone. Any client
// (or a peer controller on its own history topic, which the fleet ACL allows) sent one message
// `{"key": "edge-one", "data": {...1999 fields}}` on svc/history/<anything>: its values were
// stored among the controller's fields, and the key's field budget was used up, so every block
// created afterwards lost its history (history.ok false, the history-dropped alert) until a restart.
import t from 'tap';
import { ingestRig } from '../helpers/ingest-rig.js';
import { INGEST_LIMITS } from '../../src/history/limits.js';

t.test("another topic cannot write the controller's own key", async (t) => {
  const { store, ingest, now, settled, advance } = ingestRig(t, { ownKey: 'edge-one' });
  const own = (data: Record<string, unknown>) => ingest.own({ key: 'edge-one', data }, 100);

  own({ 'Beer Sensor': { 'value[degC]': 20 } });
  advance(1000);
  // With the controller's one field, the key's whole field budget.
  const junk = Object.fromEntries(Array.from({ length: INGEST_LIMITS.maxFieldsPerKey - 1 }, (_, i) => [`f${i}`, i]));
  ingest.handle(
    'svc/history/peer',
    Buffer.from(JSON.stringify({ key: 'edge-one', data: { 'Beer Sensor': { 'value[degC]': 99 }, junk } })),
  );
  await settled();

  advance(1000);
  own({ 'Beer Sensor': { 'value[degC]': 20.5 }, 'New Sensor': { 'value[degC]': 18 } });
  t.same(
    ingest
      .metrics(['edge-one/Beer Sensor/value[degC]', 'edge-one/New Sensor/value[degC]'], 0)
      .map((m) => [m.metric, m.value]),
    [
      ['edge-one/Beer Sensor/value[degC]', 20.5],
      ['edge-one/New Sensor/value[degC]', 18],
    ],
    "a block created after it still has its history; the controller's values are its own",
  );
  t.same(ingest.drops.own, {}, "none of the controller's own points dropped");
  t.equal(ingest.drops.messages["the controller's own key"], 1, 'the message is refused, counted by its reason');
  const raw = await store.raw(['edge-one/Beer Sensor/value[degC]'], 0, now());
  t.same(raw[0]?.v, [20, 20.5], 'only the controller wrote its fields');
  t.notOk(
    (await store.fields(0)).some((f) => f.startsWith('edge-one/junk/')),
    "no field of the other topic's message is stored",
  );

  // A key under the controller's own (stored names are key/field) names its fields just the same.
  advance(1000);
  ingest.handle(
    'svc/history/peer',
    Buffer.from(JSON.stringify({ key: 'edge-one/Beer Sensor', data: { 'value[degC]': 99 } })),
  );
  await settled();
  t.same(
    ingest.metrics(['edge-one/Beer Sensor/value[degC]'], 0).map((m) => m.value),
    [20.5],
    'nor through a key under it',
  );
  t.equal(ingest.drops.messages["the controller's own key"], 2, 'refused and counted too');
  // A key that only begins with the same letters is another controller's.
  ingest.handle('svc/history/peer', Buffer.from(JSON.stringify({ key: 'edge-one-b', data: { v: 2 } })));
  await settled();
  t.same(
    ingest.metrics(['edge-one-b/v'], 0).map((m) => m.value),
    [2],
    'edge-one-b is stored',
  );

  // Another key on that topic is stored as before.
  ingest.handle('svc/history/peer', Buffer.from(JSON.stringify({ key: 'peer', data: { v: 1 } })));
  await settled();
  t.same(
    ingest.metrics(['peer/v'], 0).map((m) => m.value),
    [1],
    "the peer's own key is stored",
  );
});
