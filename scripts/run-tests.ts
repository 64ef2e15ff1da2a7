// Runs the compiled tests (dist-test/test/, written by `npm run build:test`) with tap, by tag:
//   node dist/scripts/run-tests.js [--fast | --slow] [tap options] [test/DIR | test/FILE.test.ts ...]
// --fast leaves out the files tagged slow (scripts/test-tags.ts), --slow runs only those, neither
// runs all; files tagged alone run with no other file beside them. Paths under test/ are run from
// their compiled copies; other arguments go to tap.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { select, tagged, testSources, type Selection } from './test-tags.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const COMPILED = 'dist-test';

const args = process.argv.slice(2);
const only: Selection = args.includes('--slow') ? 'slow' : args.includes('--fast') ? 'fast' : 'all';
const isPath = (a: string) => /^(\.\/)?test\//.test(a);
const paths = args.filter(isPath).map((a) => path.normalize(a).replace(/\/$/, ''));
const tapArgs = args.filter((a) => a !== '--slow' && a !== '--fast' && !isPath(a));

let sources: string[];
try {
  sources = testSources(ROOT, paths.length ? paths : ['test']);
} catch (e) {
  console.error(`run-tests: ${(e as Error).message}`);
  process.exit(1);
}
const compiled = (f: string) => path.join(COMPILED, f.replace(/\.ts$/, '.js'));
const chosen = select(ROOT, sources, only);
const files = chosen.map(compiled);
// Files held to real-time limits run with no other file beside them. (tap runs the files in
// name order whatever order they are given in, so a serial file drains the pool where it falls.)
const alone = tagged(ROOT, chosen, 'alone').map((f) => `--serial=${compiled(f)}`);
const missing = files.filter((f) => !existsSync(path.join(ROOT, f)));
if (missing.length) {
  console.error(`run-tests: not compiled: ${missing.join(', ')}; run npm run build:test first`);
  process.exit(1);
}
if (!files.length) {
  console.error('run-tests: no test files chosen');
  process.exit(1);
}
// One file more than cores: most of them wait on a child process, a broker or a socket for much
// of their time (tap's own default leaves a core free, which on 2 cores runs one file at a time).
// The files held to real-time limits run alone (above), so the extra one does not crowd them.
const jobs = tapArgs.some((a) => /^(--jobs|-j)/.test(a)) ? [] : [`--jobs=${availableParallelism() + 1}`];
console.error(`run-tests: ${files.length} of ${sources.length} test files (${only})`);
// The compiled tests are JavaScript: no TypeScript loader in the test processes (half a second each).
const res = spawnSync(
  path.join(ROOT, 'node_modules/.bin/tap'),
  ['--test-env=TAP_TYPE_STRIP_ONLY=1', ...jobs, ...alone, ...tapArgs, ...files],
  { cwd: ROOT, stdio: 'inherit' },
);
process.exit(res.status ?? 1);
