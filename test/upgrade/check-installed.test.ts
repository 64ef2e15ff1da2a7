// Plain `edgeblocks check`, run by a user on a Pi as the docs give it, read ./data of the
// current directory and the defaults, not the installed service's config file and data dir: it
// checked something the service never reads and said the configuration was valid. With no
// --config or --data-dir (nor their EDGEBLOCKS_ variables) it now checks what the service uses:
// /etc/edgeblocks/config.json, /var/lib/edgeblocks and the EDGEBLOCKS_ variables of the unit
// and its drop-ins, as `edgeblocks doctor` and `edgeblocks user` take them, and says which
// file and dir it checked. --root DIR looks at a system under DIR (an SD card, the installer's
// DESTDIR), as the doctor's does. The built CLI as a child process.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { UsersFile } from '../../src/auth/users.js';
import { CLI, ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

function check(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, uid?: number) {
  const r = spawnSync(process.execPath, [CLI, 'check', ...args], {
    cwd,
    ...(uid !== undefined ? { uid, gid: uid } : {}),
    encoding: 'utf8',
    timeout: limit(30_000),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

t.test('plain check on an installed Pi checks the service’s config file, data dir and unit', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-check-installed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'root');
  const data = path.join(root, 'var/lib/edgeblocks');
  const config = path.join(root, 'etc/edgeblocks/config.json');
  const units = path.join(root, 'etc/systemd/system');
  mkdirSync(data, { recursive: true, mode: 0o700 });
  mkdirSync(path.dirname(config), { recursive: true });
  mkdirSync(path.join(units, 'edgeblocks.service.d'), { recursive: true });
  copyFileSync(path.join(ROOT, 'systemd/edgeblocks.service'), path.join(units, 'edgeblocks.service'));
  writeFileSync(config, JSON.stringify({ auth: true }));
  // The user's home, with a ./data of its own holding a user: not what the service reads.
  const home = path.join(dir, 'home');
  mkdirSync(path.join(home, 'data'), { recursive: true });
  await new UsersFile(path.join(home, 'data')).load().add('brewer', 'a long enough password');

  const refused = check(['--root', root], home);
  t.equal(refused.code, 2, refused.out);
  t.match(refused.err, `auth is on but there is no user in ${data}`, 'the installed data dir was read');

  await new UsersFile(data).load().add('brewer', 'a long enough password');
  const ok = check(['--root', root], home);
  t.equal(ok.code, 0, ok.err);
  t.equal(ok.out.trim(), `edgeblocks ${version()}: the configuration (${config}) is valid, with the data dir ${data}`);

  // A drop-in's variable is the service's too: turned auth off there, then on with no user.
  writeFileSync(config, '{}');
  rmSync(path.join(data, 'users.json'));
  writeFileSync(
    path.join(units, 'edgeblocks.service.d/override.conf'),
    '[Service]\nEnvironment=EDGEBLOCKS_AUTH=true\n',
  );
  const fromUnit = check(['--root', root], home);
  t.equal(fromUnit.code, 2, fromUnit.out);
  t.match(fromUnit.err, `no user in ${data}`);
  t.match(fromUnit.err, 'the service gets EDGEBLOCKS_AUTH from /etc/systemd/system/edgeblocks.service.d/override.conf');

  // Given a config file and data dir, it checks those, and no unit.
  const own = path.join(home, 'config.json');
  writeFileSync(own, '{}');
  const given = check(['--root', root, '--config', own, '--data-dir', path.join(home, 'data')], home);
  t.equal(given.code, 0, given.err);
  t.match(given.out, `the configuration (${own}) is valid, with the data dir ${path.join(home, 'data')}`);
});

t.test('--root goes with check alone, and names a directory', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-check-root-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const start = spawnSync(process.execPath, [CLI, '--root', dir, '--port', '0'], {
    encoding: 'utf8',
    timeout: limit(30_000),
  });
  t.equal(start.status, 2);
  t.match(start.stderr, 'configuration error: --root: goes with check only');
  const missing = check(['--root', path.join(dir, 'nope')], dir);
  t.equal(missing.code, 2);
  t.match(missing.err, `--root: ${path.join(dir, 'nope')}: no such directory`);
  // A directory holding no install (a card's boot partition): checking ./data there said valid.
  const empty = check(['--root', dir], dir);
  t.equal(empty.code, 2, empty.out);
  t.match(empty.err, `--root: ${dir}: no edgeblocks is installed there`);
});

// The service's data dir is 0700, its user's: a user's `edgeblocks check` without sudo could read
// nothing in it, and with auth off said "valid" (the database it could not open was passed over
// in silence); with auth on it refused with a bare EACCES. It now says the dir was not read and
// how to read it, and still exits 0 (as for a data dir not made yet).
t.test('a data dir this user cannot read: a warning naming it and sudo, and exit 0', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-check-unreadable-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  chmodSync(dir, 0o755);
  const data = path.join(dir, 'data');
  const config = path.join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ auth: true }));
  chmodSync(config, 0o644);
  mkdirSync(data, { mode: 0o700 });
  await new UsersFile(data).load().add('brewer', 'a long enough password');
  // Root reads any dir: as root, the check runs as nobody, as a Pi's user runs it beside the service's dir.
  const asRoot = process.getuid?.() === 0;
  if (!asRoot) chmodSync(data, 0o000);
  t.teardown(() => chmodSync(data, 0o700));
  const res = check(['--config', config, '--data-dir', data], dir, {}, asRoot ? 65534 : undefined);
  // As nobody, tap's process-info hook in the child adds its own complaint and exit code at the
  // exit: the first line of errors and the verdict on stdout are the check's.
  if (!asRoot) t.equal(res.code, 0, res.err);
  t.equal(
    res.err.split('\n')[0],
    `edgeblocks: warning: the data dir ${data} cannot be read as this user (EACCES), so nothing in it was checked; run the check as root: sudo edgeblocks check`,
  );
  t.match(res.out, 'is valid');
});

function version(): string {
  return (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

t.test('installed but never started (no data dir yet): the unit’s data dir is named, not ./data', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-check-fresh-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'root');
  const config = path.join(root, 'etc/edgeblocks/config.json');
  mkdirSync(path.dirname(config), { recursive: true });
  writeFileSync(config, '{}');
  const data = path.join(root, 'var/lib/edgeblocks');
  const res = check(['--root', root], dir);
  t.equal(res.code, 0, res.err);
  t.match(res.out, `the configuration (${config}) is valid, with the data dir ${data}`);
  t.match(res.err, `the data dir ${data} does not exist`);
});
