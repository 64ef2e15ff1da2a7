// The stored record of the problems waiting out their `after` (src/alerts/pending-record.ts), read
// back from a real SQLite file that went bad in part: an entry whose count is below 1, not whole
// or not finite, or whose ages or progress are not numbers, is left out with one warning naming
// it, and the valid entries beside it go on as stored; a record that is not one at all is a warning too.
import t, { type Test } from 'tap';
import { PendingStore } from '../../src/alerts/pending-record.js';
import { tempDatabase } from '../helpers/temp-database.js';

const valid = { key: 'sensor-null:101', seenMs: 50_000, countedMs: 40_000, clearMs: null, count: 2 };

function storeWith(t: Test, value: string) {
  const { db } = tempDatabase(t, 'edgeblocks-pending-record-');
  db.prepare("INSERT INTO settings (key, value) VALUES ('alert-pending', ?)").run(value);
  const warnings: string[] = [];
  const store = new PendingStore(
    db,
    { now: () => 1_000_000, wall: () => null },
    () => false,
    (w) => warnings.push(w),
  );
  return { store, warnings };
}

t.test('entries with a count below 1, or not whole, or bad ages are left out, named; the rest go on', async (t) => {
  const bad = [
    { ...valid, key: 'sensor-null:102', count: -3 },
    { ...valid, key: 'sensor-null:103', count: 0 },
    { ...valid, key: 'sensor-null:104', count: 1.5 },
    { ...valid, key: 'sensor-null:105', seenMs: -1 },
    { ...valid, key: 'setpoint-band:106', toward: 'down', best: 'far' },
  ];
  // 1e999 is Infinity once parsed: a count past any number.
  const text = JSON.stringify({ pending: [valid, ...bad] }).replace(
    '"count":2}',
    '"count":2},{"key":"sensor-null:107","seenMs":1,"countedMs":1,"clearMs":null,"count":1e999}',
  );
  const { store, warnings } = storeWith(t, text);
  const loaded = store.load();
  t.same(
    loaded.map(([key]) => key),
    ['sensor-null:101'],
    'only the valid entry is restored',
  );
  t.same(
    loaded[0]![1],
    // The clock not set: the time stopped is not shown, so its ages are "at least" (stopUnknown).
    { firstSeenAt: 1_000_000 - 50_000, countedMs: 40_000, clearSince: null, count: 2, stopUnknown: true },
    'as it was stored',
  );
  t.equal(warnings.length, 1, 'one warning');
  t.match(
    warnings[0],
    /^6 of the 7 pending alerts in their stored record are not valid \(sensor-null:107: count Infinity; sensor-null:102: count -3; sensor-null:103: count 0; \.\.\.\): their times start again, the others go on$/,
  );
});

t.test('a record that is not one: a warning, nothing restored', async (t) => {
  for (const value of ['null', '[1]', '{"pending": 3}', '{not json']) {
    const { store, warnings } = storeWith(t, value);
    t.same(store.load(), [], `${value}: nothing restored`);
    t.match(warnings, [/the pending alerts record is not valid/], `${value}: said so`);
  }
});
