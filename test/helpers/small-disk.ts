// A small real file system for disk-full tests: a 2 MiB tmpfs mounted for the test file (the
// tests run as root, as CI does), and a way to fill it to the last byte.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { needTools } from './tools.js';

/** Mount a tmpfs of `size` on a new temporary directory; `unmount` removes it again. */
export function smallDisk(prefix: string, size = '2m'): { mountPoint: string; unmount(): void } {
  needTools('mount', 'umount');
  const mountPoint = mkdtempSync(path.join(tmpdir(), prefix));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountPoint]);
  return {
    mountPoint,
    unmount() {
      execFileSync('umount', ['-l', mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    },
  };
}

/** Fill the file system holding `file` to the last byte; ENOSPC ends it. */
export function fill(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [64 * 1024, 4096, 512, 1]) {
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
