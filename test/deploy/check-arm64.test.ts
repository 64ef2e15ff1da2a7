// scripts/check-arm64.sh builds an arm64 userland and runs the suite in it (hours under
// emulation; run by hand, figures in docs/development.md). Here only what runs in a second: its usage,
// and that bad options are refused before anything is built or mounted.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { limit } from '../helpers/limits.js';
import { ROOT } from '../helpers/root.js';
import { needTools } from '../helpers/tools.js';

needTools('bash');

const script = join(ROOT, 'scripts', 'check-arm64.sh');
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync('bash', [script, ...args], { encoding: 'utf8', timeout: limit(10000), env: { ...process.env, ...env } });
const isRoot = process.getuid?.() === 0;

t.test('--help prints the usage and every option', async (t) => {
  const res = run(['--help']);
  t.equal(res.status, 0, res.stderr);
  for (const option of ['--keep', '--reuse', '-- ARGS', 'ARM64_CACHE', 'EDGEBLOCKS_TEST_SLOWDOWN'])
    t.match(res.stdout, option);
  t.notMatch(res.stdout, /^#/m, 'no comment markers left');
});

t.test('an unknown option is refused with exit 2', async (t) => {
  const res = run(['--fast']);
  t.equal(res.status, 2);
  t.match(res.stderr, /unknown option --fast/);
});

t.test(
  '--reuse needs test files and a kept userland; nothing is built',
  { skip: !isRoot && 'the root check comes first' },
  async (t) => {
    const cache = mkdtempSync(join(tmpdir(), 'edgeblocks-arm64-'));
    t.teardown(() => rmSync(cache, { recursive: true, force: true }));
    const noFiles = run(['--reuse'], { ARM64_CACHE: cache });
    t.equal(noFiles.status, 1);
    t.match(noFiles.stderr, /--reuse runs some test files: give them after --/);
    const noRoot = run(['--reuse', '--', 'test/codec'], { ARM64_CACHE: cache });
    t.equal(noRoot.status, 1);
    t.match(noRoot.stderr, new RegExp(`no userland with node_modules in ${cache}/root`));
  },
);
