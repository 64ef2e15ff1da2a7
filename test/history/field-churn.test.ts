// A key may hold at most maxFieldsPerKey fields, and a key's fields were kept as long as the key
// was active. The controller's own key is never idle: every field name it had ever sent (the
// blocks created and deleted, renamed, a unit switched) stayed counted, so once some 2000 names
// had come and gone a block created afterwards lost its history (history.ok false, the
// history-dropped alert naming 2000 fields while the controller had a few dozen) until a restart.
// Fields not updated for the idle time now age out of an active key as a key does.
import t from 'tap';
import { ingestRig } from '../helpers/ingest-rig.js';
import { INGEST_LIMITS } from '../../src/history/limits.js';

const BATCH = 100;

t.test("the controller's own fields that come and go do not use up its field budget", async (t) => {
  const { store, ingest, now, advance } = ingestRig(t, { ownKey: 'edge-one' });
  const own = (data: Record<string, unknown>) => ingest.own({ key: 'edge-one', data }, 100);

  // Blocks created and deleted a batch at a time, each batch emitted for a minute: the
  // controller has one sensor and at most BATCH others at any time.
  const rounds = Math.ceil(INGEST_LIMITS.maxFieldsPerKey / BATCH) + 2;
  for (let round = 0; round < rounds; round++) {
    const batch = Object.fromEntries(
      Array.from({ length: BATCH }, (_, i) => [`churn-${round}-${i}`, { 'value[degC]': round }]),
    );
    for (let s = 0; s < 12; s++) {
      own({ 'Beer Sensor': { 'value[degC]': 20 }, ...batch });
      advance(5000);
    }
  }
  own({ 'Beer Sensor': { 'value[degC]': 20 }, 'New Sensor': { 'value[degC]': 18 } });
  t.same(
    ingest.metrics(['edge-one/New Sensor/value[degC]'], 0).map((m) => m.value),
    [18],
    'a block created after some 2000 field names came and went has its history',
  );
  t.same(ingest.drops.own, {}, "none of the controller's own points dropped");
  await store.flush();
  t.same((await store.raw(['edge-one/New Sensor/value[degC]'], 0, now()))[0]?.v, [18], 'and it is stored');
  t.same(
    ingest.metrics(['edge-one/Beer Sensor/value[degC]'], 0).map((m) => m.value),
    [20],
    'a field sent all along is kept',
  );
  t.ok(
    (ingest.status().fields as number) <= INGEST_LIMITS.maxFieldsPerKey,
    `${ingest.status().fields as number} fields held`,
  );
});
