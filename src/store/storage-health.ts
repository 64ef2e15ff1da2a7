// A full disk, as writes meet it: SQLite's SQLITE_FULL or the system's ENOSPC. The first failed
// write marks the data dir full (one log line), system/status and the dashboard show it, REST
// answers such writes 507 "disk full", and reads and control go on from memory. Once the data dir
// has room again (checked when asked, at most every few seconds) it is no longer full (one line).
import { statfsSync } from 'node:fs';
import type { Logger } from '../log.js';
import { isDiskFull } from '../shared/errors.js';

/** Free bytes the data dir needs before it counts as writable again. */
export const ROOM_NEEDED_BYTES = 1024 * 1024;
/** How often a full disk's free space is read again, here and by the disk-full alert. */
export const DISK_RECHECK_MS = 2000;

export { isDiskFull };

export const DISK_FULL_MESSAGE =
  'disk full: the data directory has no space left, so this change was not stored; reads and control go on. Free some space and try again';

export interface StorageStatus {
  full: boolean;
  since: string | null;
  freeBytes: number | null;
}

export class StorageHealth {
  private fullSince: number | null = null;
  private checkedAt = 0;

  constructor(
    private readonly dataDir: string,
    private readonly log: Pick<Logger, 'warn' | 'info'>,
    private readonly freeBytes: (dir: string) => number | null = freeBytesOf,
  ) {}

  /** Note a failed write; true when it failed for a full disk. */
  noteError(e: unknown): boolean {
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

  status(): StorageStatus {
    const full = this.full;
    return {
      full,
      since: this.fullSince === null ? null : new Date(this.fullSince).toISOString(),
      freeBytes: this.freeBytes(this.dataDir),
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
