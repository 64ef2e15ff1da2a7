// The built-in history keeps a name per field it has stored (in memory and in fields.jsonl) for
// as long as the field's points are kept: a year. The ingest bounds the fields held at once, and
// idle ones age out after ten minutes: a publisher sending new field names every ten minutes got
// 20,000 more names into the store each time, without bound, until the Pi's memory ran out (and the
// names file, counted toward historyMaxBytes, pushed out the points). The store now takes at most
// MAX_FIELD_NAMES names; past that, points of new fields are dropped (counted), but the controller's own.
import t from 'tap';
import { ingestRig } from '../helpers/ingest-rig.js';
import { INGEST_LIMITS, MAX_FIELD_NAMES } from '../../src/history/limits.js';

t.test('a publisher sending new field names all the time cannot grow the store without bound', async (t) => {
  const { store, ingest, settled, advance } = ingestRig(t);
  const perMessage = 1000;
  const keys = 10;
  let round = 0;
  while ((store.status().fields as number) < MAX_FIELD_NAMES && round < 2 * (MAX_FIELD_NAMES / (perMessage * keys))) {
    for (let k = 0; k < keys; k++) {
      advance(1000);
      const data = Object.fromEntries(Array.from({ length: perMessage }, (_, i) => [`r${round} f${i}`, i]));
      ingest.handle(`svc/history/churn${k}`, Buffer.from(JSON.stringify({ key: `k${k}`, data })));
      await settled();
    }
    await store.flush();
    advance(INGEST_LIMITS.idleMs + 1000);
    round++;
  }
  for (let k = 0; k < keys; k++) {
    advance(1000);
    const data = Object.fromEntries(Array.from({ length: perMessage }, (_, i) => [`last f${i}`, i]));
    ingest.handle(`svc/history/churn${k}`, Buffer.from(JSON.stringify({ key: `k${k}`, data })));
    await settled();
  }
  await store.flush();
  const fields = store.status().fields as number;
  t.ok(fields <= MAX_FIELD_NAMES, `${fields} field names held (at most ${MAX_FIELD_NAMES})`);

  advance(1000);
  ingest.own({ key: 'edge-one', data: { 'New Sensor': { 'value[degC]': 18 } } }, 100);
  await settled();
  await store.flush();
  t.same(
    (await store.raw(['edge-one/New Sensor/value[degC]'], 0, Number.MAX_SAFE_INTEGER))[0]?.v,
    [18],
    "the controller's own new field is stored",
  );
  t.ok((ingest.drops.points['too many field names'] ?? 0) > 0, 'the points of refused names are counted');
  t.same(ingest.drops.own, {}, "none of the controller's own dropped");
});
