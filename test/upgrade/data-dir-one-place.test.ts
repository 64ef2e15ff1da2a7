// The data dir in two places. The installed service is started with --data-dir /var/lib/edgeblocks
// (its unit), which won over a `dataDir` in /etc/edgeblocks/config.json, while `sudo edgeblocks
// user add NAME` and `edgeblocks doctor` took the file's dataDir: the user went to a dir the
// service never reads, and with auth on the service then refused to start for want of a user. A
// config file whose dataDir differs from --data-dir is now refused (exit 2, one line naming the
// file, both dirs and the fix) by the start, `edgeblocks check` (which the installer runs with the
// unit's flags) and the doctor, which takes the installed unit's data dir as the flag. The user
// command's side is test/auth/installed-defaults.test.ts. The built CLI as a child process.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { CLI } from '../helpers/cli.js';
import { doctor } from '../helpers/doctor.js';
import { limit } from '../helpers/limits.js';

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: limit(30_000),
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
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
