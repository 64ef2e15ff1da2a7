// The installer's check of the new release (`edgeblocks check`) sees the settings the service
// will run with: the config file and the EDGEBLOCKS_* variables of the unit's environment, which
// a Pi user sets in a drop-in (`systemctl edit edgeblocks`: Environment= or EnvironmentFile=).
// A value the new release refuses there stops the upgrade before the swap; the installer's own
// environment is not the service's and is not passed. Same sandbox as install-pi.test.ts.
// tags: slow (the installer in a sandbox)
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { limit } from '../helpers/limits.js';
import { ROOT } from '../helpers/root.js';
import { needTools } from '../helpers/tools.js';
import { copyInstaller, fakeMain, installerEnv, writeInstallFakes } from './install-fakes.js';

// Each test runs the installer several times; on a loaded machine the file outlasts tap's 120 s.
t.setTimeout(limit(300_000));

needTools('bash');

const PREFIX = '/opt/eb-test';

// The built CLI as far as the installer sees it: `check` writes the environment it got to
// RECORD (its arguments to RECORD.argv) and refuses EDGEBLOCKS_EMIT_INTERVAL=0 as the real one does (exit 2, the key and where
// it came from); a start logs its port and answers system/ping.
const checkRecording = (record: string) =>
  fakeMain(`  require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.env));
  require('node:fs').writeFileSync(${JSON.stringify(`${record}.argv`)}, JSON.stringify(process.argv.slice(2)));
  if (process.env.EDGEBLOCKS_EMIT_INTERVAL !== '0') process.exit(0);
  console.error('edgeblocks: configuration error: emitInterval (env EDGEBLOCKS_EMIT_INTERVAL): must be an integer 1-2147483647, got 0');
  process.exit(2);`);

interface Sandbox {
  dir: string;
  root: string;
  src: string;
  state: string;
  record: string;
  env: NodeJS.ProcessEnv;
}

function makeSandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'eb-install-env-'));
  const root = join(dir, 'root');
  const src = join(dir, 'checkout');
  const state = join(dir, 'state');
  const bin = join(dir, 'bin');
  const record = join(dir, 'check-env.json');
  for (const d of [root, state, bin, join(src, 'dist/src'), join(src, 'systemd'), join(src, 'scripts')])
    mkdirSync(d, { recursive: true });
  writeInstallFakes(bin, state);
  writeFileSync(join(src, 'package-lock.json'), '{"lockfileVersion":3}\n');
  writeFileSync(join(src, 'dist/src/main.js'), checkRecording(record));
  copyInstaller(ROOT, src);
  return { dir, root, src, state, record, env: installerEnv(bin, state, root, PREFIX) };
}

function install(sb: Sandbox, version: string, env: NodeJS.ProcessEnv = {}) {
  writeFileSync(join(sb.src, 'package.json'), `{"name":"edgeblocks","version":"${version}"}\n`);
  writeFileSync(join(sb.state, 'calls'), '');
  rmSync(sb.record, { force: true });
  rmSync(`${sb.record}.argv`, { force: true });
  const result = spawnSync('bash', [join(sb.src, 'scripts/install-pi.sh')], {
    env: { ...sb.env, ...env },
    encoding: 'utf8',
    timeout: limit(30000),
    killSignal: 'SIGKILL',
  });
  const calls = readFileSync(join(sb.state, 'calls'), 'utf8').split('\n').filter(Boolean);
  const checked = existsSync(sb.record)
    ? (JSON.parse(readFileSync(sb.record, 'utf8')) as Record<string, string>)
    : null;
  const argv = existsSync(`${sb.record}.argv`)
    ? (JSON.parse(readFileSync(`${sb.record}.argv`, 'utf8')) as string[])
    : null;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, calls, checked, argv };
}

