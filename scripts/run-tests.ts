// Runs the compiled tests (dist-test/test/, written by `npm run build:test`) with tap, by tag:
//   node dist/scripts/run-tests.js --fast [tap options] [test/DIR | test/FILE.test.ts ...]
//   --fast leaves out the files tagged slow, --slow runs only those, neither runs all.
// A test file is tagged by a line `// tags: slow (why)` among its first comment lines. Paths under
// test/ are run from their compiled copies; everything else is passed to tap as it is.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const COMPILED = 'dist-test';

/** The tags of a test source file: its `// tags: a b (why)` line before the first import. */
function tagsOf(source: string): string[] {
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

function testSources(dir: string): string[] {
  const abs = path.join(ROOT, dir);
  if (!existsSync(abs)) throw new Error(`${dir}: no such test file or folder`);
  if (!abs.endsWith('.ts')) {
    return readdirSync(abs, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => path.join(dir, f));
  }
  return [dir];
}

const args = process.argv.slice(2);
const only = args.includes('--slow') ? 'slow' : args.includes('--fast') ? 'fast' : 'all';
const paths = args.filter((a) => /^(\.\/)?test\//.test(a)).map((a) => path.normalize(a).replace(/\/$/, ''));
const tapArgs = args.filter(
  (a) => a !== '--slow' && a !== '--fast' && !paths.includes(path.normalize(a).replace(/\/$/, '')),
);

const sources = (paths.length ? paths : ['test']).flatMap(testSources).sort();
const chosen = sources.filter((f) => {
  if (only === 'all') return true;
  const slow = tagsOf(readFileSync(path.join(ROOT, f), 'utf8')).includes('slow');
  return only === 'slow' ? slow : !slow;
});
const files = chosen.map((f) => path.join(COMPILED, f.replace(/\.ts$/, '.js')));
const missing = files.filter((f) => !existsSync(path.join(ROOT, f)));
if (missing.length) {
  console.error(`not compiled: ${missing.join(', ')}; run npm run build:test first`);
  process.exit(1);
}
if (!files.length) {
  console.error('no test files chosen');
  process.exit(1);
}
console.error(`run-tests: ${files.length} of ${sources.length} files (${only})`);
// The compiled tests are JavaScript: no TypeScript loader in the test processes (half a second each).
const res = spawnSync(
  path.join(ROOT, 'node_modules/.bin/tap'),
  ['--test-env=TAP_TYPE_STRIP_ONLY=1', ...tapArgs, ...files],
  { cwd: ROOT, stdio: 'inherit' },
);
process.exit(res.status ?? 1);
