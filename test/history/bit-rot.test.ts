// Bit rot in the embedded store's segment files (SD cards rot in the middle too): a bad record
// between good ones is skipped, counted in the status and logged once, the file is left as it
// is and later appends go after its end; a torn tail is still cut off, with a warning naming the
// file and the bytes cut. Each file is written by the store itself, then damaged, then reopened.
import t, { type Test } from 'tap';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger, type Logger } from '../../src/log.js';
import { EmbeddedStore, HISTORY_DIR } from '../../src/history/embedded/embedded-store.js';
import { HEADER, PAGE, scanSegments, type RecordRef } from '../../src/history/embedded/segments.js';
import { startApp } from '../helpers/app.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MIN = 60_000;
const FLUSHES = 16;
const PER_FLUSH = 12;
const NOISE_FIELDS = 150;

interface Written {
  dir: string;
  /** Path of the raw segment file. */
  file: string;
  /** Its records in file order; record i holds flush i. */
  records: RecordRef[];
  /** The store's clock (after the last write). */
  now: number;
}

function open(dataDir: string, now: number | (() => number), log: Logger = silentLogger) {
  return new EmbeddedStore({
    dataDir,
    now: typeof now === 'number' ? () => now : now,
    flushIntervalMs: 60_000,
    retentionMs: 365 * DAY,
    maxBytes: 1e9,
    log,
  });
}

/** A warn-capturing logger. */
function warnings(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = {
    ...silentLogger,
    warn: (_o: unknown, msg: string) => lines.push(msg),
    child: () => log,
  } as unknown as Logger;
  return { log, lines };
}

const value = (flush: number, j: number) => flush * PER_FLUSH + j;

/**
 * An hour's raw file of FLUSHES flushes, each a minute of 5-second points of `k/a`; odd flushes
 * also carry noisy fields so their records span several pages. The store is then dropped without
 * closing (a kill -9 after the last flush), so the tiers are still to be rebuilt from the raw rows.
 */
function writeHour(dataDir: string, start: number, flushes = FLUSHES): Written {
  let now = start;
  const store = open(dataDir, () => now);
  let seed = 1;
  const noise = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 100;
  for (let i = 0; i < flushes; i++) {
    for (let j = 0; j < PER_FLUSH; j++) {
      now += 5000;
      store.write('k', [['a', value(i, j)]], now);
      if (i % 2)
        store.write(
          'n',
          Array.from({ length: NOISE_FIELDS }, (_, f) => [`x${f}`, noise()] as [string, number]),
          now,
        );
    }
    store.flushSync();
  }
  const hdir = path.join(dataDir, HISTORY_DIR);
  const name = readdirSync(hdir).find((f) => f.startsWith('t0-'))!;
  const [seg] = scanSegments(hdir, { onSkipped: () => undefined, onTorn: () => undefined }, false).filter(
    (s) => s.name === name,
  );
  return { dir: dataDir, file: path.join(hdir, name), records: seg!.records, now };
}

/** The values of `k/a` written by every flush but the lost ones. */
function expected(lost: Set<number>, flushes = FLUSHES): number[] {
  const out: number[] = [];
  for (let i = 0; i < flushes; i++) if (!lost.has(i)) for (let j = 0; j < PER_FLUSH; j++) out.push(value(i, j));
  return out;
}

const recordStart = (r: RecordRef) => r.offset - HEADER;

/** Flushes whose record's header or body overlaps the byte range [from, to). */
function hit(w: Written, from: number, to: number): Set<number> {
  return new Set(w.records.flatMap((r, i) => (recordStart(r) < to && r.offset + r.length > from ? [i] : [])));
}

