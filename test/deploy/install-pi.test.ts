// The installer in a throwaway root: fake systemctl/useradd/groupadd/usermod/userdel/apt-get/
// npm/getent/modprobe on PATH (install-fakes.ts) record every call and keep users and groups in a state dir.
// tags: slow (the installer in a sandbox, the service started from it)
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { limit } from '../helpers/limits.js';
import { ROOT } from '../helpers/root.js';
import { needTools } from '../helpers/tools.js';
import { copyInstaller, fakeMain, installerEnv, writeInstallFakes } from './install-fakes.js';

needTools('bash');

const repo = ROOT;
const PREFIX = '/opt/eb-test';

// The built CLI as far as the installer sees it: \`check --config FILE\` refuses a file holding
// "refused" (exit 2 and a line, as the real one does a setting out of range); a start logs its
// port and answers system/ping.
const FAKE_MAIN = fakeMain(`  const file = process.argv[process.argv.indexOf('--config') + 1];
  if (!require('node:fs').readFileSync(file, 'utf8').includes('refused')) process.exit(0);
  console.error('edgeblocks: configuration error: alerts.remindHours: must be a number 0.25-720, got 0.1 (refused)');
  process.exit(2);`);
const BROKEN_MAIN = "console.error('SyntaxError: the new release cannot start'); process.exit(1);\n";

interface Sandbox {
  dir: string;
  root: string;
  src: string;
  state: string;
  env: NodeJS.ProcessEnv;
}

function makeSandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'eb-install-'));
  const root = join(dir, 'root');
  const src = join(dir, 'checkout');
  const state = join(dir, 'state');
  const bin = join(dir, 'bin');
  for (const d of [root, state, bin]) mkdirSync(d, { recursive: true });
  writeInstallFakes(bin, state);

  // A built checkout, with things that must not be copied.
  for (const d of ['dist/src/failsafe', 'systemd', 'scripts', 'docs', 'node_modules/x', '.git', 'src']) {
    mkdirSync(join(src, d), { recursive: true });
  }
  writeFileSync(join(src, 'package.json'), '{"name":"edgeblocks","version":"0.0.0-test"}\n');
  writeFileSync(join(src, 'package-lock.json'), '{"lockfileVersion":3}\n');
  writeFileSync(join(src, 'dist/src/main.js'), FAKE_MAIN);
  writeFileSync(join(src, 'dist/src/failsafe/index.js'), '// failsafe\n');
  writeFileSync(join(src, 'docs/raspberry-pi.md'), '# docs\n');
  writeFileSync(join(src, 'node_modules/x/index.js'), '');
  writeFileSync(join(src, '.git/HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(src, 'src/main.ts'), '');
  copyInstaller(repo, src);

  // A Pi OS config.txt: i2c commented out, and a trailing [cm5] section.
  mkdirSync(join(root, 'boot/firmware'), { recursive: true });
  writeFileSync(
    join(root, 'boot/firmware/config.txt'),
    '# http://rptl.io/configtxt\n#dtparam=i2c_arm=on\ndtparam=audio=on\ncamera_auto_detect=1\n\n[cm5]\ndtoverlay=dwc2,dr_mode=host\n',
  );
  return { dir, root, src, state, env: installerEnv(bin, state, root, PREFIX) };
}

function install(sb: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}) {
  writeFileSync(join(sb.state, 'calls'), '');
  const result = spawnSync('bash', [join(sb.src, 'scripts/install-pi.sh'), ...args], {
    env: { ...sb.env, ...env },
    encoding: 'utf8',
    timeout: limit(30000),
    killSignal: 'SIGKILL',
  });
  const calls = readFileSync(join(sb.state, 'calls'), 'utf8').split('\n').filter(Boolean);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, calls };
}

