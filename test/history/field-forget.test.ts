// The built-in history kept every field name it had ever seen, in memory and in fields.jsonl,
// after its points had expired: blocks created and deleted (or renamed, or a unit switched) left
// some 1.4 KB each for ever, and the names file counts toward historyMaxBytes, so in time it
// pushed out the points it was kept for. A field not seen for longer than the longest tier keeps
// its points is now forgotten; ids are never given twice, so a new field never shows another's
// history, also when damaged lines of the names file hide which ids they held.
import t, { type Test } from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/log.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { EmbeddedStore, HISTORY_DIR } from '../../src/history/embedded/embedded-store.js';
import { NAMES_FILE } from '../../src/history/embedded/field-names.js';

const MIN = 60_000;
const DAY = 86_400_000;
const RETENTION = 3 * DAY;
const CHURN = 300;

function open(t: Test, dataDir: string, clock: ManualClock): EmbeddedStore {
  const store = new EmbeddedStore({
    dataDir,
    now: () => clock.wall()!,
    monotonic: () => clock.now(),
    flushIntervalMs: 600_000,
    retentionMs: RETENTION,
    maxBytes: 1e9,
    log: silentLogger,
  });
  t.teardown(() => store.close());
  return store;
}

/** `ms` of one steady field every minute, flushing every 10 minutes. */
function steady(store: EmbeddedStore, clock: ManualClock, ms: number) {
  for (let i = 0; i < ms / MIN; i++) {
    clock.advance(MIN);
    store.write('edge-one', [['Beer Sensor/value[degC]', 20]], clock.wall()!);
    if (i % 10 === 9) store.flushSync();
  }
  store.flushSync();
}

const namesLines = (dataDir: string) =>
  readFileSync(path.join(dataDir, HISTORY_DIR, NAMES_FILE), 'utf8')
    .split('\n')
    .filter(Boolean);

/**
 * A store whose 20 old fields (ids 2-21) expired and were forgotten, then a field `k/kept` (the
 * highest id, its point still kept) written and flushed.
 */
function oldFieldsThenKept(t: Test) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-forget-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const clock = new ManualClock(0, Date.UTC(2026, 0, 1));
  const first = open(t, dataDir, clock);
  first.write('edge-one', [['Beer Sensor/value[degC]', 20]], clock.wall()!);
  for (let i = 0; i < 20; i++) {
    clock.advance(1000);
    first.write('k', [[`old ${i}`, i]], clock.wall()!);
  }
  steady(first, clock, RETENTION + 2 * DAY);
  clock.advance(1000);
  first.write('k', [['kept', 666]], clock.wall()!);
  first.flushSync();
  return { dataDir, clock, first };
}

/**
 * Damages the names-file line of `k/kept`, opens the store again and writes 30 new fields: none
 * may read back another field's points (an id given twice). Returns the reopened store.
 */
async function damageKeptAndAddFresh(t: Test, dataDir: string, clock: ManualClock): Promise<EmbeddedStore> {
  const file = path.join(dataDir, HISTORY_DIR, NAMES_FILE);
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf('"k/kept"');
  t.ok(at > 0, 'the line of k/kept is in the names file');
  writeFileSync(file, `${text.slice(0, at)}#${text.slice(at + 1)}`);
  clock.advance(1000);
  const second = open(t, dataDir, clock);
  const fresh = Array.from({ length: 30 }, (_, i) => `fresh ${i}`);
  second.write(
    'k',
    fresh.map((f, i) => [f, 1000 + i] as const),
    clock.wall()!,
  );
  second.flushSync();
  const read = await second.raw(
    fresh.map((f) => `k/${f}`),
    0,
    clock.wall()!,
  );
  t.same(
    read.filter((r) => r.v.length !== 1).map((r) => `${r.field}: ${r.v.join(' ')}`),
    [],
    "no new field's history holds another's points",
  );
  return second;
}

