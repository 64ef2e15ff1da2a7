// The memory settings of the CLI (V8's capped young generation, glibc's arena count: idle RSS)
// are written once, in scripts/runtime-flags.ts, and `npm run flags` writes them where the CLI is
// started: the bin's shebang, `npm start` (and the bench), the systemd unit. The three must be
// what it writes, and Node must accept them there.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FILES, NODE_FLAGS, RUNTIME_ENV, readFiles, shebang, withFlags } from '../../scripts/runtime-flags.js';
import { limit } from '../helpers/limits.js';
import { ROOT } from '../helpers/root.js';

const repo = ROOT;
const flags = NODE_FLAGS.join(' ');
const env = Object.entries(RUNTIME_ENV).map(([k, v]) => `${k}=${v}`);

t.test('the one source holds a capped young generation and two malloc arenas', async (t) => {
  t.match(flags, /--max-semi-space-size=\d+/);
  t.same(RUNTIME_ENV, { MALLOC_ARENA_MAX: '2' });
});

t.test('the shebang, npm start, the bench and the unit are what npm run flags writes', async (t) => {
  const current = readFiles(repo);
  const expected = withFlags(current);
  for (const key of Object.keys(FILES) as Array<keyof typeof FILES>)
    t.equal(current[key], expected[key], `${FILES[key]} (run npm run flags)`);
  // What they say, spelled out: a generator that wrote nothing would pass the loop above.
  t.equal(current.main.split('\n', 1)[0], `#!/usr/bin/env -S ${env.join(' ')} node ${flags}`);
  const pkg = JSON.parse(current.pkg) as { scripts: Record<string, string> };
  t.equal(pkg.scripts.start, `${env.join(' ')} node ${flags} dist/src/main.js`);
  t.match(pkg.scripts.bench, ` node --expose-gc ${flags} dist/scripts/bench.js`);
  t.match(current.unit, new RegExp(`^Environment=NODE_OPTIONS=${flags}$`, 'm'));
  for (const a of env) t.match(current.unit, new RegExp(`^Environment=${a}$`, 'm'));
});

t.test('a place that says otherwise is rewritten; one that cannot be found is an error', async (t) => {
  const current = readFiles(repo);
  const drifted = {
    main: current.main.replace(/^#!.*$/m, '#!/usr/bin/env node'),
    pkg: current.pkg.replace(/("start": )".*"/, '$1"node dist/src/main.js"'),
    unit: current.unit.replace(/^Environment=MALLOC_ARENA_MAX=.*$/m, 'Environment=MALLOC_ARENA_MAX=8'),
  };
  t.not(drifted.main, current.main);
  t.same(withFlags(drifted), withFlags(current), 'written back as the source says');
  t.throws(() => withFlags({ ...current, main: current.main.replace(/^#!.*\n/, '') }), /no shebang/);
  t.throws(
    () => withFlags({ ...current, unit: current.unit.replace(/^# End of the runtime flags\.$/m, '') }),
    /no runtime flags block/,
  );
  t.throws(() => withFlags({ ...current, pkg: current.pkg.replace(/"start": /, '"begin": ') }), /no "start" script/);
});

t.test('node accepts them, as arguments and in NODE_OPTIONS', async (t) => {
  const main = join(repo, 'dist/src/main.js');
  const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
  for (const [how, args, runEnv] of [
    ['arguments', [...NODE_FLAGS, main, '--version'], process.env],
    ['NODE_OPTIONS', [main, '--version'], { ...process.env, NODE_OPTIONS: flags }],
  ] as const) {
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', env: runEnv, timeout: limit(30000) });
    t.equal(run.status, 0, `${how}: ${run.stderr}`);
    t.equal(run.stdout.trim(), version, how);
  }
});

t.test(
  'started as an executable, the built shebang sets them',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async (t) => {
    const main = join(repo, 'dist/src/main.js');
    const built = readFileSync(main, 'utf8').split('\n', 1)[0]!;
    t.equal(built, shebang(), 'tsc kept the shebang');
    // A tiny stand-in entry with the same first line: it reports its own environment and flags.
    const dir = mkdtempSync(join(tmpdir(), 'edgeblocks-shebang-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const probe = join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      `${built}\nconsole.log(JSON.stringify({ arenas: process.env.MALLOC_ARENA_MAX, flags: process.execArgv }));\n`,
      { mode: 0o755 },
    );
    const run = spawnSync(probe, [], { encoding: 'utf8', timeout: limit(30000) });
    t.equal(run.status, 0, run.stderr);
    const seen = JSON.parse(run.stdout) as { arenas: string; flags: string[] };
    t.equal(seen.arenas, RUNTIME_ENV.MALLOC_ARENA_MAX);
    t.same(seen.flags, NODE_FLAGS);
  },
);
