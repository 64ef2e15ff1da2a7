// Backups kept as JSON files in `<data dir>/backups/<name>.json`, written atomically
// (temporary file + rename), so a crash never leaves half a backup under a real name.
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { PRIVATE_FILE_MODE, privateDir } from './file-modes.js';

export const BACKUP_NAME = /^(?!\.)[\w.-]{1,100}$/;
const BACKUP_NAME_RULE = "1-100 letters, digits, '_', '-' or '.', not starting with '.'";

/** A backup's name as the API takes it: the file name without `.json`. */
export const BackupNameSchema = Type.String({
  pattern: BACKUP_NAME.source,
  errorMessage: `must be ${BACKUP_NAME_RULE}`,
  examples: ['before-winter'],
});

export class BackupNameError extends Error {}

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
    const file = this.file(name);
    privateDir(this.dir);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(backup), { mode: PRIVATE_FILE_MODE });
    renameSync(tmp, file);
  }

  /** The parsed backup, or null when there is no backup of that name. */
  read(name: string): unknown {
    try {
      return JSON.parse(readFileSync(this.file(name), 'utf8'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
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
      .map((f) => ({ name: f.slice(0, -5), mtime: statSync(path.join(this.dir, f)).mtimeMs }))
      .sort((a, b) => a.mtime - b.mtime || a.name.localeCompare(b.name))
      .map((e) => e.name);
  }

  remove(name: string): void {
    rmSync(this.file(name), { force: true });
  }
}