/** Every file under dir with a hash of its content and its mode. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      const st = lstatSync(path);
      if (st.isSymbolicLink()) out[relative(dir, path)] = `-> ${readlinkSync(path)}`;
      else if (st.isDirectory()) walk(path);
      else
        out[relative(dir, path)] =
          `${(st.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    }
  };
  walk(dir);
  return out;
}

t.test('install twice: same tree, same config, accounts made once, no duplicate boot lines', async (t) => {
  const sb = makeSandbox();
  t.teardown(() => rmSync(sb.dir, { recursive: true, force: true }));
  const args = ['--with-mosquitto', '--enable-interfaces'];

  const first = install(sb, args);
  t.equal(first.code, 0, first.stderr);
  const node = spawnSync('sh', ['-c', 'command -v node'], { encoding: 'utf8' }).stdout.trim();
  t.same(
    first.calls.filter((c) => /^(groupadd|useradd|usermod)/.test(c)),
    [
      'groupadd --system i2c',
      'useradd --system --user-group --home-dir /var/lib/edgeblocks --no-create-home --shell /usr/sbin/nologin --comment edgeblocks controller edgeblocks',
      'usermod -a -G gpio,i2c,dialout edgeblocks',
    ],
  );
  t.ok(first.calls.includes('npm ci --omit=dev --ignore-scripts'), 'npm ci without dev deps');
  t.ok(first.calls.includes('npm rebuild'), 'native modules built');
  t.ok(first.calls.includes('apt-get install -y --no-install-recommends mosquitto'));
  t.ok(first.calls.includes('modprobe i2c-dev') && first.calls.includes('modprobe w1-gpio'));
  const systemctl = first.calls.filter((c) => c.startsWith('systemctl'));
  t.same(systemctl, [
    'systemctl daemon-reload',
    'systemctl enable edgeblocks.service',
    'systemctl restart edgeblocks.service',
  ]);
  t.match(first.stdout, /http:\/\/\S+:5000\/edge-one\/system\/ping/, 'prints how to reach the API');

  const prefix = join(sb.root, PREFIX);
  t.ok(existsSync(join(prefix, 'dist/src/main.js')));
  t.ok(existsSync(join(prefix, 'node_modules/.fake-npm')), 'npm ran in the prefix');
  t.notOk(existsSync(join(prefix, '.git')), 'no .git copied');
  t.notOk(existsSync(join(prefix, 'node_modules/x')), 'no checkout node_modules copied');
  t.notOk(existsSync(join(prefix, 'src')), 'sources stay in the checkout');

  const unit = readFileSync(join(sb.root, 'etc/systemd/system/edgeblocks.service'), 'utf8');
  t.match(
    unit,
    `ExecStart=${node} ${PREFIX}/dist/src/main.js --config /etc/edgeblocks/config.json --data-dir /var/lib/edgeblocks`,
  );
  t.match(unit, `ExecStopPost=${node} ${PREFIX}/dist/src/failsafe/index.js --config /etc/edgeblocks/config.json`);
  t.notMatch(unit, '/opt/edgeblocks/dist');

  const configPath = join(sb.root, 'etc/edgeblocks/config.json');
  const config = JSON.parse(readFileSync(configPath, 'utf8'));
  t.equal(config.mqttUrl, 'mqtt://localhost:1883', 'Mosquitto install points the config at it');
  t.same(config.gpio, []);
  t.equal(statSync(configPath).mode & 0o777, 0o640);

  const bootPath = join(sb.root, 'boot/firmware/config.txt');
  const boot = readFileSync(bootPath, 'utf8');
  t.match(
    boot,
    /\[cm5\]\ndtoverlay=dwc2,dr_mode=host\n\n\[all\]\ndtparam=i2c_arm=on\ndtoverlay=w1-gpio\n$/,
    'appended under [all]',
  );
  t.equal(readFileSync(join(sb.root, 'etc/modules-load.d/edgeblocks.conf'), 'utf8'), 'i2c-dev\n');

  // The user edits the config; a second run keeps it and changes nothing else either.
  config.gpio = [{ name: 'heater', line: 17, direction: 'out', activeLow: true }];
  writeFileSync(configPath, JSON.stringify(config));
  const before = snapshot(sb.root);
  const second = install(sb, args);
  t.equal(second.code, 0, second.stderr);
  t.same(snapshot(sb.root), before, 'second run leaves the same tree');
  t.same(
    second.calls.filter((c) => /^(groupadd|useradd|usermod)/.test(c)),
    [],
    'no accounts touched the second time',
  );
  t.same(
    second.calls.filter((c) => c.startsWith('systemctl')),
    systemctl,
    'service reloaded and restarted again',
  );
  t.match(second.stdout, /keeping existing .*config\.json/);
  t.equal(readFileSync(bootPath, 'utf8'), boot, 'config.txt unchanged');
  for (const line of ['dtparam=i2c_arm=on', 'dtoverlay=w1-gpio', '[all]']) {
    t.equal(boot.split('\n').filter((l) => l === line).length, 1, `one ${line}`);
  }
  t.equal(
    readFileSync(join(sb.state, 'group'), 'utf8').match(/edgeblocks/g)?.length,
    4,
    'user in gpio, i2c, dialout and its own group once each',
  );
});

t.test('uninstall keeps config and data; --purge removes them and the user', async (t) => {
  const sb = makeSandbox();
  t.teardown(() => rmSync(sb.dir, { recursive: true, force: true }));
  t.equal(install(sb, ['--no-start']).code, 0);
  mkdirSync(join(sb.root, 'var/lib/edgeblocks'), { recursive: true });
  writeFileSync(join(sb.root, 'var/lib/edgeblocks/edgeblocks.db'), 'data');

  const removed = install(sb, ['--uninstall']);
  t.equal(removed.code, 0, removed.stderr);
  t.same(removed.calls, [
    'systemctl disable --now edgeblocks.service',
    'systemctl daemon-reload',
    'systemctl reset-failed edgeblocks.service',
  ]);
  t.notOk(existsSync(join(sb.root, 'etc/systemd/system/edgeblocks.service')));
  t.notOk(existsSync(join(sb.root, PREFIX)));
  t.ok(existsSync(join(sb.root, 'etc/edgeblocks/config.json')), 'config kept');
  t.ok(existsSync(join(sb.root, 'var/lib/edgeblocks/edgeblocks.db')), 'data kept');

  const purged = install(sb, ['--uninstall', '--purge']);
  t.equal(purged.code, 0, purged.stderr);
  t.ok(purged.calls.includes('userdel edgeblocks'));
  t.notOk(existsSync(join(sb.root, 'etc/edgeblocks')));
  t.notOk(existsSync(join(sb.root, 'var/lib/edgeblocks')));
});

t.test(
  "root installs a checkout of another user's: the installed tree is root's and nobody else can change it (issue 45.2)",
  { skip: process.getuid?.() !== 0 && 'needs root' },
  async (t) => {
    const sb = makeSandbox();
    t.teardown(() => rmSync(sb.dir, { recursive: true, force: true }));
    // As a clone in /home/pi is: the user's, and (umask 002) group-writable.
    spawnSync('chown', ['-R', '1000:1000', sb.src]);
    spawnSync('chmod', ['-R', 'g+w', sb.src]);
    const result = install(sb, ['--no-start']);
    t.equal(result.code, 0, result.stderr);
    const wrong: string[] = [];
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        const st = lstatSync(p);
        if (st.uid !== 0 || st.gid !== 0) wrong.push(`${relative(sb.root, p)} owned by ${st.uid}:${st.gid}`);
        if (!st.isSymbolicLink() && st.mode & 0o022)
          wrong.push(`${relative(sb.root, p)} mode ${(st.mode & 0o777).toString(8)}`);
        if (st.isDirectory()) walk(p);
      }
    };
    walk(join(sb.root, `${PREFIX}.releases`));
    walk(join(sb.root, 'etc'));
    t.same(wrong, [], 'every installed file and directory is root-owned and not writable by others');
    const release = readlinkSync(join(sb.root, PREFIX));
    for (const f of ['dist/src/main.js', 'dist/src/failsafe/index.js', 'systemd/edgeblocks.service'])
      t.match(statSync(join(sb.root, dirname(PREFIX), release, f)), { uid: 0, gid: 0 }, `${f} is root's`);
  },
);

t.test('refuses an old Node, unknown options, and a checkout without a build', async (t) => {
  const sb = makeSandbox();
  t.teardown(() => rmSync(sb.dir, { recursive: true, force: true }));
  const oldNode = join(sb.dir, 'old-node');
  mkdirSync(oldNode);
  writeFileSync(join(oldNode, 'node'), '#!/bin/sh\ncase "$1" in -p) echo 18;; *) echo v18.19.0;; esac\n');
  chmodSync(join(oldNode, 'node'), 0o755);
  const old = install(sb, [], { PATH: `${oldNode}${delimiter}${sb.env.PATH}` });
  t.equal(old.code, 1);
  t.match(old.stderr, /Node\.js >= 20 is required, .*old-node\/node is v18\.19\.0/);
  t.same(old.calls, [], 'nothing done');

  const bad = install(sb, ['--frobnicate']);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /unknown option: --frobnicate/);

  rmSync(join(sb.src, 'dist'), { recursive: true });
  const unbuilt = install(sb, [], { SKIP_NPM: '1' });
  t.equal(unbuilt.code, 1);
  t.match(unbuilt.stderr, /no build in .*dist: run 'npm ci && npm run build'/);
});

t.test('upgrade: staged, smoke-started, swapped; a failed one changes nothing; --rollback goes back', async (t) => {
  const sb = makeSandbox();
  t.teardown(() => rmSync(sb.dir, { recursive: true, force: true }));
  const prefix = join(sb.root, PREFIX);
  const releases = `${prefix}.releases`;
  const current = () => readlinkSync(prefix);
  const setVersion = (v: string) =>
    writeFileSync(join(sb.src, 'package.json'), `{"name":"edgeblocks","version":"${v}"}\n`);

  setVersion('1.0.0');
  const first = install(sb, ['--no-start']);
  t.equal(first.code, 0, first.stderr);
  t.ok(lstatSync(prefix).isSymbolicLink(), `${PREFIX} is a link to the release`);
  const v1 = current();
  t.match(v1, /^eb-test\.releases\/1\.0\.0-[0-9a-f]{12}$/, 'relative link into the releases directory');

  // A release that cannot start: the smoke start catches it before anything is switched.
  setVersion('2.0.0');
  writeFileSync(join(sb.src, 'dist/src/main.js'), BROKEN_MAIN);
  const broken = install(sb, []);
  t.equal(broken.code, 1, 'the installer fails');
  t.match(broken.stderr, /smoke start of the new release failed/);
  t.match(broken.stderr, /the new release cannot start/, 'its output is shown');
  t.match(broken.stderr, /running release \(1\.0\.0-[0-9a-f]+\) is untouched/);
  t.equal(current(), v1, 'still on 1.0.0');
  t.same(
    broken.calls.filter((c) => c.startsWith('systemctl')),
    [],
    'the service was not restarted',
  );
  t.same(
    readdirSync(releases).filter((n) => n.startsWith('2.0.0')),
    [],
    'no trace of the failed stage',
  );

  writeFileSync(join(sb.src, 'dist/src/main.js'), FAKE_MAIN);
  const good = install(sb, []);
  t.equal(good.code, 0, good.stderr);
  const v2 = current();
  t.match(v2, /2\.0\.0-/);
  t.equal(readlinkSync(join(releases, 'previous')), v1.split('/')[1], '1.0.0 kept as previous');
  t.ok(good.calls.includes('systemctl restart edgeblocks.service'));
  t.ok(existsSync(join(prefix, 'node_modules/.fake-npm')), 'npm ran in the new release');

  // A config file the running release takes and the new one refuses (a bound added since): the
  // upgrade stops with the new release's line; the service is not restarted into a start that
  // exits 2.
  const configPath = join(sb.root, 'etc/edgeblocks/config.json');
  const config = readFileSync(configPath, 'utf8');
  writeFileSync(configPath, `${config.trimEnd().slice(0, -1)}, "note": "refused"}\n`);
  setVersion('2.5.0');
  const refused = install(sb, []);
  t.equal(refused.code, 1, 'the installer fails');
  t.match(refused.stderr, /the new release refuses .*config\.json; the service would not start with it/);
  t.match(refused.stderr, /alerts\.remindHours: must be a number 0\.25-720, got 0\.1/, "with the new release's line");
  t.match(refused.stderr, /running release \(2\.0\.0-[0-9a-f]+\) is untouched/);
  t.equal(current(), v2, 'still on 2.0.0');
  t.same(
    refused.calls.filter((c) => c.startsWith('systemctl')),
    [],
    'the service was not restarted',
  );
  t.same(
    readdirSync(releases).filter((n) => n.startsWith('2.5.0')),
    [],
    'no trace of the refused stage',
  );
  writeFileSync(configPath, config);
  setVersion('2.0.0');

  const back = install(sb, ['--rollback']);
  t.equal(back.code, 0, back.stderr);
  t.equal(current(), v1, 'back on 1.0.0');
  t.equal(readlinkSync(join(releases, 'previous')), v2.split('/')[1], 'and 2.0.0 is the one to roll forward to');
  t.same(back.calls, ['systemctl restart edgeblocks.service']);

  // Three upgrades later only the current and the previous release are kept.
  for (const v of ['3.0.0', '4.0.0', '5.0.0']) {
    setVersion(v);
    t.equal(install(sb, ['--no-start']).code, 0);
  }
  t.same(
    readdirSync(releases)
      .filter((n) => n !== 'previous')
      .sort(),
    readdirSync(releases)
      .filter((n) => /^[45]\.0\.0-/.test(n))
      .sort(),
    'two releases kept',
  );
});

t.test('an install from before releases becomes the previous release', async (t) => {
  const sb = makeSandbox();
  t.teardown(() => rmSync(sb.dir, { recursive: true, force: true }));
  const prefix = join(sb.root, PREFIX);
  mkdirSync(join(prefix, 'dist/src'), { recursive: true });
  writeFileSync(join(prefix, 'dist/src/main.js'), FAKE_MAIN);
  const result = install(sb, ['--no-start']);
  t.equal(result.code, 0, result.stderr);
  t.ok(lstatSync(prefix).isSymbolicLink());
  t.equal(readlinkSync(`${prefix}.releases/previous`), 'legacy');
  t.ok(existsSync(`${prefix}.releases/legacy/dist/src/main.js`), 'old tree kept for --rollback');
});

t.test('--help shows every option and every environment setting, whole', async (t) => {
  const sb = makeSandbox();
  t.teardown(() => rmSync(sb.dir, { recursive: true, force: true }));
  const help = install(sb, ['--help']);
  t.equal(help.code, 0, help.stderr);
  const script = readFileSync(join(sb.src, 'scripts/install-pi.sh'), 'utf8');
  const options = [...script.matchAll(/^\s+(--[a-z-]+)\)/gm)].map((m) => m[1]!);
  t.ok(options.includes('--dry-run') && options.length >= 7, `the options the script parses: ${options.join(' ')}`);
  for (const option of options)
    t.match(help.stdout, new RegExp(`^\\s+${option}\\s+\\S`, 'm'), `${option} is explained`);
  const settings = [...script.matchAll(/\$\{([A-Z_]+):-/g)]
    .map((m) => m[1]!)
    .filter((v, i, all) => all.indexOf(v) === i);
  t.ok(
    settings.includes('SMOKE_SECONDS') && settings.includes('BOOT_CONFIG'),
    `the settings the script reads: ${settings.join(' ')}`,
  );
  for (const setting of settings)
    t.match(help.stdout, new RegExp(`^\\s+${setting}\\b`, 'm'), `${setting} is explained`);
  t.same(help.calls, [], 'nothing run');
});

t.test('--dry-run prints each step and changes nothing, without root', async (t) => {
  const sb = makeSandbox();
  t.teardown(() => rmSync(sb.dir, { recursive: true, force: true }));
  const before = [snapshot(sb.root), snapshot(sb.src), snapshot(sb.state)];
  const dry = install(sb, ['--dry-run', '--with-mosquitto', '--enable-interfaces']);
  t.equal(dry.code, 0, dry.stderr);
  t.same(
    dry.calls.filter((c) => !c.startsWith('getent ')),
    [],
    'no command that changes anything',
  );
  writeFileSync(join(sb.state, 'calls'), '');
  t.same(
    [snapshot(sb.root), snapshot(sb.src), snapshot(sb.state)],
    before,
    'no file written (in the root, the checkout, the accounts)',
  );
  const would = dry.stdout.split('\n').filter((l) => l.startsWith('install-pi: would '));
  const root = sb.root;
  for (const [what, pattern] of [
    [
      'the release',
      new RegExp(`stage release 0\\.0\\.0-test-[0-9a-f]{12} .*npm ci --omit=dev.*smoke start.*${root}${PREFIX}`),
    ],
    ['the user', /create the system user edgeblocks .*gpio i2c dialout/],
    ['mosquitto', /install Mosquitto/],
    ['the config', new RegExp(`write a default ${root}/etc/edgeblocks/config\\.json`)],
    ['the unit', new RegExp(`install the unit ${root}/etc/systemd/system/edgeblocks\\.service`)],
    ['the CLI link', new RegExp(`link ${root}/usr/local/bin/edgeblocks to ${PREFIX}/dist/src/main\\.js`)],
    ['the interfaces', new RegExp(`dtoverlay=w1-gpio in ${root}/boot/firmware/config\\.txt`)],
    ['systemd', /systemctl daemon-reload; systemctl enable edgeblocks\.service/],
    ['the start', /systemctl restart edgeblocks\.service/],
  ] as const) {
    t.ok(
      would.some((l) => pattern.test(l)),
      `${what}: ${pattern}`,
    );
  }
  t.equal(would.length, 9, `one line per step:\n${would.join('\n')}`);

  // As a user who could not install anything: the dry run needs no root (on the real system).
  chmodSync(sb.dir, 0o755);
  const asNobody = spawnSync('bash', [join(sb.src, 'scripts/install-pi.sh'), '--dry-run', '--uninstall', '--purge'], {
    env: { ...sb.env, DESTDIR: '' },
    encoding: 'utf8',
    uid: 65534,
    gid: 65534,
    timeout: limit(30000),
  });
  t.equal(asNobody.status, 0, asNobody.stderr);
  t.match(
    asNobody.stdout,
    /would stop and disable edgeblocks\.service, remove \/etc\/systemd\/system\/edgeblocks\.service, \/usr\/local\/bin\/edgeblocks.*purge \/etc\/edgeblocks, \/var\/lib\/edgeblocks/,
  );
});

t.test('the edgeblocks command goes on PATH, and goes away with --uninstall', async (t) => {
  const sb = makeSandbox();
  t.teardown(() => rmSync(sb.dir, { recursive: true, force: true }));
  const first = install(sb, ['--no-start']);
  t.equal(first.code, 0, first.stderr);
  const link = join(sb.root, 'usr/local/bin/edgeblocks');
  t.ok(lstatSync(link).isSymbolicLink(), 'a link in /usr/local/bin (on sudo secure_path)');
  t.equal(readlinkSync(link), `${PREFIX}/dist/src/main.js`, 'to the CLI through PREFIX, so upgrades move it along');
  t.ok(statSync(join(sb.root, PREFIX, 'dist/src/main.js')).mode & 0o111, 'the CLI is executable (its shebang runs it)');
  t.equal(install(sb, ['--uninstall']).code, 0);
  t.notOk(existsSync(link) || lstatSync(link, { throwIfNoEntry: false }), 'the link is removed');
});
