// The end of CI's log is what a CI report shows: .ci/summary lists each failed assertion under its
// test file there, then the line `N passed, N failed` (a run that failed with no count is 1 failed).
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { needTools } from '../helpers/tools.js';

needTools('bash');

const LOG = `# Subtest: dist-test/test/history/query-slices.test.js
    # Subtest: a raw query lets timers run
        ok 1 - every field answered
        not ok 2 - the timer ran during the query (0 times in 300 ms)
        1..2
    not ok 1 - a raw query lets timers run # time=310ms
not ok 1 - dist-test/test/history/query-slices.test.js # time=400ms

# Subtest: dist-test/test/store/ok.test.js
    ok 1 - fine
ok 2 - dist-test/test/store/ok.test.js

# { total: 5, pass: 3, fail: 2 }
`;

function summary(log: string, status: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'ci-summary-'));
  try {
    writeFileSync(path.join(dir, 'log'), log);
    const r = spawnSync('bash', [path.join(ROOT, '.ci/summary'), path.join(dir, 'log'), String(status)], {
      encoding: 'utf8',
    });
    t.equal(r.status, 0, `.ci/summary ran (${r.stderr})`);
    return r.stdout.trimEnd().split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

t.test('failed assertions are named under their file, and the counts come last', async (t) => {
  const lines = summary(LOG, 1);
  t.same(lines, [
    'ci: failed in dist-test/test/history/query-slices.test.js: not ok 2 - the timer ran during the query (0 times in 300 ms)',
    'ci: failed in dist-test/test/history/query-slices.test.js: not ok 1 - a raw query lets timers run # time=310ms',
    'ci: failed in dist-test/test/history/query-slices.test.js: not ok 1 - dist-test/test/history/query-slices.test.js # time=400ms',
    '3 passed, 2 failed',
  ]);
});

t.test('a run that failed before tap counted anything is one failure', async (t) => {
  t.same(summary('npm ERR! build failed\n', 2), ['0 passed, 1 failed']);
  t.same(summary('# { total: 4, pass: 4 }\n', 0), ['4 passed, 0 failed']);
});

t.test('a log of two tap runs (the pool, then the files tagged alone) counts both', async (t) => {
  const alone = `# Subtest: dist-test/test/mqtt/cadence.test.js
    ok 1 - on time
ok 1 - dist-test/test/mqtt/cadence.test.js

# { total: 7, pass: 6, fail: 1 }
`;
  t.same(summary(`${LOG}\n${alone}`, 1).at(-1), '9 passed, 3 failed');
  t.same(summary('# { total: 4, pass: 4 }\n# { total: 2, pass: 2 }\n', 0), ['6 passed, 0 failed']);
});
