// The one SQLite database in the data dir (better-sqlite3, WAL). synchronous=FULL makes every
// committed change durable before the caller answers, power loss included.
import Database, { type BetterSqlite3 } from './sqlite.js';
import { closeSync, existsSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log.js';
import { FixableError } from '../shared/errors.js';
import { privateDir, privateFile } from './file-modes.js';
import { MIGRATIONS } from './migrations.js';
import { type DamagedDatabase, finishRecovery, isDamaged, quickCheck, recover, withReport } from './salvage.js';
import { diskSpace, isDiskFull, ROOM_NEEDED_BYTES } from './storage-health.js';

export type Db = BetterSqlite3.Database;

export const DB_FILE = 'edgeblocks.db';

/**
 * The copy of the database kept before it is migrated from schema `version`: the release that
 * wrote it can run on it again (a rollback), with what changed since the upgrade lost.
 */
export const schemaCopyFile = (version: number): string => `${DB_FILE}.schema-${version}`;

/** `onDamaged` hears what was saved of a damaged database file (src/store/salvage.ts), when there was one. */
export function openDatabase(dataDir: string, log?: Logger, onDamaged?: (report: DamagedDatabase) => void): Db {
  privateDir(dataDir);
  const file = path.join(dataDir, DB_FILE);
  finishRecovery(file);
  let db: Db;
  try {
    db = openPrivate(file, false, log);
  } catch (e) {
    if (isDamaged(e)) {
      recover(file, e, (f) => openPrivate(f, false, log), log);
      db = openPrivate(file, false, log);
    } else if (onFullDisk(dataDir, e)) {
      // A start on a full disk (a Pi rebooted with its card full): SQLite cannot make the -shm
      // file that WAL keeps its index in. In exclusive locking mode WAL keeps the index in memory,
      // so the service starts and controls (changes are refused, 507, until there is room); until
      // its next start no other process can open the database.
      db = openPrivate(file, true, log);
    } else throw e;
  }
  return withReport(db, log, onDamaged);
}

function openPrivate(file: string, exclusive: boolean, log?: Logger): Db {
  // SQLite creates the -wal and -shm files with the mode of the database file.
  privateFile(file, true);
  for (const suffix of ['-wal', '-shm']) privateFile(file + suffix);
  return open(file, exclusive, log);
}

function open(file: string, exclusive: boolean, log?: Logger): Db {
  const db = new Database(file);
  try {
    if (exclusive) db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    // Reads every page once (milliseconds for what a controller holds): damage found now is
    // repaired before start-up (recover), not met by a write that fails weeks later.
    const damage = quickCheck(db);
    if (damage) throw Object.assign(new Error(`integrity check: ${damage}`), { code: 'SQLITE_CORRUPT' });
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, MIGRATIONS, log);
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

export function migrate(db: Db, migrations = MIGRATIONS, log?: Logger): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const dir = db.memory ? null : path.dirname(db.name);
  const newer = newerSchema(db.memory ? null : db.name, current, migrations);
  if (newer) throw newer;
  if (current > 0 && current < migrations.length && dir) keepCopy(db, dir, current, log);
  for (let v = current; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return migrations.length;
}

/** A database a newer release migrated, which this one may not run on: the error a start gives. */
function newerSchema(file: string | null, current: number, migrations: string[]): FixableError | null {
  if (current <= migrations.length) return null;
  const copy = file ? path.join(path.dirname(file), schemaCopyFile(migrations.length)) : null;
  const back =
    copy && existsSync(copy)
      ? `, or go back to the copy kept before the upgrade (what changed since is lost): with the service stopped, move ${copy} over ${file} and delete ${file}-wal and ${file}-shm`
      : '';
  return new FixableError(
    `database schema version ${current} is newer than this edgeblocks (${migrations.length}); upgrade edgeblocks${back}`,
    'cannot start',
  );
}

/**
 * `edgeblocks check`: throws what a start would say of the database's schema, reading its
 * version from the file's header (offset 60, SQLite's file format) rather than opening it: an
 * open, even a read-only one, may make the -wal and -shm files, and the check runs as root beside
 * the service. A version still in the -wal only is not seen; a start then says it.
 */
export function checkSchema(dataDir: string, migrations = MIGRATIONS): void {
  const file = path.join(dataDir, DB_FILE);
  const header = Buffer.alloc(64);
  try {
    const fd = openSync(file, 'r');
    try {
      if (readSync(fd, header, 0, 64, 0) < 64) return;
    } finally {
      closeSync(fd);
    }
  } catch {
    return; // none yet (a start makes it), or one a start reports with its own words
  }
  if (header.toString('latin1', 0, 16) !== 'SQLite format 3\0') return;
  const newer = newerSchema(file, header.readUInt32BE(60), migrations);
  if (newer) throw newer;
}

/**
 * A copy of the database as the release before the upgrade left it, for a rollback to that
 * release, which refuses a newer schema. Replaces an older copy of the same schema, and removes
 * copies of older schemas once it is made (a rollback goes back one release). A copy that cannot
 * be made (a full disk) does not stop the start: controlling matters more.
 */
function keepCopy(db: Db, dir: string, version: number, log?: Logger): void {
  const copy = path.join(dir, schemaCopyFile(version));
  try {
    rmSync(copy, { force: true });
    db.prepare('VACUUM INTO ?').run(copy);
    privateFile(copy);
    for (let older = 1; older < version; older++) rmSync(path.join(dir, schemaCopyFile(older)), { force: true });
    log?.info({ copy }, `database schema ${version} kept as ${path.basename(copy)} before migrating it`);
  } catch (err) {
    // A half-made copy is not one to go back to (whatever blocked it may not be a file).
    if (existsSync(copy) && statSync(copy).isFile()) rmSync(copy, { force: true });
    log?.warn(
      { copy, err },
      `could not keep a copy of the database before migrating it from schema ${version}; a rollback will find it migrated`,
    );
  }
}
