// A full disk, as writes meet it: SQLite's SQLITE_FULL or the system's ENOSPC. The first failed
// write marks the data dir full (one log line), system/status and the dashboard show it, REST
// answers such writes 507 "disk full", and reads and control go on from memory. Once the data dir
// has room again (checked when asked, at most every few seconds) it is no longer full (one line).
// Storage that refuses writes with room left (a card gone read-only, I/O errors) is the same
// story: `refused` in status, 503 for the writes, and a probe write, at most every few seconds
// while asked, tells when it takes writes again.
import { statfsSync } from 'node:fs';
import type { Logger } from '../log.js';
import { countAsDiskFull, isDiskFull, isWriteRefused } from '../shared/errors.js';

/** Free bytes the data dir needs before it counts as writable again. */
export const ROOM_NEEDED_BYTES = 1024 * 1024;
/** How often a full disk's free space is read again, here and by the disk-full alert. */
export const DISK_RECHECK_MS = 2000;

export { isDiskFull, isWriteRefused };

export const DISK_FULL_MESSAGE =
  'disk full: the data directory has no space left, so this change was not stored; reads and control go on. Free some space and try again';

export const WRITE_REFUSED_MESSAGE =
  'storage not writable: the data directory refuses writes (read-only or failing; see system/status), so this change was not stored; reads and control go on';

export interface StorageStatus {
  full: boolean;
  since: string | null;
  freeBytes: number | null;
  /** The storage refuses writes with room left: since when, and the error of the first refused write. */
  refused: { since: string; error: string } | null;
}

export class StorageHealth {
  private fullSince: number | null = null;
  private checkedAt = 0;
  private refusedSince: { at: number; error: string } | null = null;
  private probedAt = 0;

  /** `probe` makes one small write, throwing when the storage refuses it. */
  constructor(
    private readonly dataDir: string,
    private readonly log: Pick<Logger, 'warn' | 'info'>,
    private readonly probe: () => void,
    private readonly freeBytes: (dir: string) => number | null = freeBytesOf,
  ) {}

  /** Note a failed write; true when it failed on the storage (full, read-only, I/O error), false for any other error. */
  noteError(e: unknown): boolean {
    const refused = isWriteRefused(e);
    // SQLite can answer an I/O error where the disk is full: that is the full disk, not a second
    // problem, and it is marked so, for the REST answer (507) to say what status says.
    if (refused && (this.freeBytes(this.dataDir) ?? Infinity) < ROOM_NEEDED_BYTES) countAsDiskFull(e);
    else if (refused) {
      this.noteRefused(e);
      return true;
    }
    if (!isDiskFull(e)) return false;
    if (this.fullSince === null) {
      this.fullSince = Date.now(); // shown as a time; the rechecks count on the monotonic clock
      this.checkedAt = performance.now();
      this.log.warn(
        { dir: this.dataDir, code: (e as { code: string }).code },
        `disk full: writes to ${this.dataDir} fail; changes are refused (507) until there is space again; reads and control go on`,
      );
    }
    return true;
  }

  get full(): boolean {
    if (this.fullSince !== null && performance.now() - this.checkedAt >= DISK_RECHECK_MS) {
      this.checkedAt = performance.now();
      const free = this.freeBytes(this.dataDir);
      if (free !== null && free >= ROOM_NEEDED_BYTES) {
        this.log.info(
          { dir: this.dataDir, freeBytes: free },
          `disk space back in ${this.dataDir}: writes are accepted again`,
        );
        this.fullSince = null;
      }
    }
    return this.fullSince !== null;
  }

  private noteRefused(e: unknown): void {
    if (this.refusedSince !== null) return;
    const error = `${(e as { code: string }).code}: ${(e as Error).message}`;
    this.refusedSince = { at: Date.now(), error };
    this.probedAt = performance.now();
    this.log.warn(
      { dir: this.dataDir, error },
      `storage refuses writes to ${this.dataDir} (${error}); changes are refused (503) until it takes them again; reads and control go on`,
    );
  }

  /** The storage refuses writes; once asked at least DISK_RECHECK_MS later, a probe write tells whether it still does. */
  get refused(): boolean {
    if (this.refusedSince !== null && performance.now() - this.probedAt >= DISK_RECHECK_MS) {
      this.probedAt = performance.now();
      try {
        this.probe();
        this.log.info({ dir: this.dataDir }, `storage takes writes to ${this.dataDir} again`);
        this.refusedSince = null;
      } catch {
        // still refused
      }
    }
    return this.refusedSince !== null;
  }

  /** The error of the first refused write while the storage refuses writes (probed as `refused`), else null. */
  get refusedError(): string | null {
    return this.refused ? this.refusedSince!.error : null;
  }

  status(): StorageStatus {
    const full = this.full;
    const refused = this.refused ? this.refusedSince : null;
    return {
      full,
      since: this.fullSince === null ? null : new Date(this.fullSince).toISOString(),
      freeBytes: this.freeBytes(this.dataDir),
      refused: refused && { since: new Date(refused.at).toISOString(), error: refused.error },
    };
  }
}

/** Space left to unprivileged writers on the file system holding `dir`; null when it cannot be read. */
export function diskSpace(dir: string): { freeBytes: number; freePercent: number | null } | null {
  try {
    const s = statfsSync(dir);
    return { freeBytes: s.bavail * s.bsize, freePercent: s.blocks > 0 ? (s.bavail / s.blocks) * 100 : null };
  } catch {
    return null;
  }
}

function freeBytesOf(dir: string): number | null {
  return diskSpace(dir)?.freeBytes ?? null;
}
