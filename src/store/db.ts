// The one SQLite database in the data dir (better-sqlite3, WAL). synchronous=FULL makes every
// committed change durable before the caller answers, power loss included.
import Database, { type BetterSqlite3 } from './sqlite.js';
import path from 'node:path';
import { privateDir, privateFile } from './file-modes.js';
import { MIGRATIONS } from './migrations.js';

export type Db = BetterSqlite3.Database;

export const DB_FILE = 'edgeblocks.db';

export function openDatabase(dataDir: string): Db {
  privateDir(dataDir);
  const file = path.join(dataDir, DB_FILE);
  // SQLite creates the -wal and -shm files with the mode of the database file.
  privateFile(file, true);
  for (const suffix of ['-wal', '-shm']) privateFile(file + suffix);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
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
