// The embedded store's field ids in memory: one id per field name however it is reached, new ids
// reported once, last-seen times kept, and what the names file lacks (new names, and last-seen
// times an hour past the stored one).
import t from 'tap';
import { FieldIds } from '../../src/history/embedded/field-ids.js';

const HOUR = 3_600_000;

t.test('a field gets one id by key and field or by full name, and a new one is reported once', async (t) => {
  const ids = new FieldIds();
  const created: number[] = [];
  const spark = ids.keyFields('spark');
  const a = ids.idInKey(spark, 'spark', 'Beer Sensor/value', (id) => created.push(id));
  const again = ids.idInKey(ids.keyFields('spark'), 'spark', 'Beer Sensor/value', (id) => created.push(id));
  t.equal(again, a);
  t.same(created, [a]);
  t.equal(ids.idFor('spark/Beer Sensor/value'), a, 'the full name finds the same id');
  t.equal(ids.byName.get('spark/Beer Sensor/value'), a);
  const b = ids.idInKey(ids.keyFields('other'), 'other', 'Beer Sensor/value');
  t.not(b, a, 'the same field under another key is another series');
  t.equal(ids.size, 2);
});

t.test('ids loaded from the names file are kept, and new ones do not reuse them', async (t) => {
  const ids = new FieldIds();
  ids.load([
    { id: 1, name: 'spark/a', last: 0 },
    { id: 5, name: 'spark/b', last: 0 },
  ]);
  t.equal(ids.idFor('spark/b'), 5);
  const fresh = [ids.idFor('spark/c'), ids.idFor('spark/d'), ids.idFor('spark/e'), ids.idFor('spark/f')];
  t.notOk(fresh.includes(1) || fresh.includes(5), `new ids ${fresh} avoid the loaded 1 and 5`);
  t.equal(new Set(fresh).size, 4);
});

t.test('last-seen times: kept per id, saved when new or an hour past the stored time', async (t) => {
  const ids = new FieldIds();
  ids.load([{ id: 1, name: 'spark/a', last: 10 * HOUR }]);
  const b = ids.idFor('spark/b');
  ids.seen(1, 10 * HOUR + 5);
  ids.seen(b, 10 * HOUR + 7);
  t.equal(ids.lastSeenOf(1), 10 * HOUR + 5);
  t.equal(ids.lastSeenOf(999), undefined);
  t.same(
    ids.toSave(11 * HOUR),
    [{ id: b, name: 'spark/b', last: 10 * HOUR + 7 }],
    'the new name; a minutes-old time is not',
  );
  ids.saved(ids.toSave(11 * HOUR));
  t.same(ids.toSave(11 * HOUR), [], 'nothing left once saved');
  ids.seen(1, 12 * HOUR);
  t.same(ids.toSave(12 * HOUR), [{ id: 1, name: 'spark/a', last: 12 * HOUR }], 'an hour past the stored time');
  t.same(ids.seenSince(11 * HOUR), ['spark/a'], 'only a was seen since 11 h');
  t.same(ids.seenSince(0), ['spark/a', 'spark/b']);
});

t.test('names are user text: quotes, unicode and slashes come back as written', async (t) => {
  const ids = new FieldIds();
  const key = 'Gärkeller "2"';
  const field = 'Bier/Fühler \\ 1/value[°C]';
  const id = ids.idInKey(ids.keyFields(key), key, field);
  t.equal(ids.byName.get(`${key}/${field}`), id);
  ids.seen(id, 5);
  t.same(ids.toSave(10), [{ id, name: `${key}/${field}`, last: 5 }]);
  t.same(ids.seenSince(0), [`${key}/${field}`]);
});

// With the names full, every message of a new key left an empty map behind (removed only when
// names went stale): junk keys grew the store's memory without bound.
t.test('a key whose fields are all refused (names full) is not held', async (t) => {
  const ids = new FieldIds();
  const kept = ids.idInKey(ids.keyFields('spark'), 'spark', 'a', undefined, 1);
  t.equal(typeof kept, 'number');
  const given = Array.from({ length: 1000 }, (_, i) =>
    ids.idInKey(ids.keyFields(`junk ${i}`), `junk ${i}`, 'f', undefined, 1),
  ).filter((id) => id !== undefined);
  t.same(given, [], 'the names are full: no junk field gets an id');
  t.equal(ids.keys, 1, 'only the key with a field is held');
  t.equal(ids.size, 1);
  t.equal(ids.idInKey(ids.keyFields('spark'), 'spark', 'a', undefined, 1), kept, 'a held field still finds its id');
  const own = ids.idInKey(ids.keyFields('own'), 'own', 'b');
  t.equal(ids.idInKey(ids.keyFields('own'), 'own', 'b'), own, 'a key taken on its first field is held');
  t.equal(ids.keys, 2);
});
