// The data dir holds the block database, backups and the gateway's private key: readable by the
// service user only. Directories are 0700 and files 0600, whatever the umask, and files left
// by an older version with wider modes are tightened when they are opened.
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { FixableError } from '../shared/errors.js';

/** A data dir the service cannot use (busy, or files it may not read or write): one line, exit 2. */
export class DataDirError extends FixableError {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirError';
  }
}

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Create `dir` (and parents) if needed, and make it 0700. Returns whether it was created. */
export function privateDir(dir: string): boolean {
  const created = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE }) !== undefined;
  chmodSync(dir, PRIVATE_DIR_MODE);
  return created;
}

/** Make `file` 0600, creating it empty when `create` is set and it does not exist. */
export function privateFile(file: string, create = false): void {
  if (!existsSync(file)) {
    if (!create) return;
    closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  }
  chmodSync(file, PRIVATE_FILE_MODE);
}

/** What holds a name instead of a regular file, for a message; null for a regular file. */
export function notAFile(stat: Stats): string | null {
  if (stat.isFile()) return null;
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  return 'a FIFO, socket or device';
}

/**
 * The bytes of the regular file `file` (a stored backup, its checksum: what a user or a bad card may
 * have put anything under): null when there is none; `notAFile` saying what holds the name instead;
 * `tooLarge` with its size when it has more than `maxBytes`. Opened without following a symbolic link
 * at the name (one to a file elsewhere would be served, or its bytes quoted in a refusal) and without
 * waiting on a FIFO (O_NONBLOCK: the read would hold the service until a writer came), and looked at
 * through the descriptor before it is read (a directory fails a read with EISDIR; a disk image
 * copied in by mistake would be read whole into memory). Other errors are thrown.
 */
export function readRegularFile(
  file: string,
  maxBytes: number,
): { bytes: Buffer } | { notAFile: string } | { tooLarge: number } | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') return { notAFile: 'a symbolic link' };
    throw e;
  }
  try {
    const stat = fstatSync(fd);
    const what = notAFile(stat);
    if (what) return { notAFile: what };
    if (stat.size > maxBytes) return { tooLarge: stat.size };
    return { bytes: readFileSync(fd) };
  } finally {
    closeSync(fd);
  }
}

/**
 * Write `text` to `file` atomically and privately (0600): into a new file of a random name in the
 * same directory, opened with O_CREAT|O_EXCL|O_NOFOLLOW (so no link planted there, or at any other
 * name, is followed), synced, given to the directory's owner through its descriptor when root
 * writes it, then renamed over `file` (rename replaces a link at `file` itself, never its target).
 */
export function writePrivateFile(file: string, text: string, writer?: string): void {
  const tmp = writePrivateTemp(file, text, writer);
  try {
    renameSync(tmp, file);
  } catch (e) {
    // A directory under the name (EISDIR): the temporary file would stay until the next start.
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * `text` whole and synced in a new private file beside `file` (`.NAME.RANDOM.tmp`, or
 * `.NAME.WRITER.RANDOM.tmp` with `writer`, which tells a sweep whose it is), for the caller to
 * rename or link into place and then remove; none is left when the write fails (a full card).
 */
export function writePrivateTemp(file: string, text: string, writer?: string): string {
  const dir = path.dirname(file);
  const tmp = path.join(
    dir,
    `.${path.basename(file)}.${writer === undefined ? '' : `${writer}.`}${randomBytes(8).toString('hex')}.tmp`,
  );
  const fd = openSync(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    PRIVATE_FILE_MODE,
  );
  try {
    // On the descriptor, writeFileSync writes until all is out: a card with less room than the
    // text takes what fits and says so (a short write), and the next write fails with ENOSPC.
    writeFileSync(fd, text);
    fchmodSync(fd, PRIVATE_FILE_MODE);
    if (process.getuid?.() === 0) {
      const { uid, gid } = statSync(dir);
      if (uid !== 0 || gid !== 0) fchownSync(fd, uid, gid);
    }
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  return tmp;
}

/**
 * A command run as root (`sudo edgeblocks user add`) on a data dir that belongs to another user (the
 * service user) does its work as that user: whatever that user planted in the dir (links to root's
 * files) it can only reach what that user may already write, and what it writes is that user's.
 * Returns the user it became, or null when nothing changed (not root, or a root-owned dir).
 */
export function becomeOwnerOf(dir: string): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const { uid, gid } = statSync(dir);
  if (uid === 0) return null;
  process.setgroups?.([gid]);
  process.setgid?.(gid);
  process.setuid?.(uid);
  return { uid, gid };
}

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return String(process.getuid?.() ?? 'the service user'); // a uid without a passwd entry
  }
}

/** Whether `dir` is not there (not merely out of this user's reach: a parent it may not search). */
function missing(dir: string): boolean {
  try {
    statSync(dir);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * Whether `dir`, or the nearest directory above it that is there, is on a read-only file system
 * (EROFS even for root). A mkdir -p under one fails with ENOENT, not EROFS, hence the look.
 */
function onReadOnlyFileSystem(dir: string): boolean {
  let at = path.resolve(dir);
  while (missing(at) && path.dirname(at) !== at) at = path.dirname(at);
  try {
    accessSync(at, constants.W_OK);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EROFS';
  }
}

/**
 * A file the data dir's user may not use as one line naming it and what fixes it: a permission
 * error (EACCES, EPERM) with the chown, a data dir on a read-only file system (a Pi's SD card the
 * kernel remounted read-only after errors) with the remount; null for other errors.
 */
export function unusableFileError(e: unknown, dataDir: string): DataDirError | null {
  const err = e as NodeJS.ErrnoException;
  const dir = path.resolve(dataDir);
  if (
    err instanceof Error &&
    (err.code === 'EROFS' || (err.code === 'ENOENT' && err.syscall === 'mkdir')) &&
    onReadOnlyFileSystem(dir)
  )
    return new DataDirError(
      `cannot use the data dir ${dir}: it is on a read-only file system (${err.code}: ${err.syscall ?? 'write'}${typeof err.path === 'string' ? ` ${path.resolve(err.path)}` : ''}); remount it read-write (a card the kernel made read-only after errors needs a check first: fsck, or a new card), or give another --data-dir`,
    );
  if (!(err instanceof Error) || (err.code !== 'EACCES' && err.code !== 'EPERM') || typeof err.path !== 'string')
    return null;
  const user = currentUser();
  const file = path.resolve(err.path);
  const inDataDir = file === dir || file.startsWith(dir + path.sep);
  // A data dir that is not there and may not be made here: a chown of it would find nothing.
  if (err.syscall === 'mkdir' && inDataDir && missing(dir))
    return new DataDirError(
      `cannot use ${file} (${err.code}: mkdir as user ${user}): the data dir does not exist and this user may not create it; fix: sudo mkdir -p ${dir} && sudo chown ${user}: ${dir}, or give another --data-dir`,
    );
  const fix = inDataDir ? `sudo chown -R ${user}: ${dir}` : `sudo chown ${user}: ${file}`;
  const what = inDataDir
    ? 'the data dir and its files must belong to the user edgeblocks runs as'
    : 'edgeblocks must be able to read it';
  return new DataDirError(
    `cannot use ${file} (${err.code}: ${err.syscall ?? 'access'} as user ${user}): ${what}; fix: ${fix}`,
  );
}
