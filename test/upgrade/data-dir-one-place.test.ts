// The data dir in two places. The installed service is started with --data-dir /var/lib/edgeblocks
// (its unit), which won over a `dataDir` in /etc/edgeblocks/config.json, while `sudo edgeblocks
// user add NAME` and `edgeblocks doctor` took the file's dataDir: the user went to a dir the
// service never reads, and with auth on the service then refused to start for want of a user. A
// config file whose dataDir differs from --data-dir is now refused (exit 2, one line naming the
// file, both dirs and the fix) by the start, `edgeblocks check` (which the installer runs with the
// unit's flags) and the doctor, which takes the installed unit's data dir as the flag. The user
// command's side is test/auth/installed-defaults.test.ts. The built CLI as a child process.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
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

function sandbox() {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-one-data-dir-'));
  const file = path.join(dir, 'config.json');
  return { dir, file, flagDir: path.join(dir, 'var-lib'), fileDir: path.join(dir, 'srv') };
}

t.test('a config file dataDir other than --data-dir: the start and check refuse it, naming both', async (t) => {
  const { dir, file, flagDir, fileDir } = sandbox();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(file, JSON.stringify({ dataDir: fileDir }));
  const line =
    `edgeblocks: configuration error: dataDir: ${file} sets dataDir ${JSON.stringify(fileDir)}, but --data-dir ` +
    `gives ${JSON.stringify(flagDir)} (on a Pi, the service's unit gives --data-dir /var/lib/edgeblocks); set the ` +
    `data dir in one place: remove dataDir from ${file}, or give both the same dir`;

  const checked = cli(['check', '--config', file, '--data-dir', flagDir]);
  t.equal(checked.code, 2, checked.out);
  t.equal(checked.err.trim(), line);

  const started = cli(['--config', file, '--data-dir', flagDir, '--port', '0', '--mqtt-port', '0']);
  t.equal(started.code, 2, started.err);
  t.equal(started.err.trim(), line, 'the start gives the same line');
  t.notOk(existsSync(flagDir), 'nothing made in the flag’s dir');
  t.notOk(existsSync(fileDir), 'nor in the file’s');

  // The same dir both ways (spelt differently) holds; the file's dataDir alone too.
  writeFileSync(file, JSON.stringify({ dataDir: `${flagDir}/` }));
  const same = cli(['check', '--config', file, '--data-dir', flagDir]);
  t.equal(same.code, 0, same.err);
  writeFileSync(file, JSON.stringify({ dataDir: fileDir }));
  t.equal(cli(['check', '--config', file]).code, 0, 'the file alone names the data dir');

  // Data moved to another disk, the installed dir a link to it, the file naming where it went:
  // one dir, as it was before the rule.
  mkdirSync(fileDir, { recursive: true });
  symlinkSync(fileDir, flagDir);
  const linked = cli(['check', '--config', file, '--data-dir', flagDir]);
  t.equal(linked.code, 0, `a link to the file's dir is the same dir: ${linked.err}`);
});

t.test('the doctor on an installed Pi refuses a config file dataDir the unit does not give', async (t) => {
  const { dir, fileDir } = sandbox();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'root');
  const installedData = path.join(root, 'var/lib/edgeblocks');
  const installedConfig = path.join(root, 'etc/edgeblocks/config.json');
  mkdirSync(installedData, { recursive: true });
  mkdirSync(path.dirname(installedConfig), { recursive: true });
  writeFileSync(installedConfig, JSON.stringify({ dataDir: fileDir }));

  const res = doctor(['--root', root, '--json']);
  t.equal(res.code, 2, res.stdout);
  t.match(res.stderr, `${installedConfig} sets dataDir ${JSON.stringify(fileDir)}, but --data-dir gives`);
  t.match(res.stderr, JSON.stringify(installedData));
});

// EDGEBLOCKS_DATA_DIR set in a unit drop-in (sudo systemctl edit edgeblocks) against the unit's
// own --data-dir: the flag won silently, so the service, `check` and the doctor all took
// /var/lib/edgeblocks while the brewer believed the data went where the drop-in said. Any two
// of the config file's dataDir, EDGEBLOCKS_DATA_DIR and --data-dir that name different dirs are
// now refused, by the one rule that refused the file against the flag.
t.test(
  'EDGEBLOCKS_DATA_DIR other than --data-dir or the file: the start and check refuse it, naming both',
  async (t) => {
    const { dir, file, flagDir, fileDir } = sandbox();
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const envDir = path.join(dir, 'from-env');
    writeFileSync(file, '{}');
    const line =
      `edgeblocks: configuration error: dataDir: EDGEBLOCKS_DATA_DIR is ${JSON.stringify(envDir)}, but --data-dir ` +
      `gives ${JSON.stringify(flagDir)} (on a Pi, the service's unit gives --data-dir /var/lib/edgeblocks); set the ` +
      'data dir in one place: unset EDGEBLOCKS_DATA_DIR (on a Pi, remove it from the drop-in: sudo systemctl edit ' +
      'edgeblocks), or give both the same dir';
    const checked = cli(['check', '--config', file, '--data-dir', flagDir], { EDGEBLOCKS_DATA_DIR: envDir });
    t.equal(checked.code, 2, checked.out);
    t.equal(checked.err.trim(), line);
    const started = cli(['--config', file, '--data-dir', flagDir, '--port', '0', '--mqtt-port', '0'], {
      EDGEBLOCKS_DATA_DIR: envDir,
    });
    t.equal(started.code, 2, started.err);
    t.equal(started.err.trim(), line, 'the start gives the same line');
    t.notOk(existsSync(flagDir), 'nothing made in the flag’s dir');
    t.notOk(existsSync(envDir), 'nor in the variable’s');

    // The file against the variable, with no flag: the variable won silently too.
    writeFileSync(file, JSON.stringify({ dataDir: fileDir }));
    const fileEnv = cli(['check', '--config', file], { EDGEBLOCKS_DATA_DIR: envDir });
    t.equal(fileEnv.code, 2, fileEnv.out);
    t.match(
      fileEnv.err,
      `${file} sets dataDir ${JSON.stringify(fileDir)}, but EDGEBLOCKS_DATA_DIR is ${JSON.stringify(envDir)}`,
    );
    t.match(fileEnv.err, `remove dataDir from ${file}`);

    // One dir named in several places holds.
    t.equal(cli(['check', '--config', file, '--data-dir', fileDir], { EDGEBLOCKS_DATA_DIR: `${fileDir}/` }).code, 0);
    writeFileSync(file, '{}');
    t.equal(cli(['check', '--config', file], { EDGEBLOCKS_DATA_DIR: envDir }).code, 0, 'the variable alone');
  },
);

