// The config file in two places. The installed service is started with --config
// /etc/edgeblocks/config.json (its unit), which won silently over EDGEBLOCKS_CONFIG set in a
// drop-in (sudo systemctl edit edgeblocks): the brewer edited the file the drop-in named and
// nothing changed, and `check` and the doctor said nothing either (they dropped the unit's
// EDGEBLOCKS_CONFIG, as the flag would win). --config and EDGEBLOCKS_CONFIG naming different files
// are now refused (exit 2, one line naming both and the fix), as two data dirs are, by the start,
// `check` (plain on a Pi, under --root, or as the installer runs it) and the doctor, which name
// the drop-in that sets it. The built CLI as a child process, on real files.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { CLI, ROOT } from '../helpers/cli.js';
import { doctor } from '../helpers/doctor.js';
import { limit } from '../helpers/limits.js';

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: limit(30_000),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function tempDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-one-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('EDGEBLOCKS_CONFIG other than --config: the start and check refuse it, naming both', async (t) => {
  const dir = tempDir(t);
  const flagFile = path.join(dir, 'config.json');
  const envFile = path.join(dir, 'brew.json');
  const data = path.join(dir, 'data');
  writeFileSync(flagFile, JSON.stringify({ hardware: 'sim' }));
  writeFileSync(envFile, JSON.stringify({ hardware: 'sim', serviceId: 'brew' }));
  const line =
    `edgeblocks: configuration error: config: EDGEBLOCKS_CONFIG is ${JSON.stringify(envFile)}, but --config ` +
    `gives ${JSON.stringify(flagFile)} (on a Pi, the service's unit gives --config /etc/edgeblocks/config.json); ` +
    'set the config file in one place: unset EDGEBLOCKS_CONFIG (on a Pi, remove it from the drop-in: sudo ' +
    'systemctl edit edgeblocks), or give both the same file';

  const checked = cli(['check', '--config', flagFile, '--data-dir', data], { EDGEBLOCKS_CONFIG: envFile });
  t.equal(checked.code, 2, checked.out);
  t.equal(checked.err.trim(), line);
  const started = cli(['--config', flagFile, '--data-dir', data, '--port', '0', '--mqtt-port', '0'], {
    EDGEBLOCKS_CONFIG: envFile,
  });
  t.equal(started.code, 2, started.err);
  t.equal(started.err.trim(), line, 'the start gives the same line');
  t.notOk(existsSync(data), 'nothing made in the data dir');

  // One file named both ways (spelt differently, or a link to it) holds; either alone too.
  t.equal(
    cli(['check', '--config', flagFile, '--data-dir', data], { EDGEBLOCKS_CONFIG: `${dir}/./config.json` }).code,
    0,
  );
  const link = path.join(dir, 'link.json');
  symlinkSync(flagFile, link);
  t.equal(cli(['check', '--config', flagFile, '--data-dir', data], { EDGEBLOCKS_CONFIG: link }).code, 0, 'a link');
  t.equal(cli(['check', '--data-dir', data], { EDGEBLOCKS_CONFIG: envFile }).code, 0, 'the variable alone');
  t.equal(cli(['check', '--config', flagFile, '--data-dir', data]).code, 0, 'the flag alone');
});

/** A Pi's installed files under `root`: the unit, its config file, its data dir, and a drop-in. */
function installedPi(dir: string) {
  const root = path.join(dir, 'root');
  const data = path.join(root, 'var/lib/edgeblocks');
  const config = path.join(root, 'etc/edgeblocks/config.json');
  const unitDir = path.join(root, 'etc/systemd/system');
  mkdirSync(data, { recursive: true });
  mkdirSync(path.join(unitDir, 'edgeblocks.service.d'), { recursive: true });
  mkdirSync(path.dirname(config), { recursive: true });
  writeFileSync(config, JSON.stringify({ hardware: 'sim' }));
  copyFileSync(path.join(ROOT, 'systemd/edgeblocks.service'), path.join(unitDir, 'edgeblocks.service'));
  const dropIn = (text: string) => writeFileSync(path.join(unitDir, 'edgeblocks.service.d/override.conf'), text);
  return { root, data, config, dropIn };
}

const FROM_DROP_IN =
  'the service gets EDGEBLOCKS_CONFIG from /etc/systemd/system/edgeblocks.service.d/override.conf (sudo systemctl edit edgeblocks)';

t.test("a drop-in's EDGEBLOCKS_CONFIG against the unit's --config: check and the doctor refuse it", async (t) => {
  const dir = tempDir(t);
  const pi = installedPi(dir);
  writeFileSync(path.join(pi.root, 'etc/edgeblocks/brew.json'), JSON.stringify({ hardware: 'sim' }));
  pi.dropIn('[Service]\nEnvironment=EDGEBLOCKS_CONFIG=/etc/edgeblocks/brew.json\n');

  // Plain `check --root`: the installed service's files and its unit, as on the Pi.
  const checked = cli(['check', '--root', pi.root]);
  t.equal(checked.code, 2, checked.out);
  t.match(
    checked.err,
    `EDGEBLOCKS_CONFIG is "/etc/edgeblocks/brew.json", but --config gives ${JSON.stringify(pi.config)}`,
  );
  t.match(checked.err, FROM_DROP_IN);
  t.equal(checked.err.trim().split('\n').length, 1, 'one line');

  const doc = doctor(['--root', pi.root, '--json']);
  t.equal(doc.code, 2, doc.stdout);
  t.match(doc.stderr, 'EDGEBLOCKS_CONFIG is "/etc/edgeblocks/brew.json", but --config gives');
  t.match(doc.stderr, FROM_DROP_IN);

  // As the installer asks a release (the unit's variables, its --config and --data-dir, --root).
  const installer = cli(['check', '--root', pi.root, '--config', pi.config, '--data-dir', pi.data], {
    EDGEBLOCKS_CONFIG: '/etc/edgeblocks/brew.json',
  });
  t.equal(installer.code, 2, installer.out);
  t.match(installer.err, 'EDGEBLOCKS_CONFIG is "/etc/edgeblocks/brew.json", but --config gives');

  // The drop-in naming the unit's own file, spelt as on the Pi, is one file.
  pi.dropIn('[Service]\nEnvironment=EDGEBLOCKS_CONFIG=/etc/edgeblocks/config.json\n');
  const same = cli(['check', '--root', pi.root]);
  t.equal(same.code, 0, same.err);
  t.not(doctor(['--root', pi.root, '--json']).code, 2);
  t.equal(
    cli(['check', '--root', pi.root, '--config', pi.config, '--data-dir', pi.data], {
      EDGEBLOCKS_CONFIG: '/etc/edgeblocks/config.json',
    }).code,
    0,
    'nor as the installer asks',
  );
});
