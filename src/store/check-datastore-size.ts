// `edgeblocks check` on the datastore's size: a store already past its bound (DATASTORE_BYTES),
// said as the start says it (pastBoundWarning). The check runs as root beside the service, so it
// neither opens the database in the data dir (even a read-only open makes -wal and -shm files
// there, root's, that the service then cannot use) nor takes its lock.
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DATASTORE_BYTES } from '../shared/limits.js';
import { DB_FILE } from './db.js';
import { pastBoundWarning } from './documents.js';
import Database from './sqlite.js';

const sizeOf = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/**
 * The start's warning of a store past its bound, or null. Cheap where it cannot be past it: the
 * documents' text is inside the database file and its -wal, so files no larger than the bound
 * are not read at all. A larger one is copied (with its -wal, what the service wrote last) to a
 * temporary dir, read there, and the copy removed whatever happens. A copy that cannot be made
 * (no room in the temporary dir, TMPDIR not a dir) is said, with the reason: the size was not
 * checked. A file that cannot be read or is damaged once copied (a start reports it in its own
 * words) is no warning of this one.
 */
export function checkDatastoreSize(dataDir: string): string | null {
  const file = path.join(dataDir, DB_FILE);
  const size = sizeOf(file) + sizeOf(`${file}-wal`);
  if (size <= DATASTORE_BYTES) return null;
  let dir: string | null = null;
  try {
    let copy: string;
    try {
      dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-check-'));
      copy = path.join(dir, DB_FILE);
      copyFileSync(file, copy);
      if (sizeOf(`${file}-wal`) > 0) copyFileSync(`${file}-wal`, `${copy}-wal`);
    } catch (e) {
      const reason = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      return `the datastore's size was not checked: ${file} (${size} bytes with its -wal, over ${DATASTORE_BYTES}) is read from a copy in ${tmpdir()}, which could not be made (${reason}); the service still starts. Give the check a temporary dir with room (TMPDIR=DIR) to check it`;
    }
    const db = new Database(copy, { fileMustExist: true });
    try {
      return pastBoundWarning(db);
    } finally {
      db.close();
    }
  } catch {
    return null;
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