function tmp(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-rot-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Reopen after the damage: all other rows read back, one skipped record counted and logged once, the file unchanged; an append goes after its end. */
async function checkSkipped(t: Test, w: Written, lost: Set<number>) {
  const damaged = readFileSync(w.file);
  const { log, lines } = warnings();
  const second = open(w.dir, w.now, log);
  const raw = await second.raw(['k/a'], w.now - HOUR, w.now);
  t.same(raw[0]?.v, expected(lost), `every row but flush ${[...lost]} reads back`);
  const [bad] = lost;
  const bytes = recordStart(w.records[bad! + 1]!) - recordStart(w.records[bad!]!);
  t.same(
    second.status().corruptRecords,
    { count: 1, files: [{ file: path.basename(w.file), records: 1, bytes }] },
    `one bad record counted, by file, with its ${bytes} bytes`,
  );
  t.equal(lines.length, 1, 'logged once');
  t.match(lines[0], path.basename(w.file), 'the warning names the file');
  t.match(lines[0], /skipped/);
  t.ok(readFileSync(w.file).equals(damaged), 'the file is neither truncated nor rewritten');

  // An append after the skipped record goes after the file's end, and everything reads back.
  const later = w.now + 5000;
  second.write('k', [['a', -1]], later);
  second.flushSync();
  t.equal(statSync(w.file).size, damaged.length + PAGE, 'the next record is appended at the end');
  t.ok(readFileSync(w.file).subarray(0, damaged.length).equals(damaged), 'and nothing before it changed');
  const third = open(w.dir, later);
  const again = await third.raw(['k/a'], w.now - HOUR, later);
  t.same(again[0]?.v, [...expected(lost), -1], 'after a second restart the new row reads back too');
  t.equal((third.status().corruptRecords as { count: number }).count, 1, 'still one bad record counted');
  await second.close();
  await third.close();
}

const T0 = Date.UTC(2026, 0, 1);

t.test('flipped bytes in the middle record: only that record is lost', async (t) => {
  const w = writeHour(tmp(t), T0);
  const mid = w.records[8]!;
  const buf = readFileSync(w.file);
  for (let k = 0; k < 16; k++) buf[mid.offset + Math.floor(mid.length / 2) + k]! ^= 0xff;
  writeFileSync(w.file, buf);
  await checkSkipped(t, w, new Set([8]));
});

t.test('zeros over a page at 40 KB: only the records it touches are lost', async (t) => {
  const w = writeHour(tmp(t), T0);
  t.ok(statSync(w.file).size > 80 * 1024, 'the file runs well past 40 KB');
  const lost = hit(w, 40 * 1024, 44 * 1024);
  t.equal(lost.size, 1, `the page at 40 KB holds part of flush ${[...lost]}`);
  const buf = readFileSync(w.file);
  buf.fill(0, 40 * 1024, 44 * 1024);
  writeFileSync(w.file, buf);
  await checkSkipped(t, w, lost);
});

t.test(
  'zeros over the first page of a record of several pages: its other pages are not taken for records',
  async (t) => {
    const w = writeHour(tmp(t), T0);
    const big = w.records.findIndex((r, i) => i > 2 && HEADER + r.length > PAGE);
    const buf = readFileSync(w.file);
    buf.fill(0, recordStart(w.records[big]!), recordStart(w.records[big]!) + PAGE);
    writeFileSync(w.file, buf);
    await checkSkipped(t, w, new Set([big]));
  },
);

for (const [what, flip] of [
  ['one page longer', (n: number) => n + PAGE],
  ['a high bit set', (n: number) => n ^ 0x40000000],
  ['halved', (n: number) => n >>> 1],
] as const) {
  t.test(`a flipped length field (${what}) does not make the scan jump wrong`, async (t) => {
    const w = writeHour(tmp(t), T0);
    // A record of one page followed by one of several: a jump by the wrong length lands inside the next record.
    const m = w.records.findIndex(
      (r, i) => i > 2 && HEADER + r.length <= PAGE && HEADER + w.records[i + 1]!.length > PAGE,
    );
    const buf = readFileSync(w.file);
    const at = recordStart(w.records[m]!) + 4;
    buf.writeUInt32LE(flip(buf.readUInt32LE(at)), at);
    writeFileSync(w.file, buf);
    await checkSkipped(t, w, new Set([m]));
  });
}

// The body's CRC does not cover the header: a flipped bit in a record's tier, layout or times
// filed its points elsewhere (or nowhere) and a wrong layout failed every query over the hour
// with 503 "chunk truncated", while the status counted no bad record.
for (const [what, at, bit] of [
  ['tier', 12, 0x01],
  ['layout', 13, 0x01],
  ['start time, 4 seconds', 19, 0x01],
  ['start time, days', 21, 0x01],
  ['end time, days later', 29, 0x01],
  ['end time, a fraction of a millisecond', 24, 0x01],
] as const) {
  t.test(`a flipped bit in the header's ${what}: that record is skipped and counted`, async (t) => {
    const w = writeHour(tmp(t), T0);
    const buf = readFileSync(w.file);
    buf[recordStart(w.records[8]!) + at]! ^= bit;
    writeFileSync(w.file, buf);
    await checkSkipped(t, w, new Set([8]));
  });
}

t.test('records written before the header check (bytes 14-15 zero) read back whole', async (t) => {
  const w = writeHour(tmp(t), T0);
  const buf = readFileSync(w.file);
  for (const r of w.records) buf.writeUInt16LE(0, recordStart(r) + 14);
  writeFileSync(w.file, buf);
  const { log, lines } = warnings();
  const second = open(w.dir, w.now, log);
  t.teardown(() => second.close());
  const raw = await second.raw(['k/a'], w.now - HOUR, w.now);
  t.same(raw[0]?.v, expected(new Set()), 'every row reads back');
  t.same(second.status().corruptRecords, { count: 0, files: [] });
  t.same(lines, [], 'nothing logged');
});

// A damaged line of the names file lost its field's name, and the next new field took its id:
// the new field's history began with the old field's points.
t.test('a damaged line of the names file: a new field does not take its id', async (t) => {
  const dataDir = tmp(t);
  let now = T0;
  const first = open(dataDir, () => now);
  now += 5000;
  first.write('k', [['a', 1]], now);
  now += 5000;
  first.write('k', [['old', 666]], now);
  first.flushSync();
  await first.close();
  const names = path.join(dataDir, HISTORY_DIR, 'fields.jsonl');
  const text = readFileSync(names, 'utf8');
  const at = text.indexOf('"k/old"');
  t.ok(at > 0, 'the newest field is on the last line');
  writeFileSync(names, `${text.slice(0, at)}#${text.slice(at + 1)}`);

  const { log, lines } = warnings();
  now += 5000;
  const second = open(dataDir, () => now, log);
  t.ok(
    lines.some((l) => l.includes(names) && /1 line/.test(l)),
    'a warning names the file and the lines that do not read',
  );
  second.write('k', [['new', 7]], now);
  second.flushSync();
  const fresh = await second.raw(['k/new'], T0, now);
  t.same(fresh[0]?.v, [7], "the new field's history holds its own point only");
  await second.close();

  now += 5000;
  const third = open(dataDir, () => now);
  t.teardown(() => third.close());
  third.write('k', [['newer', 8]], now);
  third.flushSync();
  t.same((await third.raw(['k/newer'], T0, now))[0]?.v, [8], 'nor after another restart');
  // The damaged field's records are still there: a restart reads its id back from them, with no name.
  t.same(
    readFileSync(names, 'utf8')
      .split('\n')
      .filter((l) => l.includes('null')),
    [],
    'no line without a name was added for the id',
  );
  t.same((await third.raw(['k/a'], T0, now))[0]?.v, [1], 'the other fields read as before');
});

t.test('a truncated tail is cut off with a warning naming the file and the bytes cut', async (t) => {
  const w = writeHour(tmp(t), T0);
  const last = w.records.at(-1)!;
  t.ok(HEADER + last.length > PAGE, 'the last record spans pages');
  const cutAt = recordStart(last) + PAGE + 100;
  truncateSync(w.file, cutAt);
  const { log, lines } = warnings();
  const second = open(w.dir, w.now, log);
  t.teardown(() => second.close());
  const raw = await second.raw(['k/a'], w.now - HOUR, w.now);
  t.same(raw[0]?.v, expected(new Set([FLUSHES - 1])), 'every record before the torn one reads back');
  t.equal(lines.length, 1);
  t.match(lines[0], w.file, 'the warning names the file');
  t.match(lines[0], `cut off ${PAGE + 100} bytes`, 'and the bytes cut');
  t.equal(statSync(w.file).size, recordStart(last), 'the file ends after its last good record');
  t.same(second.status().corruptRecords, { count: 0, files: [] }, 'a torn tail is crash recovery, not a bad record');
});

t.test('a bad record in the middle and a torn tail: the middle one is skipped, the tail cut', async (t) => {
  const w = writeHour(tmp(t), T0);
  const buf = readFileSync(w.file);
  buf[w.records[5]!.offset + 10]! ^= 0x01;
  writeFileSync(w.file, buf.subarray(0, recordStart(w.records.at(-1)!) + 300));
  const { log, lines } = warnings();
  const second = open(w.dir, w.now, log);
  t.teardown(() => second.close());
  const raw = await second.raw(['k/a'], w.now - HOUR, w.now);
  t.same(raw[0]?.v, expected(new Set([5, FLUSHES - 1])));
  t.equal((second.status().corruptRecords as { count: number }).count, 1);
  t.equal(lines.length, 2, 'one warning each');
  t.equal(statSync(w.file).size, recordStart(w.records.at(-1)!), 'only the tail is cut');
});

t.test('the tiers are rebuilt from the raw rows around a skipped record', async (t) => {
  const w = writeHour(tmp(t), T0);
  const buf = readFileSync(w.file);
  for (let k = 0; k < 8; k++) buf[w.records[8]!.offset + 40 + k]! ^= 0x5a;
  writeFileSync(w.file, buf);
  // Seven hours later the minute and ten-minute buckets of that hour are complete and written.
  const later = w.now + 7 * HOUR;
  const second = open(w.dir, later);
  t.teardown(() => second.close());
  second.flushSync();
  const minutes = second.tierPoints(1, 'k/a', T0, T0 + HOUR);
  const want = [...Array(FLUSHES).keys()].filter((i) => i !== 8);
  t.same(
    minutes.t,
    want.map((i) => T0 + (i + 1) * MIN),
    'one minute bucket per flush but the skipped one',
  );
  t.same(
    minutes.v,
    want.map((i) => value(i, 0) + (PER_FLUSH - 1) / 2),
    'each the mean of its raw rows',
  );
  const tens = second.tierPoints(2, 'k/a', T0, T0 + HOUR);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rows = (from: number, to: number) =>
    want.filter((i) => i >= from && i < to).flatMap((i) => Array.from({ length: PER_FLUSH }, (_, j) => value(i, j)));
  t.same(
    tens,
    { t: [T0 + 10 * MIN, T0 + 20 * MIN], v: [mean(rows(0, 10)), mean(rows(10, 20))] },
    'ten-minute buckets of the rows that are left',
  );
});

t.test('system/status of the running app reports the skipped record', async (t) => {
  const dataDir = tmp(t);
  const start = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
  const w = writeHour(dataDir, start);
  const buf = readFileSync(w.file);
  buf[w.records[7]!.offset + 3]! ^= 0x80;
  writeFileSync(w.file, buf);
  const { log, lines } = warnings();
  const app = await startApp({}, { dataDir, log });
  t.teardown(() => app.close());
  const status = (await (await fetch(`${app.base}/system/status`)).json()) as { history: { corruptRecords: unknown } };
  t.same(status.history.corruptRecords, {
    count: 1,
    files: [
      { file: path.basename(w.file), records: 1, bytes: PAGE * Math.ceil((HEADER + w.records[7]!.length) / PAGE) },
    ],
  });
  t.ok(
    lines.some((l) => l.includes(path.basename(w.file)) && /skipped/.test(l)),
    'and the log names the file',
  );
  const res = await fetch(`${new URL(app.base).origin}/history/timeseries/csv`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fields: ['k/a'], precision: 'ms', duration: '3h' }),
  });
  const rows = (await res.text()).trim().split('\n').slice(1);
  t.equal(rows.length, (FLUSHES - 1) * PER_FLUSH, 'the API serves every row but those of the bad record');
});
