// Helper modules inside test/ are never run as test files (issue 18): `tap test/<dir>` lists only
// *.test.ts files, so a run reports no "SKIP no tests found" for a helper.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
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
