// The one SQLite database in the data dir (better-sqlite3, WAL). synchronous=FULL makes every
// committed change durable before the caller answers, power loss included.
import Database, { type BetterSqlite3 } from './sqlite.js';
import path from 'node:path';
import { privateDir, privateFile } from './file-modes.js';
import { MIGRATIONS } from './migrations.js';
import { diskSpace, isDiskFull, ROOM_NEEDED_BYTES } from './storage-health.js';

export type Db = BetterSqlite3.Database;

export const DB_FILE = 'edgeblocks.db';

export function openDatabase(dataDir: string): Db {
  privateDir(dataDir);
  const file = path.join(dataDir, DB_FILE);
  // SQLite creates the -wal and -shm files with the mode of the database file.
  privateFile(file, true);
  for (const suffix of ['-wal', '-shm']) privateFile(file + suffix);
  try {
    return open(file, false);
  } catch (e) {
    if (!onFullDisk(dataDir, e)) throw e;
    // A start on a full disk (a Pi rebooted with its card full): SQLite cannot make the -shm
    // file that WAL keeps its index in. In exclusive locking mode WAL keeps the index in memory,
    // so the service starts and controls (changes are refused, 507, until there is room); until
    // its next start no other process can open the database.
    return open(file, true);
  }
}

function open(file: string, exclusive: boolean): Db {
  const db = new Database(file);
  try {
    if (exclusive) db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/** An open that failed for a full disk: SQLITE_FULL, or an I/O error while the data dir has no room. */
function onFullDisk(dataDir: string, e: unknown): boolean {
  if (isDiskFull(e)) return true;
  const code = (e as { code?: unknown } | null)?.code;
  const free = diskSpace(dataDir)?.freeBytes;
  return typeof code === 'string' && code.startsWith('SQLITE_IOERR') && free !== undefined && free < ROOM_NEEDED_BYTES;
}

export function migrate(db: Db, migrations = MIGRATIONS): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(
      `database schema version ${current} is newer than this edgeblocks (${migrations.length}); upgrade edgeblocks`,
    );
  }
  for (let v = current; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return migrations.length;
}
