// Runs the compiled tests (dist-test/test/, written by `npm run build:test`) with tap, by tag:
//   node dist/scripts/run-tests.js [--fast | --slow] [tap options] [test/DIR | test/FILE.test.ts ...]
// --fast leaves out the files tagged slow (scripts/test-tags.ts), --slow runs only those, neither
// runs all; files tagged alone run after the others, one at a time (a second tap run). Paths under
// test/ are run from their compiled copies; other arguments go to tap. A bad argument (a jobs
// option other than -j N, -jN, --jobs N or --jobs=N with N from 1, a path not there) exits 2.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runArgs, type RunArgs } from './run-args.js';
import { passes, select, testSources } from './test-tags.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const COMPILED = 'dist-test';

let args: RunArgs;
let sources: string[];
try {
  args = runArgs(process.argv.slice(2), availableParallelism());
  sources = testSources(ROOT, args.paths.length ? args.paths : ['test']);
} catch (e) {
  // A bad argument (a jobs option tap would not take, a test path not there): one line, exit 2.
  console.error(`run-tests: ${(e as Error).message}`);
  process.exit(2);
}
const compiled = (f: string) => path.join(COMPILED, f.replace(/\.ts$/, '.js'));
const chosen = select(ROOT, sources, args.only);
const files = chosen.map(compiled);
const missing = files.filter((f) => !existsSync(path.join(ROOT, f)));
if (missing.length) {
  console.error(`run-tests: not compiled: ${missing.join(', ')}; run npm run build:test first`);
  process.exit(1);
}
if (!files.length) {
  console.error('run-tests: no test files chosen');
  process.exit(1);
}
// Two passes. The pool runs one file more than cores: most files wait on a child process, a
// broker or a socket for much of their time (tap's own default leaves a core free, which on 2
// cores runs one file at a time). Then the files held to real-time limits (tagged alone) run one
// at a time with nothing beside them. They used to run in the same tap as --serial files, but tap
// runs files in name order and drains the whole pool before each serial file, so every alone
// file left the other cores idle while the files before it finished.
const { pool, alone } = passes(ROOT, chosen);
const count = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
const runs: { what: string; args: string[] }[] = [];
if (pool.length) runs.push({ what: `${count(pool.length)} side by side`, args: [...args.pool, ...pool.map(compiled)] });
if (alone.length)
  runs.push({
    what: `${count(alone.length)} tagged alone, one at a time`,
    args: [...args.alone, ...alone.map(compiled)],
  });
console.error(`run-tests: ${files.length} of ${sources.length} test files (${args.only})`);
let status = 0;
for (const run of runs) {
  console.error(`run-tests: ${run.what}`);
  // The compiled tests are JavaScript: no TypeScript loader in the test processes (half a second each).
  const res = spawnSync(path.join(ROOT, 'node_modules/.bin/tap'), ['--test-env=TAP_TYPE_STRIP_ONLY=1', ...run.args], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  const code = res.status ?? 1;
  if (code !== 0 && status === 0) status = code;
  if (status !== 0 && args.pool.includes('--bail')) break;
}
process.exit(status);
