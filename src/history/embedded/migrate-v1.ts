// Format 1 of the embedded history store was one SQLite database, history.sqlite: a `fields`
// table (id, name, last) and a `chunks` table (tier, t0, t1, data: a version-1 chunk of all
// series). Opening a data dir that has it and no history directory copies every field and chunk
// into a new directory (built aside, renamed into place when complete), then renames the old
// file to history.sqlite.v1-migrated, kept for the user to delete. A failure leaves the old file
// untouched and names it in the error.
import Database from '../../store/sqlite.js';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Logger } from '../../log.js';
import { decodeChunk, encodeChunk } from './chunk-codec.js';
import { encodeSeriesBlocks } from './series-blocks.js';
import { appendNames } from './field-names.js';
import { appendRecord, ensureDir, layoutOf, segmentFor, type SegmentFile } from './segments.js';

export function migrateV1(file: string, dir: string, log: Logger): void {
  const tmp = `${dir}.migrating`;
  try {
    rmSync(tmp, { recursive: true, force: true });
    ensureDir(tmp);
    writeFileSync(`${tmp}/FORMAT`, '2\n');
    // Read-write, so SQLite replays a WAL left by a crash before it is read.
    const db = new Database(file);
    let chunks = 0;
    try {
      const fields = db.prepare('SELECT id, name, last FROM fields').all() as Array<{
        id: number;
        name: string;
        last: number;
      }>;
      appendNames(tmp, fields);
      const segs = new Map<string, SegmentFile>();
      for (const row of db
        .prepare('SELECT tier, t0, t1, data FROM chunks ORDER BY tier, t0')
        .iterate() as IterableIterator<{ tier: number; t0: number; t1: number; data: Buffer }>) {
        const series = decodeChunk(row.t0, row.data, undefined, 'deflate');
        if (!series.length || row.tier > 2) continue;
        const body = row.tier === 0 ? encodeChunk(row.t0, series) : encodeSeriesBlocks(row.t0, series);
        appendRecord(tmp, segmentFor(segs, row.tier, row.t0), layoutOf(row.tier), row.t0, row.t1, body);
        chunks++;
      }
    } finally {
      db.close();
    }
    renameSync(tmp, dir);
    renameSync(file, `${file}.v1-migrated`);
    log.info(
      { file, dir, chunks },
      'history: migrated the format-1 database; the old file is kept as history.sqlite.v1-migrated and may be deleted',
    );
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`cannot migrate ${file} to ${dir} (the old file is untouched): ${(e as Error).message}`);
  }
}
