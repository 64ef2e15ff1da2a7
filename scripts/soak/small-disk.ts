// A small real file system: a tmpfs (needs root, as CI runs) that can be filled to the last
// byte. The soak's data dir, and the disk-full tests' (test/helpers/small-disk.ts).
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Fill the file system holding `file` to the last byte; ENOSPC ends it. */
export function fillToLastByte(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1024 * 1024, 64 * 1024, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw e;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** A tmpfs of `size` mounted on `mountPoint` (made if missing); `filler` fills it. */
export class SmallDisk {
  readonly filler: string;

  constructor(
    readonly mountPoint: string,
    size: string,
  ) {
    mkdirSync(mountPoint, { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountPoint], { stdio: 'pipe' });
    } catch (e) {
      rmSync(mountPoint, { recursive: true, force: true });
      throw new Error(`a small tmpfs (a disk that can be filled) needs root to mount: ${(e as Error).message}`);
    }
    this.filler = path.join(mountPoint, 'filler');
  }

  fill(): void {
    fillToLastByte(this.filler);
  }

  free(): void {
    rmSync(this.filler, { force: true });
  }

  unmount(): void {
    try {
      execFileSync('umount', ['-l', this.mountPoint], { stdio: 'pipe' });
    } catch {
      // already gone
    }
    rmSync(this.mountPoint, { recursive: true, force: true });
  }
}
