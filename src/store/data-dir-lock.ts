// One service per data dir: two on the same dir would drive the same outputs from two block
// sets. The lock is a SQLite write lock (an fcntl lock underneath) on a small file in the dir,
// held for the process lifetime; the kernel drops it when the process dies, kill -9 included,
// so there is never a stale lock to clear. The pid beside it is only for the message.
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database, { type BetterSqlite3 } from './sqlite.js';
import { DataDirError, privateDir, privateFile, PRIVATE_FILE_MODE } from './file-modes.js';

export const LOCK_FILE = 'edgeblocks.lock';
export const PID_FILE = 'edgeblocks.pid';

export interface DataDirLock {
  release(): void;
  /** Whether taking it created the data dir (it did not exist: a first start, or a mistyped --data-dir). */
  created?: boolean;
}

/** Takes the data dir (creating it, said in `created`); throws DataDirError naming the dir and the holder's pid when another process has it. */
export function lockDataDir(dataDir: string, cleared = false): DataDirLock {
  const created = privateDir(dataDir);
  const file = path.join(dataDir, LOCK_FILE);
  const pidFile = path.join(dataDir, PID_FILE);
  privateFile(file, true);
  let db: BetterSqlite3.Database;
  try {
    db = new Database(file, { timeout: 0 });
  } catch (e) {
    throw new DataDirError(`cannot open ${file}: ${(e as Error).message}`);
  }
  try {
    // No journal file: a lock must be taken on a full disk too (a Pi rebooted with its card full).
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (e) {
    db.close();
    const code = (e as { code?: string }).code ?? '';
    // Junk in the file (it holds nothing: a bad card, an editor). A process holding the lock
    // would have made this SQLITE_BUSY before the file was read, so no holder is cut off; the
    // file is emptied in place (its inode, which the locks are on, stays).
    if (!cleared && junkLock(e)) {
      truncateSync(file, 0);
      return { ...lockDataDir(dataDir, true), created };
    }
    if (code !== 'SQLITE_BUSY') throw new DataDirError(`cannot lock ${file}: ${(e as Error).message}`);
    let holder = 'another process';
    try {
      const pid = Number(readFileSync(pidFile, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0) holder = `pid ${pid}`;
    } catch {
      // the holder has not written its pid yet
    }
    throw new DataDirError(
      `the data dir ${dataDir} is in use by another edgeblocks (${holder}); stop it first, or give this one its own --data-dir`,
    );
  }
  try {
    privateFile(pidFile);
    writeFileSync(pidFile, `${process.pid}\n`, { mode: PRIVATE_FILE_MODE });
  } catch {
    // a full disk: the pid only names the holder in another start's message
  }
  return {
    release: () => {
      if (!db.open) return;
      db.close();
    },
    created,
  };
}

/**
 * For a tool beside the service (`edgeblocks doctor`): takes the data dir's lock when nobody
 * holds it, without creating any file (run as root, a new file would be root's and lock the
 * service out). `absent`: the dir or its lock file does not exist (no service ever ran there).
 */
export function tryLockDataDir(
  dataDir: string,
): { lock: DataDirLock } | { busy: { pid: number | null } } | { absent: true } {
  const file = path.join(dataDir, LOCK_FILE);
  let db: BetterSqlite3.Database;
  try {
    db = new Database(file, { timeout: 0, fileMustExist: true });
  } catch {
    return { absent: true };
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (e) {
    db.close();
    // Junk in the lock file: no process holds it (see lockDataDir), so the service is not running.
    if (junkLock(e)) return { absent: true };
    if ((e as { code?: string }).code !== 'SQLITE_BUSY') throw e;
    let pid: number | null = null;
    try {
      const n = Number(readFileSync(path.join(dataDir, PID_FILE), 'utf8').trim());
      if (Number.isInteger(n) && n > 0) pid = n;
    } catch {
      // no pid written yet
    }
    return { busy: { pid } };
  }
  return { lock: { release: () => db.open && db.close() } };
}

/** The lock file holds junk (it holds nothing by design): a bad card or an editor wrote it. */
function junkLock(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT');
}
