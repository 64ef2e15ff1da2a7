// Backups kept as JSON files in `<data dir>/backups/<name>.json`, written atomically
// (temporary file, synced, then renamed), so neither a crash nor a power cut leaves half a backup
// under a real name. A file damaged anyway (a bad card, a hand edit) is refused by name when read.
import { lstatSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { Logger } from '../log.js';
import { parseJson, sentTextOf, sizeProblem } from '../shared/json.js';
import { BACKUP_JSON_DEPTH, STORED_BACKUP_BYTES } from '../shared/limits.js';
import {
  checksumFile,
  checksumProblem,
  checksumTemp,
  moveChecksum,
  orphanChecksum,
  removeChecksum,
} from './backup-checksums.js';
import { notAFile, privateDir, readRegularFile, writePrivateTemp } from './file-modes.js';

export const BACKUP_NAME = /^(?!\.)[\w.-]{1,100}$/;
const BACKUP_NAME_RULE = "1-100 letters, digits, '_', '-' or '.', not starting with '.'";

/** A backup's name as the API takes it: the file name without `.json`. */
export const BackupNameSchema = Type.String({
  pattern: BACKUP_NAME.source,
  errorMessage: `must be ${BACKUP_NAME_RULE}`,
  examples: ['before-winter'],
});

export class BackupNameError extends Error {}

/** A stored backup asked for by a change (a rename) that is not there. */
export class MissingBackupError extends Error {}

/** A name the API takes for a file copied in under one it refuses, for the log line that says so. */
function usableName(name: string): string {
  const plain = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\w.-]+/g, '-')
    .replace(/^[.-]+/, '')
    .slice(0, 100);
  return plain || 'restored';
}

/** A stored backup file that holds no backup (not JSON, not an object, not a file), or a name a directory, a link or a FIFO holds. */
export class DamagedBackupError extends Error {}

/** A stored backup whose bytes are not those the service wrote (its checksum, backup-checksums.ts). */
export class ChangedBackupError extends DamagedBackupError {}

export class BackupFiles {
  readonly dir: string;
  /** Entries `list` skipped and has said so, so that each is logged once, not at every list. */
  private readonly skipped = new Set<string>();

  constructor(
    dataDir: string,
    private readonly log?: Logger,
  ) {
    this.dir = path.join(dataDir, 'backups');
  }

  private file(name: string): string {
    // The routes take only such names (BackupNameSchema); this keeps every other caller inside the directory.
    if (!BACKUP_NAME.test(name))
      throw new BackupNameError(`backup name must be ${BACKUP_NAME_RULE}, got ${JSON.stringify(name)}`);
    return path.join(this.dir, `${name}.json`);
  }

