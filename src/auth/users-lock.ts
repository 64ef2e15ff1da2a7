// The lock every writer of the users file holds while it reads, changes and writes it
// (`users.json.lock` beside it): `edgeblocks user ...` commands and the service (a logout) run in
// different processes, and two that read the same copy would each write it back with only their
// own change. The lock file is made whole under a random name and linked to its name, which fails
// when it is there: it always holds "PID BOOT-ID NONCE". A lock whose process is gone (killed
// while it held it; a pid of an earlier boot, after a power cut) is taken over; one a live process
// holds is waited for, up to LOCK_WAIT_MS, then UsersFileBusy says who holds it and nothing is
// written. Readers take no lock: the file is replaced by a rename, so a read sees one whole file.
// Every temporary file of these writers (the lock's, the users file's and the revocations record's
// new copies) names its writer (WRITER: pid and boot); one left by a
// writer killed before it renamed or removed it is removed by the next that takes the lock, and at
// the service's start (sweepLeftovers).
import { randomBytes } from 'node:crypto';
import { linkSync, readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { privateFile, writePrivateTemp } from '../store/file-modes.js';
import Database from '../store/sqlite.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a writer waits for another to finish (one holds it for milliseconds: a read, a write, an fsync). */
export const LOCK_WAIT_MS = 10_000;
const POLL_MS = 25;

/** The users file was held by another process for the whole wait; nothing was changed. */
export class UsersFileBusy extends Error {
  constructor(
    readonly file: string,
    readonly holder: number | null,
    waitedMs: number,
  ) {
    super(
      `${file} is being changed by ${holder === null ? 'another process' : `process ${holder}`} (another \`edgeblocks user\` command, or the service recording a logout) and was not free within ${Math.round(waitedMs / 1000)} s; nothing was changed: try again. ${holder === null ? 'If no `edgeblocks` runs' : `If process ${holder} is not edgeblocks (the holder was killed and its number reused)`}, remove ${file}.lock`,
    );
    this.name = 'UsersFileBusy';
  }
}

export interface LockWait {
  /** How long to wait for a live holder. */
  ms: number;
  /** Called once when the lock is held by another live process and the wait begins. */
  onWait?: (message: string) => void;
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}
const BOOT = bootId();
/** The boot in a temporary file's name: the boot id's first 8 hex digits. */
const bootTag = (boot: string) => (boot === 'unknown' ? boot : boot.replaceAll('-', '').slice(0, 8));
/** This process, as its temporary files name it: `PID-BOOT` (see bootTag). */
export const WRITER = `${process.pid}-${bootTag(BOOT)}`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether process `pid` of boot `boot` (as `tag` gives this boot's) runs. Another boot's is gone;
 * a side that could not read its boot id (a sandbox hiding /proc/sys) cannot tell, and goes by
 * the pid alone.
 */
function running(pid: number, boot: string | undefined, tag = (b: string) => b): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (boot !== tag(BOOT) && boot !== 'unknown' && BOOT !== 'unknown') return false;
  return alive(pid);
}

/** The live process holding the lock text `text`, or null when it is stale (its holder gone). */
function liveHolder(text: string): number | null {
  const [pid, boot] = text.trim().split(' ');
  return running(Number(pid), boot) ? Number(pid) : null;
}

/** A temporary file of a users-file writer: `.NAME.PID-BOOT.RANDOM.tmp`. */
const LEFTOVER =
  /^\.(?:users\.json|users\.json\.lock|revocations\.json)\.(\d+)-([0-9a-f]{8}|unknown)\.[0-9a-f]{16}\.tmp$/;
/** The lock's temporary file, and a stale lock it moved aside, as the release before named them: their text names the holder. */
const UNNAMED_LOCK = /^(?:\.users\.json\.lock\.[0-9a-f]{16}\.tmp|users\.json\.lock\.[0-9a-f]{16}\.stale)$/;

/**
 * Remove the temporary files in `dir` that users-file writers killed before they renamed or
 * removed them left there: only those whose writer is gone. Returns their names.
 */
export function sweepLeftovers(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const gone = names.filter((name) => {
    const m = LEFTOVER.exec(name);
    if (m) return !running(Number(m[1]), m[2], bootTag);
    if (!UNNAMED_LOCK.test(name)) return false;
    const text = readOrNull(path.join(dir, name));
    return text !== null && text !== '' && liveHolder(text) === null;
  });
  for (const name of gone) rmSync(path.join(dir, name), { force: true });
  return gone;
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

type Attempt = { release: () => void } | { holder: number | null };

/** One try: the lock, or the live process that holds it (null: it was there, and is gone or was stale). */
function tryLock(lock: string): Attempt {
  // Held by a live process: no file is made for this try (a wait polls every POLL_MS).
  const before = readOrNull(lock);
  const live = before === null ? null : liveHolder(before);
  if (live !== null) return { holder: live };
  const mine = `${process.pid} ${BOOT} ${randomBytes(8).toString('hex')}\n`;
  const tmp = writePrivateTemp(lock, mine, WRITER);
  try {
    linkSync(tmp, lock);
    sweepLeftovers(path.dirname(lock));
    return {
      release: () => {
        if (readOrNull(lock) === mine) rmSync(lock, { force: true });
      },
    };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
  const held = readOrNull(lock);
  if (held === null) return { holder: null };
  const holder = liveHolder(held);
  if (holder !== null) return { holder };
  breakStale(lock, held);
  return { holder: null };
}

/**
 * Take away a lock whose holder is gone. The writers that found it stale go one at a time, under
 * a kernel lock on `users.json.lock.break` (an fcntl lock through SQLite, dropped with its holder,
 * kill -9 included, so it is never stale itself): each looks again and removes the lock only if
 * it is still the stale one. (Moving it aside first, and putting back one taken meanwhile, left a
 * moment with no lock in which a third writer took it while another held it.) One that finds
 * another at it returns: the next try sees what that one did.
 */
function breakStale(lock: string, stale: string): void {
  const file = `${lock}.break`;
  privateFile(file, true);
  const db = new Database(file, { timeout: 0 });
  try {
    // No journal file: the data dir may be full (a card full of history).
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (e) {
    db.close();
    const code = (e as { code?: string }).code ?? '';
    if (code === 'SQLITE_BUSY') return;
    // Junk in it (it holds nothing: a bad card): nobody holds it, or the lock would have been refused first.
    if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return truncateSync(file, 0);
    throw e;
  }
  try {
    if (readOrNull(lock) === stale) rmSync(lock, { force: true });
  } finally {
    db.close();
  }
}

function waiting(file: string, holder: number | null, wait: LockWait): string {
  return `${file} is being changed by ${holder === null ? 'another process' : `process ${holder}`}; waiting for it (up to ${Math.round(wait.ms / 1000)} s)`;
}

/**
 * One try after another at the lock of `file`: its release, or null while a holder may still let
 * go; says once that it waits, and throws UsersFileBusy when the wait is over.
 */
function attempts(file: string, wait: LockWait): () => (() => void) | null {
  const started = performance.now();
  let told = false;
  return () => {
    const got = tryLock(`${file}.lock`);
    if ('release' in got) return got.release;
    if (got.holder !== null && !told) {
      told = true;
      wait.onWait?.(waiting(file, got.holder, wait));
    }
    const waited = performance.now() - started;
    if (waited >= wait.ms) throw new UsersFileBusy(file, got.holder, waited);
    return null;
  };
}

/** Take the lock of `file`, waiting (blocking: the CLI) for a live holder; returns the release. */
export function lockSync(file: string, wait: LockWait): () => void {
  const attempt = attempts(file, wait);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const release = attempt();
    if (release) return release;
    Atomics.wait(pause, 0, 0, POLL_MS);
  }
}

/** lockSync without blocking the event loop (the service: control goes on while it waits). */
export async function lockAsync(file: string, wait: LockWait): Promise<() => void> {
  const attempt = attempts(file, wait);
  for (;;) {
    const release = attempt();
    if (release) return release;
    await sleep(POLL_MS);
  }
}
