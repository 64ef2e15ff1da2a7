// The test files and their tags, for scripts/run-tests.ts: a file is tagged by a line
// `// tags: slow alone (why)` among the comment lines it starts with.
//   slow   an end-to-end file (a browser, the built service started or installed, real timeouts):
//          npm run test:fast leaves it out
//   alone  held to real-time limits (latency, a pty's timing): run after the others, one at a time,
//          with no other file beside it

export const TAGS = ['slow', 'alone'] as const;
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The tags of a test source: the words before `(` on its `// tags:` line. */
export function tagsOf(source: string): string[] {
  for (const line of source.split('\n')) {
    if (!line.startsWith('//')) break;
    const m = /^\/\/ tags: ([^(]*)/.exec(line);
    if (m)
      return m[1]!
        .trim()
        .split(/[\s,]+/)
        .filter(Boolean);
  }
  return [];
}

/** The `*.test.ts` files under `paths` (files or folders, relative to `root`), sorted. */
export function testSources(root: string, paths: string[]): string[] {
  return paths
    .flatMap((p) => {
      const abs = path.join(root, p);
      if (!existsSync(abs)) throw new Error(`${p}: no such test file or folder`);
      if (p.endsWith('.ts')) return [p];
      return readdirSync(abs, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => path.join(p, f));
    })
    .sort();
}

export type Selection = 'all' | 'fast' | 'slow';

/** The sources tagged `tag`. */
export function tagged(root: string, sources: string[], tag: string): string[] {
  return sources.filter((f) => tagsOf(readFileSync(path.join(root, f), 'utf8')).includes(tag));
}

/** The sources a selection runs: `fast` leaves out the files tagged slow, `slow` runs only those. */
export function select(root: string, sources: string[], only: Selection): string[] {
  if (only === 'all') return sources;
  const slow = new Set(tagged(root, sources, 'slow'));
  return sources.filter((f) => slow.has(f) === (only === 'slow'));
}

/**
 * The two passes of a run: `pool`, the files that run side by side, and then `alone`, the files
 * held to real-time limits, one at a time with nothing beside them. Each keeps name order.
 */
export function passes(root: string, sources: string[]): { pool: string[]; alone: string[] } {
  const alone = new Set(tagged(root, sources, 'alone'));
  return { pool: sources.filter((f) => !alone.has(f)), alone: sources.filter((f) => alone.has(f)) };
}