/** A Pi's installed files under `root`: the unit, its config file and data dir. */
function installedPi(dir: string, config: Record<string, unknown>) {
  const root = path.join(dir, 'root');
  const data = path.join(root, 'var/lib/edgeblocks');
  const config_ = path.join(root, 'etc/edgeblocks/config.json');
  const unitDir = path.join(root, 'etc/systemd/system');
  mkdirSync(data, { recursive: true });
  mkdirSync(path.dirname(config_), { recursive: true });
  mkdirSync(path.join(unitDir, 'edgeblocks.service.d'), { recursive: true });
  writeFileSync(config_, JSON.stringify(config));
  copyFileSync(path.join(ROOT, 'systemd/edgeblocks.service'), path.join(unitDir, 'edgeblocks.service'));
  const dropIn = (text: string) => writeFileSync(path.join(unitDir, 'edgeblocks.service.d/override.conf'), text);
  return { root, data, config: config_, dropIn };
}

t.test(
  'the doctor refuses a drop-in EDGEBLOCKS_DATA_DIR the unit’s --data-dir overrides, naming the drop-in',
  async (t) => {
    const { dir, fileDir } = sandbox();
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const pi = installedPi(dir, { hardware: 'sim' });
    pi.dropIn(`[Service]\nEnvironment=EDGEBLOCKS_DATA_DIR=${fileDir}\n`);
    const res = doctor(['--root', pi.root, '--json']);
    t.equal(res.code, 2, res.stdout);
    t.match(
      res.stderr,
      `EDGEBLOCKS_DATA_DIR is ${JSON.stringify(fileDir)}, but --data-dir gives ${JSON.stringify(pi.data)}`,
    );
    t.match(
      res.stderr,
      'the service gets EDGEBLOCKS_DATA_DIR from /etc/systemd/system/edgeblocks.service.d/override.conf',
    );

    // The drop-in naming the unit's own dir, spelt as on the Pi, is one dir.
    pi.dropIn('[Service]\nEnvironment=EDGEBLOCKS_DATA_DIR=/var/lib/edgeblocks\n');
    const same = doctor(['--root', pi.root, '--json']);
    t.not(same.code, 2, same.stderr);
    t.equal(
      JSON.parse(same.stdout)
        .sections[0].facts.find(([k]: string[]) => k === 'disk')?.[1]
        .split(':')[0],
      '/var/lib/edgeblocks',
    );
    // A file's dataDir against that drop-in: both named, the drop-in with its file.
    writeFileSync(pi.config, JSON.stringify({ hardware: 'sim', dataDir: fileDir }));
    const file = doctor(['--root', pi.root, '--json']);
    t.equal(file.code, 2, file.stdout);
    t.match(
      file.stderr,
      `${pi.config} sets dataDir ${JSON.stringify(fileDir)}, but EDGEBLOCKS_DATA_DIR is "/var/lib/edgeblocks"`,
    );
    t.match(
      file.stderr,
      'the service gets EDGEBLOCKS_DATA_DIR from /etc/systemd/system/edgeblocks.service.d/override.conf',
    );
  },
);

// Under `doctor --root DIR` (an SD card mounted elsewhere) or the installer's DESTDIR, the
// config file names places on the Pi: its /var/lib/edgeblocks is DIR/var/lib/edgeblocks, the
// unit's own dir, and was refused as another.
t.test('under a root, a config file spelling out /var/lib/edgeblocks is the installed dir', async (t) => {
  const { dir } = sandbox();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const pi = installedPi(dir, { hardware: 'sim', dataDir: '/var/lib/edgeblocks' });
  const res = doctor(['--root', pi.root, '--json']);
  t.not(res.code, 2, res.stderr);
  t.equal(res.stderr, '');

  const checked = cli(['check', '--root', pi.root, '--config', pi.config, '--data-dir', pi.data]);
  t.equal(checked.code, 0, checked.err);
  t.match(checked.out, `is valid, with the data dir ${pi.data}`);
  // Another dir in the file is still refused under a root.
  writeFileSync(pi.config, JSON.stringify({ hardware: 'sim', dataDir: '/srv/edgeblocks' }));
  const other = cli(['check', '--root', pi.root, '--config', pi.config, '--data-dir', pi.data]);
  t.equal(other.code, 2, other.out);
  t.match(other.err, `sets dataDir "/srv/edgeblocks", but --data-dir gives ${JSON.stringify(pi.data)}`);
});
