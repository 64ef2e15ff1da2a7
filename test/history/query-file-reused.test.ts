// A query of the embedded store reads the records as they were when it began (a CSV export held
// by a slow client reads them for minutes). A record whose file went meanwhile (the size cap,
// retention) is skipped: the check was by file name, and a file that went is made again under
// the same name by the next record of its period (the size cap binding takes the current file
// of a tier again and again). The query then read the old record's bytes at its old place in the
// new file: another record's points, at the old record's times, or a short read that cut the
// export off.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { EmbeddedStore, type EmbeddedOptions } from '../../src/history/embedded/embedded-store.js';
import type { RawSeries } from '../../src/history/store.js';
import { silentLogger } from '../../src/log.js';

t.test('a record whose file went and came back under its name is not read from the new file', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-file-reused-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const hour = Date.UTC(2026, 0, 2, 10);
  const clock = { now: hour };
  const opts: EmbeddedOptions = {
    dataDir: dir,
    now: () => clock.now,
    flushIntervalMs: 60_000,
    retentionMs: 30 * 86_400_000,
    maxBytes: 1e10,
    log: silentLogger,
  };
  const store = new EmbeddedStore(opts);
  t.teardown(() => store.close());
  // Three batches of one hour's file: values 0.., 1000.., 2000.. (the same count, so records of a size).
  const batch = (n: number) => {
    for (let i = 0; i < 50; i++) {
      clock.now = hour + n * 60_000 + i * 1000;
      store.write('k', [['a', n * 1000 + i]], clock.now);
    }
  };
  batch(0);
  store.flushSync();
  const oneRecord = store.usedBytes();

  // The export begins: its records are the first one.
  const slices = store.rawSlices(['k/a'], hour, hour + 3_600_000)[Symbol.asyncIterator]();

  // The cap now holds one record: the second one takes the file over it, and the file goes...
  opts.maxBytes = oneRecord + 100;
  batch(1);
  store.flushSync();
  // ...and the third makes it again, under the same name.
  batch(2);
  store.flushSync();
  t.equal(store.usedBytes(), oneRecord, 'the hour file is back with one record');

  const got: RawSeries[] = [];
  let failed: unknown = null;
  try {
    for (let r = await slices.next(); !r.done; r = await slices.next()) got.push(...r.value);
  } catch (e) {
    failed = e;
  }
  t.equal(failed, null, 'the query did not fail');
  const values = got.flatMap((s) => s.v);
  t.notOk(
    values.some((v) => v >= 2000),
    `no point of the record written after the query began (${values.filter((v) => v >= 2000).length} read)`,
  );
  t.ok(
    values.every((v) => (v >= 0 && v < 50) || (v >= 1000 && v < 1050)),
    'only points the store held when the query began',
  );
});