/** A file in the sandbox root, with its directories. */
function put(sb: Sandbox, path: string, text: string): string {
  const file = join(sb.root, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return path;
}

const DROP_IN = 'etc/systemd/system/edgeblocks.service.d/override.conf';
/** How a refusal names the variable the drop-in sets. */
const FROM_DROP_IN = /EDGEBLOCKS_EMIT_INTERVAL from \/etc\/systemd\/system\/edgeblocks\.service\.d\/override\.conf/;

/** The sandbox with 1.0.0 installed and running. */
function installed(t: Test): { sb: Sandbox; current: () => string; v1: string } {
  const sb = makeSandbox();
  t.teardown(() => rmSync(sb.dir, { recursive: true, force: true }));
  const first = install(sb, '1.0.0');
  t.equal(first.code, 0, first.stderr);
  const current = () => readlinkSync(join(sb.root, PREFIX));
  return { sb, current, v1: current() };
}

function refusedUpgrade(t: Test, sb: Sandbox, current: () => string, v1: string, from: RegExp) {
  const refused = install(sb, '2.0.0');
  t.equal(refused.code, 1, 'the installer fails');
  t.match(refused.stderr, /the new release refuses .*; the service would not start with/);
  t.match(
    refused.stderr,
    /emitInterval \(env EDGEBLOCKS_EMIT_INTERVAL\): must be an integer 1-2147483647/,
    "with the new release's line naming the variable",
  );
  t.match(refused.stderr, from, 'and where the service gets it from');
  t.match(refused.stderr, /running release \(1\.0\.0-[0-9a-f]+\) is untouched/);
  t.equal(current(), v1, 'still on 1.0.0');
  t.same(
    refused.calls.filter((c) => c.startsWith('systemctl')),
    [],
    'the service was not restarted',
  );
}

t.test('a drop-in Environment= the new release refuses stops the upgrade before the swap', async (t) => {
  const { sb, current, v1 } = installed(t);
  put(sb, DROP_IN, '[Service]\nEnvironment=EDGEBLOCKS_EMIT_INTERVAL=0\n');
  refusedUpgrade(t, sb, current, v1, FROM_DROP_IN);
});

t.test('a value from the drop-in EnvironmentFile= is checked too, and wins over Environment=', async (t) => {
  const { sb, current, v1 } = installed(t);
  put(sb, 'etc/edgeblocks/env', '# from the drop-in\nEDGEBLOCKS_EMIT_INTERVAL="0"\n');
  put(sb, DROP_IN, '[Service]\nEnvironment=EDGEBLOCKS_EMIT_INTERVAL=2000\nEnvironmentFile=-/etc/edgeblocks/env\n');
  refusedUpgrade(t, sb, current, v1, /EDGEBLOCKS_EMIT_INTERVAL from \/etc\/edgeblocks\/env/);
});

t.test('an EDGEBLOCKS_ variable of DefaultEnvironment= in system.conf is checked too, below the unit’s', async (t) => {
  const { sb, current, v1 } = installed(t);
  put(sb, 'etc/systemd/system.conf', '[Manager]\nDefaultEnvironment=EDGEBLOCKS_EMIT_INTERVAL=0\n');
  refusedUpgrade(t, sb, current, v1, /EDGEBLOCKS_EMIT_INTERVAL from \/etc\/systemd\/system\.conf/);
  // The unit's Environment= wins over it, as in systemd: the new release gets that value.
  put(sb, DROP_IN, '[Service]\nEnvironment=EDGEBLOCKS_EMIT_INTERVAL=2000\n');
  const upgraded = install(sb, '2.0.0');
  t.equal(upgraded.code, 0, upgraded.stderr);
  t.equal(upgraded.checked?.EDGEBLOCKS_EMIT_INTERVAL, '2000');
});

t.test('with no config file, the environment alone is still checked', async (t) => {
  const { sb, current, v1 } = installed(t);
  rmSync(join(sb.root, 'etc/edgeblocks/config.json'));
  put(sb, DROP_IN, '[Service]\nEnvironment=EDGEBLOCKS_EMIT_INTERVAL=0\n');
  refusedUpgrade(t, sb, current, v1, FROM_DROP_IN);
});

t.test("valid drop-in variables pass: the check gets them, and only them, not the installer's", async (t) => {
  const { sb, current, v1 } = installed(t);
  put(sb, 'etc/edgeblocks/env', 'EDGEBLOCKS_HISTORY=off\n; a comment\nOTHER=x\n');
  put(
    sb,
    DROP_IN,
    [
      '[Service]',
      'Environment="EDGEBLOCKS_PUBLIC_URL=http://fermenter 2.local:5000/" EDGEBLOCKS_EMIT_INTERVAL=2000',
      'Environment=NOT_OURS=1',
      'EnvironmentFile=/etc/edgeblocks/env',
      '',
    ].join('\n'),
  );
  // A later drop-in, read after override.conf: its value is the one the service gets.
  put(sb, 'etc/systemd/system/edgeblocks.service.d/zz-log.conf', '[Service]\nEnvironment=EDGEBLOCKS_LOG_LEVEL=debug\n');
  put(sb, 'etc/systemd/system/edgeblocks.service.d/aa-log.conf', '[Service]\nEnvironment=EDGEBLOCKS_LOG_LEVEL=warn\n');
  const good = install(sb, '2.0.0', { EDGEBLOCKS_EMIT_INTERVAL: '0', EDGEBLOCKS_AUTH: 'true' });
  t.equal(good.code, 0, good.stderr);
  t.not(current(), v1, 'upgraded');
  t.ok(good.calls.includes('systemctl restart edgeblocks.service'), 'and restarted');
  const checked = good.checked ?? {};
  t.same(
    Object.fromEntries(Object.entries(checked).filter(([k]) => k !== 'PATH' && k !== 'HOME')),
    {
      EDGEBLOCKS_PUBLIC_URL: 'http://fermenter 2.local:5000/',
      EDGEBLOCKS_EMIT_INTERVAL: '2000',
      EDGEBLOCKS_LOG_LEVEL: 'debug',
      EDGEBLOCKS_HISTORY: 'off',
    },
    "the check ran with the unit's EDGEBLOCKS_ variables and nothing else",
  );
});

t.test(
  "the check reads the service's data dir (users with auth on, the database), the one the unit gives",
  async (t) => {
    const { sb } = installed(t);
    const again = install(sb, '2.0.0');
    t.equal(again.code, 0, again.stderr);
    const unit = readFileSync(join(sb.root, 'etc/systemd/system/edgeblocks.service'), 'utf8');
    const dataDir = /ExecStart=.* --data-dir (\S+)/.exec(unit)?.[1];
    t.equal(dataDir, '/var/lib/edgeblocks', "the unit's data dir");
    t.same(
      again.argv,
      [
        'check',
        '--root',
        sb.root,
        '--config',
        join(sb.root, 'etc/edgeblocks/config.json'),
        '--data-dir',
        join(sb.root, dataDir ?? ''),
      ],
      'the check was given the root (DESTDIR), the config file and that data dir (under DESTDIR)',
    );
  },
);
