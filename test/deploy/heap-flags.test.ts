// The memory settings of the CLI (V8's capped young generation, glibc's arena count: idle RSS)
// are the same wherever it is started: the bin's shebang, the systemd unit, `npm start`; and
// Node accepts them there.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCliShebang } from '../../scripts/cli-shebang.js';
import { limit } from '../helpers/limits.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const shebang = readFileSync(join(repo, 'src/main.ts'), 'utf8').split('\n', 1)[0]!;
const parsed = parseCliShebang(shebang);
const assignments = parsed.assignments;
const flags = parsed.flags.join(' ');
const envs = assignments.map((a) => `${a} `).join('');

t.test('the shebang passes heap flags to node and sets the malloc arenas', async (t) => {
  t.match(flags, /--max-semi-space-size=\d+/, shebang);
  t.same(assignments, ['MALLOC_ARENA_MAX=2'], shebang);
});

t.test('the systemd unit and npm start use the same flags', async (t) => {
  const unit = readFileSync(join(repo, 'systemd/edgeblocks.service'), 'utf8');
  t.match(unit, new RegExp(`^Environment=NODE_OPTIONS=${flags}$`, 'm'));
  for (const a of assignments) t.match(unit, new RegExp(`^Environment=${a}$`, 'm'));
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.equal(pkg.scripts.start, `${envs}node ${flags} dist/src/main.js`);
});

t.test('node accepts them, as arguments and in NODE_OPTIONS', async (t) => {
  const main = join(repo, 'dist/src/main.js');
  const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
  for (const [how, args, env] of [
    ['arguments', [...flags.split(' '), main, '--version'], process.env],
    ['NODE_OPTIONS', [main, '--version'], { ...process.env, NODE_OPTIONS: flags }],
  ] as const) {
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', env, timeout: limit(30000) });
    t.equal(run.status, 0, `${how}: ${run.stderr}`);
    t.equal(run.stdout.trim(), version, how);
  }
});

t.test(
  'started as an executable, the shebang sets them',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async (t) => {
    const main = join(repo, 'dist/src/main.js');
    // A tiny stand-in entry with the same first line: it reports its own environment and flags.
    const dir = mkdtempSync(join(tmpdir(), 'edgeblocks-shebang-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const probe = join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      `${readFileSync(main, 'utf8').split('\n', 1)[0]}\nconsole.log(JSON.stringify({ arenas: process.env.MALLOC_ARENA_MAX, flags: process.execArgv }));\n`,
      { mode: 0o755 },
    );
    const run = spawnSync(probe, [], { encoding: 'utf8', timeout: limit(30000) });
    t.equal(run.status, 0, run.stderr);
    const seen = JSON.parse(run.stdout) as { arenas: string; flags: string[] };
    t.equal(`MALLOC_ARENA_MAX=${seen.arenas}`, assignments[0]);
    t.same(seen.flags, flags.split(' '));
  },
);
