// A test that starts the demo (scripts/demo.js) gives it the demo's start limit, not the CLI's:
// the demo loads the service's plain modules (not the bundle the CLI starts from) and seeds its
// data dir before it listens, and beside other test files it missed the CLI's 15 s (fbc701b).
// So every test starts it through startDemo (test/helpers/cli.ts), the one place that names the
// script and its limit (scaled by limit(), EDGEBLOCKS_TEST_SLOWDOWN); here the sources are read
// for a test that names the script itself or hands it to startScript with the CLI's limit.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/root.js';

const HELPER = 'test/helpers/cli.ts';

/** Every test source but the helper and this file. */
const sources = readdirSync(path.join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => `test/${f}`)
  .filter((f) => f !== HELPER && f !== 'test/suite/demo-start.test.ts');

/** The source without its comment lines (a comment may name the script). */
const code = (file: string) =>
  readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/?\*)/.test(line))
    .join('\n');

t.test('only the shared helper names scripts/demo.js', async (t) => {
  t.ok(code(HELPER).includes("'scripts/demo.js'"), `${HELPER} names it`);
  t.ok(sources.length > 100, `the test sources read (${sources.length})`);
  const naming = sources.filter((f) => code(f).includes("'scripts/demo.js'"));
  t.same(naming, [], 'other tests start it with startDemo, or run it with DEMO (from test/helpers/cli.ts)');
});

t.test('no test starts the demo with startScript (the CLI start limit)', async (t) => {
  const starting = sources.filter((f) => /startScript\(\s*DEMO\b/.test(code(f)));
  t.same(starting, [], 'startDemo instead');
});
