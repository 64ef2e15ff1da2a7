// A small real file system for disk-full tests: a 2 MiB tmpfs mounted for the test file (the
// tests run as root, as CI does), and a way to fill it to the last byte.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fillToLastByte, SmallDisk } from '../../scripts/soak/small-disk.js';
import { needTools } from './tools.js';

/** Mount a tmpfs of `size` on a new temporary directory; `unmount` removes it again. */
export function smallDisk(prefix: string, size = '2m'): SmallDisk {
  needTools('mount', 'umount');
  return new SmallDisk(mkdtempSync(path.join(tmpdir(), prefix)), size);
}

/** Fill the file system holding `file` to the last byte; ENOSPC ends it. */
export const fill = fillToLastByte;
