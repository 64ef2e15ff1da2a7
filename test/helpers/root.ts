// The repository root, found from this file: the tests run from test/ (`npx tap test/x.test.ts`)
// and compiled from dist-test/test/ (`npm test`), so a path relative to a test's own file would
// point into dist-test/ in the second case. Reach repository files (fixtures, scripts, dist/)
// through ROOT instead.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return dir;
}

export const ROOT = findRoot();
