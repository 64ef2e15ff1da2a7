// The installer's --help and --dry-run in a throwaway root (install-pi-rig.ts): every option and
// setting explained, and a dry run that prints each step, changes nothing and needs no root.
// tags: slow (the installer in a sandbox, the service started from it)
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { limit } from '../helpers/limits.js';
import { needTools } from '../helpers/tools.js';
import { PREFIX, install, makeSandbox, snapshot } from './install-pi-rig.js';

needTools('bash');

t.test('--help shows every option and every environment setting, whole', async (t) => {
  const sb = makeSandbox(t);
  const help = install(sb, ['--help']);
  t.equal(help.code, 0, help.stderr);
  // The script and the parts it sources (scripts/install-pi/*.sh).
  const parts = join(sb.src, 'scripts/install-pi');
  const script = [join(sb.src, 'scripts/install-pi.sh'), ...readdirSync(parts).map((name) => join(parts, name))]
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
  // The options are the patterns of the argument loop (`while [ $# -gt 0 ]; do case "$1" in`), not
  // those of a case that reads a unit's ExecStart words (checks.sh).
  const loop = /while \[ \$# -gt 0 \]; do\n\s+case "\$1" in\n([\s\S]*?)\n\s+esac/.exec(script);
  t.ok(loop, 'the argument loop is found');
  const options = [...(loop?.[1] ?? '').matchAll(/^\s+(--[a-z-]+)\)/gm)].map((m) => m[1]!);
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
  const sb = makeSandbox(t);
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
