// The SHA-256 of a stored backup's exact bytes, kept beside it as `NAME.json.sha256` in the line
// sha256sum writes (`<hex>  NAME.json`), so `sha256sum -c NAME.json.sha256` in backups/ checks it
// too. A sidecar, not a field of the backup: the backup file stays byte for byte what Brewblox
// clients and older releases read and what a download serves, and a field could not hold the
// checksum of the bytes that hold it. A damage that leaves the JSON whole (a digit of a setpoint
// flipped on the card) is found by it. A backup without one (copied in by hand, written by an
// older release) is read as it always was: removing the sidecar is how a brewer who trusts a
// changed file (an edit of their own) loads it.
import { createHash } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { readRegularFile, writePrivateFile, writePrivateTemp } from './file-modes.js';

export const CHECKSUM_SUFFIX = '.sha256';
/** A sidecar is one line; anything far longer is no sidecar of ours. */
const MAX_SIDECAR_BYTES = 4096;

export function checksumFile(backupFile: string): string {
  return `${backupFile}${CHECKSUM_SUFFIX}`;
}

function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function line(hex: string, backupFile: string): string {
  return `${hex}  ${path.basename(backupFile)}\n`;
}

/**
 * The checksum of `text` (the bytes about to be stored in `backupFile`), written whole and synced
 * in a temporary file beside it, for the caller to rename to `checksumFile(backupFile)` once the
 * backup is in place. Written first, so a card too full for it fails the write before anything
 * under the name changes.
 */
export function checksumTemp(backupFile: string, text: string): string {
  return writePrivateTemp(checksumFile(backupFile), line(sha256(Buffer.from(text, 'utf8')), backupFile));
}

/** Removes the checksum of `backupFile`, if any (before the file is replaced or after it is removed). */
export function removeChecksum(backupFile: string): void {
  rmSync(checksumFile(backupFile), { force: true });
}

/** The recorded hex, null when there is no sidecar, or a string saying why it cannot be used. */
function recorded(backupFile: string): { hex: string } | { problem: string } | null {
  const file = checksumFile(backupFile);
  // As the backup itself: no link followed, no FIFO waited on.
  const read = readRegularFile(file, MAX_SIDECAR_BYTES);
  if (read === null) return null;
  if ('notAFile' in read)
    return {
      problem: `its checksum file ${file} is ${read.notAFile === 'a symbolic link' ? 'a symbolic link, not a file' : 'not a file'}`,
    };
  const hex = 'bytes' in read ? /^([0-9a-f]{64})(\s|$)/i.exec(read.bytes.toString('latin1'))?.[1] : undefined;
  return hex ? { hex: hex.toLowerCase() } : { problem: `its checksum file ${file} holds no SHA-256` };
}

/**
 * Why `bytes` (read from `backupFile`) must not be used, or null: they match the checksum recorded
 * when the service wrote them, or none was recorded. `changed` when they do not match it.
 */
export function checksumProblem(backupFile: string, bytes: Buffer): { changed: boolean; reason: string } | null {
  const want = recorded(backupFile);
  if (want === null) return null;
  const remove = `if you trust the file as it is now (you edited it yourself), remove ${checksumFile(backupFile)} and load it again`;
  if ('problem' in want) return { changed: false, reason: `${want.problem}; ${remove}` };
  const got = sha256(bytes);
  if (got === want.hex) return null;
  return {
    changed: true,
    reason: `its SHA-256 is ${got}, not the ${want.hex} recorded in ${checksumFile(backupFile)} when it was saved: a bad card, a power cut or a hand edit changed it; ${remove}`,
  };
}

/**
 * Gives the checksum of `from` to `to` (whose file was just renamed from `from`), rewriting its line
 * to name the new file; a sidecar it cannot read is moved as it is, to be refused under the new name.
 */
export function moveChecksum(from: string, to: string): void {
  let want: ReturnType<typeof recorded>;
  try {
    want = recorded(from);
  } catch {
    want = { problem: '' };
  }
  if (want === null) return;
  if ('hex' in want) {
    writePrivateFile(checksumFile(to), line(want.hex, to));
    removeChecksum(from);
  } else renameSync(checksumFile(from), checksumFile(to));
}

/** Whether `entry` of backups/ is a checksum whose backup is not among `entries`. */
export function orphanChecksum(entry: string, entries: ReadonlySet<string>): boolean {
  return entry.endsWith(`.json${CHECKSUM_SUFFIX}`) && !entries.has(entry.slice(0, -CHECKSUM_SUFFIX.length));
}