t.test('names of fields whose points expired are forgotten, in memory and on disk', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-forget-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const clock = new ManualClock(0, Date.UTC(2026, 0, 1));
  const store = open(t, dataDir, clock);
  // Blocks created and deleted: each field is written a few times, then never again.
  for (let i = 0; i < CHURN; i++) {
    clock.advance(1000);
    store.write('edge-one', [[`churn ${i}/value[degC]`, i]], clock.wall()!);
  }
  steady(store, clock, DAY);
  const churned = store.status().fields as number;
  t.equal(churned, CHURN + 1, 'while their points are kept, every field is known');
  t.ok(namesLines(dataDir).length >= CHURN + 1);

  steady(store, clock, RETENTION + 2 * DAY);
  t.ok((store.status().fields as number) <= 2, `${store.status().fields} fields known after the churned ones expired`);
  t.same(
    namesLines(dataDir).filter((l) => l.includes('churn')),
    [],
    `no line of ${NAMES_FILE} names a churned field`,
  );
  t.same(await store.fields(0), ['edge-one/Beer Sensor/value[degC]'], 'nor are they listed');
  t.equal(store.status().ok, true);

  // A field written again after it was forgotten is new: its history holds its own points only.
  const now = clock.wall()!;
  store.write('edge-one', [['churn 0/value[degC]', 77]], now);
  store.flushSync();
  t.same((await store.raw(['edge-one/churn 0/value[degC]'], 0, now))[0]?.v, [77]);
  await store.close();

  // After a restart: still few names, the steady field's history whole, and new fields own theirs.
  clock.advance(MIN);
  const again = open(t, dataDir, clock);
  t.ok((again.status().fields as number) <= 3, `${again.status().fields} fields known after a restart`);
  again.write('edge-one', [['New/value[degC]', 5]], clock.wall()!);
  again.flushSync();
  t.same((await again.raw(['edge-one/New/value[degC]'], 0, clock.wall()!))[0]?.v, [5], 'a new field: its own point');
  const beer = (await again.raw(['edge-one/Beer Sensor/value[degC]'], clock.wall()! - DAY, clock.wall()!))[0];
  t.equal(beer?.v.length, 24 * 60, 'the steady field keeps its last day of points');
});

t.test('a damaged line of the names file: forgetting others never hands its id to a new field', async (t) => {
  const { dataDir, clock, first } = oldFieldsThenKept(t);
  await first.close();
  // The newest field's line is damaged: its id is unknown from here on, its records are not.
  const second = await damageKeptAndAddFresh(t, dataDir, clock);

  // The fresh fields expire and are forgotten in turn: the damaged line stays as it is.
  steady(second, clock, RETENTION + 2 * DAY);
  t.same(
    namesLines(dataDir).filter((l) => l.includes('fresh')),
    [],
    `no line of ${NAMES_FILE} names a fresh field (the next free id is stated instead)`,
  );
  t.ok(
    namesLines(dataDir).some((l) => l.includes('#k/kept')),
    'the damaged line is kept as it is',
  );
});

// Every active field adds a line an hour (its last-seen time), and the file was compacted only
// at a start: a controller running for months grew it by some 200 KB a day at 100 fields.
t.test('while the store runs, the names file is compacted as its stale lines pile up', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-forget-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const clock = new ManualClock(0, Date.UTC(2026, 0, 1));
  const store = open(t, dataDir, clock);
  const fields = Array.from({ length: 20 }, (_, i) => `sensor ${i}/value[degC]`);
  for (let i = 0; i < (10 * DAY) / MIN; i++) {
    clock.advance(MIN);
    store.write(
      'edge-one',
      fields.map((f) => [f, i] as const),
      clock.wall()!,
    );
    if (i % 10 === 9) store.flushSync();
  }
  const lines = namesLines(dataDir).length;
  t.ok(lines <= 2 * fields.length + 100 + fields.length, `${lines} lines for ${fields.length} fields after 10 days`);
  t.equal(store.status().fields, fields.length);
  await store.close();
  const again = open(t, dataDir, clock);
  t.same(await again.fields(clock.wall()! - MIN), fields.map((f) => `edge-one/${f}`).sort(), 'all read back');
});

// Forgetting leaves gaps in the ids: the names file held [1, Beer] and [22, k/kept] only, and once
// kept's line was damaged the next start gave id 22 again (to the 20th new field, which then
// showed kept's points). The file now states the next free id, on two lines.
t.test('a damaged line of the highest id, with the ids below it forgotten: no new field takes it', async (t) => {
  const { dataDir, clock, first } = oldFieldsThenKept(t);
  // One more hourly tidy: the old field that was the highest id is forgotten too.
  steady(first, clock, 2 * 60 * MIN);
  await first.close();
  t.notOk(
    namesLines(dataDir).some((l) => l.includes('"k/old')),
    'every old field is forgotten',
  );
  await damageKeptAndAddFresh(t, dataDir, clock);
});
