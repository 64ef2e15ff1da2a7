// Kinds of error every layer may meet. Errors a user fixes (a bad setting, a busy port, a data
// dir another instance holds): the CLI prints one line and exits with code 2, never a stack
// trace. main.ts tells them by a brand,
// not by class or name: the service's modules run from the bundle (dist/bundle), which holds
// its own copies of their classes, so `instanceof` against main's copy fails; Symbol.for() is
// one symbol for every copy in the process.
const FIXABLE = Symbol.for('edgeblocks.fixable-error');

export class FixableError extends Error {
  /** The words before the message on the CLI's line, or '' for none. */
  readonly [FIXABLE]: string;

  constructor(message: string, prefix = '') {
    super(message);
    this[FIXABLE] = prefix;
  }
}

/** A bad configuration value (file, environment, flag) or a file it names: `key: problem`. */
export class ConfigError extends FixableError {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`, 'configuration error');
    this.name = 'ConfigError';
  }
}

/** The line the CLI prints (after `edgeblocks: `) for an error a user fixes; null for any other error. */
export function fixableLine(e: unknown): string | null {
  if (typeof e !== 'object' || e === null || !(FIXABLE in e)) return null;
  const prefix = (e as { [FIXABLE]: unknown })[FIXABLE];
  const message = (e as { message?: unknown }).message;
  return typeof prefix === 'string' && prefix !== '' ? `${prefix}: ${String(message)}` : String(message);
}

/** Set on an error the storage counted as the full disk although its code does not say so. */
const COUNTED_FULL = Symbol('the full disk');

/**
 * Marks `e` (an I/O error on a disk with no room left, StorageHealth) as the full disk, so that
 * every later look at it (the REST status, the alerts) sees what the storage counted it as.
 */
export function countAsDiskFull(e: unknown): void {
  if (typeof e === 'object' && e !== null) (e as { [COUNTED_FULL]?: true })[COUNTED_FULL] = true;
}

/** Whether `e` is a write failing because the disk (or its quota) is full: SQLite's or the system's. */
export function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return true;
  return typeof e === 'object' && e !== null && COUNTED_FULL in e;
}

/**
 * Whether `e` is a write the storage refused for a reason other than space: a database or file
 * system gone read-only (an SD card the kernel remounted after errors) or an I/O error.
 */
export function isWriteRefused(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || isDiskFull(e)) return false;
  // Not a bare EIO: a bus (I2C, GPIO) answers that too, and it says nothing about the data dir.
  return code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_IOERR') || code === 'EROFS';
}

/** A write that failed on the storage itself (full, read-only, I/O error), not on what was written. */
export function isStorageFailure(e: unknown): boolean {
  return isDiskFull(e) || isWriteRefused(e);
}