  /**
   * Stores `backup` under `name`: as the text it was sent in when JSON.stringify would change a
   * number of it (sentTextOf), with the checksum of that text beside it (backup-checksums.ts).
   */
  write(name: string, backup: unknown): void {
    privateDir(this.dir);
    // Written whole and synced before the rename (a power cut soon after must not leave an empty
    // file under the name, ext4's delayed allocation); a write that does not fit fails, and keeps
    // the backup that was under the name with its checksum (the new checksum is written to its own
    // temporary file first, so a card too full for it fails the same way). The old checksum goes
    // before the new file comes: a stop between them leaves a backup without one (read as one
    // copied in), never a good backup refused as changed.
    const file = this.file(name);
    const text = sentTextOf(backup) ?? JSON.stringify(backup);
    const tmp = writePrivateTemp(file, text);
    let sumTmp: string;
    try {
      sumTmp = checksumTemp(file, text);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
    try {
      this.dropChecksum(name, file, 'written');
      renameSync(tmp, file);
    } catch (e) {
      rmSync(tmp, { force: true });
      rmSync(sumTmp, { force: true });
      if ((e as NodeJS.ErrnoException).code === 'EISDIR')
        throw new DamagedBackupError(
          `stored backup '${name}' cannot be written (${file} is a directory, not a file); save it under another name`,
        );
      throw e;
    }
    renameSync(sumTmp, checksumFile(file));
  }

  /**
   * The parsed backup, or null when there is no backup of that name; DamagedBackupError when the
   * file holds none. With `keepText`, the file's text is kept with it where JSON.stringify would
   * change a number of it (sentTextOf), for a download of the file as it is.
   */
  read(name: string, keepText = false): unknown {
    const file = this.file(name);
    const damaged = (problem: string) =>
      new DamagedBackupError(
        `stored backup '${name}' is damaged and cannot be used (${problem}); it is kept as ${file}`,
      );
    // Not following a link (one to a file elsewhere would be served to viewers, or its first bytes
    // quoted in the refusal), not waiting on a FIFO, and looked at before it is read: a directory
    // under the name (`install -d` given the file's path), a file far larger than a backup (a disk
    // image copied in by mistake).
    const read = readRegularFile(file, STORED_BACKUP_BYTES);
    if (read === null) return null;
    if ('notAFile' in read) throw damaged(`${file} is ${read.notAFile}, not a file`);
    if ('tooLarge' in read) throw damaged(sizeProblem('the file', read.tooLarge, STORED_BACKUP_BYTES) as string);
    const bytes = read.bytes;
    // Before the JSON is looked at: a flipped digit leaves it whole, and a file cut short that was
    // saved whole is better told as changed than as bad JSON.
    const check = checksumProblem(file, bytes);
    if (check?.changed)
      throw new ChangedBackupError(
        `stored backup '${name}' changed since it was saved and is not used (${check.reason}); it is kept as ${file}`,
      );
    if (check) throw damaged(check.reason);
    // A document sits a level deeper in a backup ({store: [doc]}) than in the body that set it
    // ({value: doc}), so one the datastore took as deep as a body may nest is not damage.
    const parsed = parseJson(bytes, {
      maxBytes: STORED_BACKUP_BYTES,
      what: 'the file',
      maxDepth: BACKUP_JSON_DEPTH,
      // A load's messages quote a number a double cannot hold as the file has it (runtime/backup.ts).
      sent: true,
      keepText,
    });
    const value = parsed.ok ? parsed.value : undefined;
    const problem = !parsed.ok
      ? parsed.reason
      : typeof value !== 'object' || value === null || Array.isArray(value)
        ? `the file holds ${bytes.length === 0 ? 'nothing' : 'no backup object'}`
        : null;
    if (problem) throw damaged(problem);
    return value;
  }

  /**
   * Removes what a write cut short by a kill or a power cut left (its temporary file); the
   * service calls it at start, holding the data dir, when no write of its own is under way; and
   * checksums whose backup is gone (removed by hand), which would refuse another file copied in
   * under its name. Returns how many there were.
   */
  sweepPartial(): number {
    let entries: string[];
    try {
      entries = readdirSync(this.dir);
    } catch {
      return 0;
    }
    // writePrivateFile's (.NAME.json.<random>.tmp), and those of versions that named them NAME.json.<pid>.tmp.
    // And those of checksums (.NAME.json.sha256.<random>.tmp).
    const names = new Set(entries);
    const partial = entries.filter(
      (f) => /\.json(\.sha256)?\.(\d+|[0-9a-f]{16})\.tmp$/.test(f) || orphanChecksum(f, names),
    );
    for (const f of partial) rmSync(path.join(this.dir, f), { force: true });
    return partial.length;
  }

  /**
   * Names of the regular files, oldest first: every one can be read, renamed and removed by it. A
   * directory, a link or a FIFO is no backup, and a file whose name breaks BACKUP_NAME (copied in
   * by hand) cannot be asked for: each is skipped (and logged once).
   */
  list(): string[] {
    let entries: string[];
    try {
      entries = readdirSync(this.dir);
    } catch {
      return [];
    }
    return entries
      .filter((f) => f.endsWith('.json'))
      .flatMap((f) => {
        // One removed since the directory was read (a prune) is not listed.
        const stat = lstatSync(path.join(this.dir, f), { throwIfNoEntry: false });
        if (!stat) return [];
        const name = f.slice(0, -5);
        const what = notAFile(stat);
        if (what) {
          this.skip(
            f,
            `${f} in ${this.dir} is ${what}, not a backup: it is not listed, loaded or pruned; remove it by hand`,
          );
          return [];
        }
        // A file copied in by hand under a name the API refuses could be listed but never loaded,
        // downloaded or removed by the name the list gave.
        if (!BACKUP_NAME.test(name)) {
          this.skip(
            f,
            `${f} in ${this.dir} is not listed: a backup's name must be ${BACKUP_NAME_RULE}, so it cannot be loaded or downloaded by this one; rename it by hand (to ${usableName(name)}.json, say)`,
          );
          return [];
        }
        return [{ name, mtime: stat.mtimeMs }];
      })
      .sort((a, b) => a.mtime - b.mtime || a.name.localeCompare(b.name))
      .map((e) => e.name);
  }

  /** Logs, once for each entry, why `list` leaves it out. */
  private skip(entry: string, message: string): void {
    if (this.skipped.has(entry)) return;
    this.skipped.add(entry);
    this.log?.warn({ file: path.join(this.dir, entry) }, message);
  }

  /**
   * Removes the checksum of `file` (first: a stop before the backup changes leaves one without a
   * checksum, read as one copied in); DamagedBackupError naming it when a directory holds its name
   * (rm would fail with ERR_FS_EISDIR, a 500 at the API and a prune's warning every run).
   */
  private dropChecksum(name: string, file: string, action: string): void {
    try {
      removeChecksum(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ERR_FS_EISDIR' && code !== 'EISDIR') throw e;
      throw new DamagedBackupError(
        `stored backup '${name}' cannot be ${action} (its checksum file ${checksumFile(file)} is a directory, not a file); it is left as it is: remove that directory by hand`,
      );
    }
  }

  /** DamagedBackupError naming the backup when something other than a regular file holds its name. */
  private refuseNonFile(name: string, action: string): string {
    const file = this.file(name);
    const stat = lstatSync(file, { throwIfNoEntry: false });
    const what = stat && notAFile(stat);
    if (what)
      throw new DamagedBackupError(
        `stored backup '${name}' cannot be ${action} (${file} is ${what}, not a file); it is left as it is`,
      );
    return file;
  }

  /**
   * Gives a stored backup another name (both checked as `BACKUP_NAME`), its checksum with it;
   * neither may be held by a non-file. A checksum left under the new name goes first, once the
   * backup to rename is known to be there: one that is not (removed since it was listed) changes
   * nothing, or the backup under the new name would lose its checksum and load unchecked.
   */
  rename(from: string, to: string): void {
    const fromFile = this.refuseNonFile(from, 'renamed');
    if (!lstatSync(fromFile, { throwIfNoEntry: false }))
      throw new MissingBackupError(
        `stored backup '${from}' cannot be renamed to '${to}': there is no ${fromFile}; nothing was changed`,
      );
    const toFile = this.refuseNonFile(to, 'replaced');
    this.dropChecksum(to, toFile, 'replaced');
    renameSync(fromFile, toFile);
    moveChecksum(fromFile, toFile);
  }

  /** Nothing when there is no backup of that name; DamagedBackupError when a non-file holds it. */
  remove(name: string): void {
    const file = this.refuseNonFile(name, 'removed');
    this.dropChecksum(name, file, 'removed');
    rmSync(file, { force: true });
  }
}
