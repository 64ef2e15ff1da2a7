// Format versions of the embedded store: a format-1 SQLite database (history.sqlite) is migrated
// with every point, a history directory of an unknown format is refused naming it and left as
// it was, and a torn record at the end of a segment is cut off on open.
import t from 'tap';
import Database from '../../src/store/sqlite.js';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { silentLogger, type Logger } from '../../src/log.js';
import { EmbeddedStore, HISTORY_DIR, LEGACY_DB_FILE } from '../../src/history/embedded/embedded-store.js';
import { timeBytes, transposed, uvarint, xorWords } from '../helpers/chunk-bytes.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

function store(dataDir: string, log: Logger = silentLogger, now = T0 + DAY) {
  return new EmbeddedStore({
    dataDir,
    now: () => now,
    flushIntervalMs: 60_000,
    retentionMs: 365 * DAY,
    maxBytes: 1e9,
    log,
  });
}

/** A version-1 chunk as format 1 wrote it: per series id, count, delta-of-delta times; XOR-ed values byte-transposed; deflated. */
function v1Chunk(base: number, series: Array<{ id: number; t: number[]; v: number[] }>): Buffer {
  const out: number[] = [1, ...uvarint(series.length)];
  const words: bigint[] = [];
  for (const s of series) {
    out.push(...uvarint(s.id), ...uvarint(s.t.length), ...timeBytes(base, s.t));
    words.push(...xorWords(s.v));
  }
  out.push(...transposed(words));
  return deflateRawSync(Buffer.from(out));
}

t.test('a format-1 database is migrated with every point and kept aside', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-v1-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = new Database(path.join(dir, LEGACY_DB_FILE));
  db.exec(`CREATE TABLE fields (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, last INTEGER NOT NULL);
    CREATE TABLE chunks (tier INTEGER NOT NULL, t0 INTEGER NOT NULL, t1 INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (tier, t0)) WITHOUT ROWID;`);
  db.prepare('INSERT INTO fields VALUES (?, ?, ?)').run(1, 'k/a', T0 + 600_000);
  db.prepare('INSERT INTO fields VALUES (?, ?, ?)').run(2, 'k/b', T0 + 600_000);
  const times = Array.from({ length: 120 }, (_, i) => T0 + 5000 * (i + 1));
  const a = times.map((_, i) => 20 + Math.sin(i) / 3);
  const b = times.map((_, i) => i % 2);
  db.prepare('INSERT INTO chunks VALUES (?, ?, ?, ?)').run(
    0,
    times[0],
    times.at(-1),
    v1Chunk(times[0]!, [
      { id: 1, t: times, v: a },
      { id: 2, t: times, v: b },
    ]),
  );
  db.close();

  const s = store(dir, silentLogger, T0 + 700_000);
  t.teardown(() => s.close());
  t.equal(s.status().ok, true, String(s.status().error));
  t.ok(existsSync(path.join(dir, `${LEGACY_DB_FILE}.v1-migrated`)), 'the old file is kept, renamed');
  t.notOk(existsSync(path.join(dir, LEGACY_DB_FILE)));
  t.same(await s.fields(T0), ['k/a', 'k/b']);
  const raw = await s.raw(['k/a', 'k/b'], T0, T0 + 700_000);
  t.same(
    raw,
    [
      { field: 'k/a', t: times, v: a },
      { field: 'k/b', t: times, v: b },
    ],
    'every point migrated, values exact',
  );
});

t.test('a history directory of another format is refused, named, and left alone', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-v99-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, HISTORY_DIR));
  writeFileSync(path.join(dir, HISTORY_DIR, 'FORMAT'), '99\n');
  writeFileSync(path.join(dir, HISTORY_DIR, 't0-0.seg'), 'future data');
  const errors: string[] = [];
  const log = {
    ...silentLogger,
    error: (_o: unknown, msg: string) => errors.push(msg),
    child: () => log,
  } as unknown as Logger;
  const s = store(dir, log);
  t.teardown(() => s.close());
  s.write('k', [['a', 1]], T0 + DAY);
  s.flushSync();
  t.equal(s.status().ok, false);
  t.match(errors[0], new RegExp(`history format 99.*reads format 2`));
  t.ok(errors[0]!.includes(path.join(dir, HISTORY_DIR)), 'the error names the directory');
  t.same(readdirSync(path.join(dir, HISTORY_DIR)).sort(), ['FORMAT', 't0-0.seg'], 'nothing added or removed');
  t.equal(readFileSync(path.join(dir, HISTORY_DIR, 't0-0.seg'), 'utf8'), 'future data');
});

t.test('a torn record at the end of a segment is cut off; the records before it read', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-torn-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  let now = T0;
  const first = new EmbeddedStore({
    dataDir: dir,
    now: () => now,
    flushIntervalMs: 60_000,
    retentionMs: 365 * DAY,
    maxBytes: 1e9,
    log: silentLogger,
  });
  for (let i = 0; i < 24; i++) {
    now += 5000;
    first.write('k', [['a', i]], now);
    if (i % 12 === 11) first.flushSync();
  }
  await first.close();
  const seg = readdirSync(path.join(dir, HISTORY_DIR)).find((f) => f.startsWith('t0-'))!;
  appendFileSync(path.join(dir, HISTORY_DIR, seg), Buffer.from('EBH2 torn write'));
  const warnings: string[] = [];
  const log = {
    ...silentLogger,
    warn: (_o: unknown, msg: string) => warnings.push(msg),
    child: () => log,
  } as unknown as Logger;
  const second = new EmbeddedStore({
    dataDir: dir,
    now: () => now,
    flushIntervalMs: 60_000,
    retentionMs: 365 * DAY,
    maxBytes: 1e9,
    log,
  });
  t.teardown(() => second.close());
  t.match(warnings[0], /torn record.*cut off/);
  const raw = await second.raw(['k/a'], T0, now);
  t.same(
    raw[0]!.v,
    Array.from({ length: 24 }, (_, i) => i),
    'both flushes read back',
  );
  t.equal(readFileSync(path.join(dir, HISTORY_DIR, seg)).length % 4096, 0, 'the file is page-aligned again');
});
