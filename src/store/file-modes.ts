// The data dir holds the block database, backups and the gateway's private key: readable by the
// service user only. Directories are 0700 and files 0600, whatever the umask, and files left
// by an older version with wider modes are tightened when they are opened.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';

/** A data dir the service cannot use (busy, or files it may not read or write): one line, exit 2. */
export class DataDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirError';
  }
}

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Create `dir` (and parents) if needed, and make it 0700. */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Make `file` 0600, creating it empty when `create` is set and it does not exist. */
export function privateFile(file: string, create = false): void {
  if (!existsSync(file)) {
    if (!create) return;
    closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  }
  chmodSync(file, PRIVATE_FILE_MODE);
}
