// The installer in a throwaway root: fake systemctl/useradd/groupadd/usermod/userdel/apt-get/
// npm/getent/modprobe on PATH (install-fakes.ts) record every call and keep users and groups in a state dir.
// tags: slow (the installer in a sandbox, the service started from it)
// The upgrades (install-pi-releases.test.ts) and --help/--dry-run (install-pi-help.test.ts) are beside
// it; the sandbox is install-pi-rig.ts.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
import { needTools } from '../helpers/tools.js';
import { PREFIX, install, makeSandbox, snapshot } from './install-pi-rig.js';

needTools('bash');

t.test('install twice: same tree, same config, accounts made once, no duplicate boot lines', async (t) => {
  const sb = makeSandbox(t);
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
  const sb = makeSandbox(t);
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
    const sb = makeSandbox(t);
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
  const sb = makeSandbox(t);
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

t.test('the edgeblocks command goes on PATH, and goes away with --uninstall', async (t) => {
  const sb = makeSandbox(t);
  const first = install(sb, ['--no-start']);
  t.equal(first.code, 0, first.stderr);
  const link = join(sb.root, 'usr/local/bin/edgeblocks');
  t.ok(lstatSync(link).isSymbolicLink(), 'a link in /usr/local/bin (on sudo secure_path)');
  t.equal(readlinkSync(link), `${PREFIX}/dist/src/main.js`, 'to the CLI through PREFIX, so upgrades move it along');
  t.ok(statSync(join(sb.root, PREFIX, 'dist/src/main.js')).mode & 0o111, 'the CLI is executable (its shebang runs it)');
  t.equal(install(sb, ['--uninstall']).code, 0);
  t.notOk(existsSync(link) || lstatSync(link, { throwIfNoEntry: false }), 'the link is removed');
});
