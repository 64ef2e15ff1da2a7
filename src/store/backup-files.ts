// Backups kept as JSON files in `<data dir>/backups/<name>.json`, written atomically
// (temporary file, synced, then renamed), so neither a crash nor a power cut leaves half a backup
// under a real name. A file damaged anyway (a bad card, a hand edit) is refused by name when read.
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { parseJson, sizeProblem } from '../shared/json.js';
import { BACKUP_JSON_DEPTH, STORED_BACKUP_BYTES } from '../shared/limits.js';
import { privateDir, writePrivateFile } from './file-modes.js';

export const BACKUP_NAME = /^(?!\.)[\w.-]{1,100}$/;
const BACKUP_NAME_RULE = "1-100 letters, digits, '_', '-' or '.', not starting with '.'";

/** A backup's name as the API takes it: the file name without `.json`. */
export const BackupNameSchema = Type.String({
  pattern: BACKUP_NAME.source,
  errorMessage: `must be ${BACKUP_NAME_RULE}`,
  examples: ['before-winter'],
});

export class BackupNameError extends Error {}

/** A stored backup file that holds no backup (not JSON, not an object, not a file), or a name a directory holds. */
export class DamagedBackupError extends Error {}

export class BackupFiles {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'backups');
  }

  private file(name: string): string {
    // The routes take only such names (BackupNameSchema); this keeps every other caller inside the directory.
    if (!BACKUP_NAME.test(name))
      throw new BackupNameError(`backup name must be ${BACKUP_NAME_RULE}, got ${JSON.stringify(name)}`);
    return path.join(this.dir, `${name}.json`);
  }

  write(name: string, backup: unknown): void {
    privateDir(this.dir);
    // Written whole and synced before the rename (a power cut soon after must not leave an empty
    // file under the name, ext4's delayed allocation); a write that does not fit fails.
    const file = this.file(name);
    try {
      writePrivateFile(file, JSON.stringify(backup));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EISDIR')
        throw new DamagedBackupError(
          `stored backup '${name}' cannot be written (${file} is a directory, not a file); save it under another name`,
        );
      throw e;
    }
  }

  /** The parsed backup, or null when there is no backup of that name; DamagedBackupError when the file holds none. */
  read(name: string): unknown {
    const file = this.file(name);
    const damaged = (problem: string) =>
      new DamagedBackupError(
        `stored backup '${name}' is damaged and cannot be used (${problem}); it is kept as ${file}`,
      );
    let fd: number;
    try {
      // Non-blocking: a FIFO under the name would otherwise hold the service until a writer came.
      fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    let bytes: Buffer;
    try {
      // Looked at before it is read: a directory under the name (`install -d` given the file's
      // path) fails the read with EISDIR, and a file far larger than a backup (a disk image copied
      // in by mistake) would be read whole into memory, or past 2 GiB fail the read, before its
      // size was checked.
      const stat = fstatSync(fd);
      if (!stat.isFile())
        throw damaged(`${file} is ${stat.isDirectory() ? 'a directory' : 'a FIFO, socket or device'}, not a file`);
      const tooLarge = sizeProblem('the file', stat.size, STORED_BACKUP_BYTES);
      if (tooLarge) throw damaged(tooLarge);
      bytes = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
    // A document sits a level deeper in a backup ({store: [doc]}) than in the body that set it
    // ({value: doc}), so one the datastore took as deep as a body may nest is not damage.
    const parsed = parseJson(bytes, { maxBytes: STORED_BACKUP_BYTES, what: 'the file', maxDepth: BACKUP_JSON_DEPTH });
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
   * service calls it at start, holding the data dir, when no write of its own is under way.
   * Returns how many there were.
   */
  sweepPartial(): number {
    let entries: string[];
    try {
      entries = readdirSync(this.dir);
    } catch {
      return 0;
    }
    // writePrivateFile's (.NAME.json.<random>.tmp), and those of versions that named them NAME.json.<pid>.tmp.
    const partial = entries.filter((f) => /\.json\.(\d+|[0-9a-f]{16})\.tmp$/.test(f));
    for (const f of partial) rmSync(path.join(this.dir, f), { force: true });
    return partial.length;
  }

  /** Names, oldest first. */
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
        const mtime = statSync(path.join(this.dir, f), { throwIfNoEntry: false })?.mtimeMs;
        return mtime === undefined ? [] : [{ name: f.slice(0, -5), mtime }];
      })
      .sort((a, b) => a.mtime - b.mtime || a.name.localeCompare(b.name))
      .map((e) => e.name);
  }

  /** Gives a stored backup another name (both checked as `BACKUP_NAME`). */
  rename(from: string, to: string): void {
    renameSync(this.file(from), this.file(to));
  }

  remove(name: string): void {
    rmSync(this.file(name), { force: true });
  }
}
