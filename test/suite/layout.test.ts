// Helper modules inside test/ are never run as test files (issue 18): `tap test/<dir>` lists only
// *.test.ts files, so a run reports no "SKIP no tests found" for a helper.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

t.test('tap lists only *.test.ts files, also when given directories', async (t) => {
  const dirs = readdirSync(path.join(ROOT, 'test'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `test/${d.name}`);
  const res = spawnSync(path.join(ROOT, 'node_modules/.bin/tap'), ['list', ...dirs], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: limit(60000),
    killSignal: 'SIGKILL',
  });
  t.equal(res.status, 0, res.stderr);
  const listed = res.stdout.split('\n').filter(Boolean);
  const expected = dirs
    .flatMap((d) => readdirSync(path.join(ROOT, d), { recursive: true, encoding: 'utf8' }).map((f) => `${d}/${f}`))
    .filter((f) => f.endsWith('.test.ts'));
  t.same(
    listed.filter((f) => !f.endsWith('.test.ts')),
    [],
    'no helper module is listed as a test',
  );
  t.same([...listed].sort(), [...expected].sort(), 'every test file is listed');
  t.ok(listed.some((f) => f === 'test/suite/layout.test.ts'));
});

t.test('npm test runs the compiled copy of every test file, with nothing to register', async (t) => {
  const sources = readdirSync(path.join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `test/${f}`);
  const res = spawnSync(path.join(ROOT, 'node_modules/.bin/tap'), ['list'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: limit(60000),
    killSignal: 'SIGKILL',
  });
  t.equal(res.status, 0, res.stderr);
  const listed = res.stdout.split('\n').filter(Boolean);
  t.ok(
    listed.every((f) => f.startsWith('dist-test/test/') && f.endsWith('.test.js')),
    'tap with no arguments runs the compiled tests (dist-test/, written by npm run build:test)',
  );
  t.same(
    listed.map((f) => f.slice('dist-test/'.length).replace(/\.js$/, '.ts')).sort(),
    sources.sort(),
    'one compiled file for each test/**/*.test.ts (a difference: dist-test is stale, run npm run build:test)',
  );
});

t.test('no test reaches repository files relative to its own file (that is dist-test/ when compiled)', async (t) => {
  const files = readdirSync(path.join(ROOT, 'test'), { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.ts') && f !== 'helpers/root.ts',
  );
  const relative =
    /new URL\(\s*['`]\.\.\/[^'`]*['`],\s*import\.meta\.url|dirname\(\s*fileURLToPath\(\s*import\.meta\.url/;
  const offenders = files.filter((f) => relative.test(readFileSync(path.join(ROOT, 'test', f), 'utf8')));
  t.same(offenders, [], 'use ROOT from test/helpers/root.ts for fixtures, scripts and dist/');
});
