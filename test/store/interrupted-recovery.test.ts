// A kill -9 (or a power cut) during the recovery of a damaged database (src/store/salvage.ts):
// the next start finishes it or starts it over, and still reports what was lost.
import t, { type Test } from 'tap';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/store/db.js';
import { forgetReport, type DamagedDatabase } from '../../src/store/salvage.js';

function dataDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-recovery-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A database with one block, closed. */
function withBlock(dir: string): void {
  const db = openDatabase(dir);
  db.prepare("INSERT INTO blocks (nid, id, type, data) VALUES (100, 'Beer Sensor', 'TempSensorMock', '{}')").run();
  db.close();
}

function spoilHeader(file: string): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(16, 0xa5), 0, 16, 0);
  closeSync(fd);
}

function open(dir: string): { ids: string[]; report: DamagedDatabase | null } {
  let report: DamagedDatabase | null = null;
  const db = openDatabase(dir, undefined, (r) => (report = r));
  const ids = db.prepare('SELECT id FROM blocks').pluck().all() as string[];
  // The start went on to raise the alert (src/alerts/index.ts).
  if (report) forgetReport(db);
  db.close();
  return { ids, report };
}

t.test('killed after the damaged file was set aside: the copy takes its place, with its report', async (t) => {
  // What the recovery leaves just before its last rename: the copy, holding the rows and the report.
  const made = dataDir(t);
  withBlock(made);
  const report: DamagedDatabase = {
    keptAs: 'edgeblocks.db.damaged-20261129T100000Z',
    reason: 'file is not a database',
    at: '2026-11-29T10:00:00.000Z',
    salvaged: { blocks: 1 },
    incomplete: ['documents'],
  };
  const db = openDatabase(made);
  db.prepare("INSERT INTO settings (key, value) VALUES ('damaged_database', ?)").run(JSON.stringify(report));
  db.close();
  const dir = dataDir(t);
  rmSync(path.join(dir, 'edgeblocks.db'), { force: true });
  copyFileSync(path.join(made, 'edgeblocks.db'), path.join(dir, 'edgeblocks.db.salvage'));
  const first = open(dir);
  t.same(first.ids, ['Beer Sensor'], 'the copy is the database, not a new empty one');
  t.same(first.report, report, 'what was lost is still told');
  t.notOk(existsSync(path.join(dir, 'edgeblocks.db.salvage')));
  t.equal(open(dir).report, null, 'told once');
});

t.test('killed while copying: the half-made copy is dropped and the recovery starts over', async (t) => {
  const dir = dataDir(t);
  withBlock(dir);
  spoilHeader(path.join(dir, 'edgeblocks.db'));
  writeFileSync(path.join(dir, 'edgeblocks.db.salvage'), 'half a database');
  const { ids, report } = open(dir);
  t.same(ids, [], 'nothing could be read of a file whose header is gone');
  t.match(report, { reason: /not a database/ });
  t.ok(report?.incomplete.includes('blocks'), 'and says so');
  t.same(
    readdirSync(dir)
      .filter((f) => f.startsWith('edgeblocks.db.'))
      .map((f) => f.replace(/\d{8}T\d{6}Z/, 'T')),
    ['edgeblocks.db.damaged-T'],
    'the damaged file is kept; no copy is left over',
  );
});
