// Where the doctor looks: the system's directories under one root, `/` on a Pi. Tests (and a
// look at an SD card mounted elsewhere) give another root with --root.
import { join, relative } from 'node:path';

export interface Roots {
  root: string;
  boot: string;
  etc: string;
  proc: string;
  sys: string;
  dev: string;
  run: string;
}

export function rootsAt(root = '/'): Roots {
  const at = (dir: string) => join(root, dir);
  return { root, boot: at('boot'), etc: at('etc'), proc: at('proc'), sys: at('sys'), dev: at('dev'), run: at('run') };
}

/** A path as it is on the machine looked at: under --root DIR, without DIR. */
export function shown(roots: Roots, path: string): string {
  if (roots.root === '/') return path;
  const rel = relative(roots.root, path);
  return rel.startsWith('..') ? path : `/${rel}`;
}
