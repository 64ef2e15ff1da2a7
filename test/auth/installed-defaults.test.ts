// `sudo edgeblocks user add NAME` on a Pi, as the service's own refusal ("add one with `edgeblocks
// user add NAME`") and the installer's link on PATH suggest it: without --data-dir the user went
// to ./data of the current directory (made there, as root), the command said it was added, and
// the service with auth on still found no user. The user command now takes the installed
// service's config file and data dir as its defaults when they exist, as the doctor does; a
// flag or variable still wins, and a dataDir in the installed config file other than the unit's
// data dir is refused, as the service refuses it. In-process, on a root laid out as a Pi's.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { runUserCommand } from '../../src/auth/cli.js';

async function user(argv: string[], root: string, cwd: string, stdin = '') {
  let stdout = '';
  let stderr = '';
  const io = {
    stdin: Readable.from([stdin]),
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  };
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const code = await runUserCommand(argv, io, {}, root);
    return { code, stdout, stderr };
  } finally {
    process.chdir(before);
  }
}

/** A system root with the installed config file (auth on), its data dir made when `started`, and a home dir. */
function installedRoot(t: Test, started: boolean) {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-installed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'root');
  const home = path.join(dir, 'home');
  const data = path.join(root, 'var/lib/edgeblocks');
  if (started) mkdirSync(data, { recursive: true, mode: 0o700 });
  mkdirSync(home);
  mkdirSync(path.join(root, 'etc/edgeblocks'), { recursive: true });
  writeFileSync(path.join(root, 'etc/edgeblocks/config.json'), JSON.stringify({ auth: true }));
  return { dir, root, home, data };
}

t.test("without --data-dir, the installed service's data dir is the one used", async (t) => {
  const { dir, root, home, data } = installedRoot(t, true);

  const added = await user(['add', 'alice'], root, home, 'a long password\n');
  t.equal(added.code, 0, added.stderr);
  t.match(added.stdout, `user alice added to ${path.join(data, 'users.json')}`);
  t.ok(existsSync(path.join(data, 'users.json')), "in the service's data dir");
  t.notOk(existsSync(path.join(home, 'data')), 'nothing made in the current directory');
  t.equal((await user(['list'], root, home)).stdout, 'alice\n');

  // A dataDir in the installed config file that is not the unit's data dir is refused, naming
  // both (the service, started with --data-dir, would never read a user added there).
  const elsewhere = path.join(dir, 'elsewhere');
  const installedConfig = path.join(root, 'etc/edgeblocks/config.json');
  writeFileSync(installedConfig, JSON.stringify({ auth: true, dataDir: elsewhere }));
  const refused = await user(['add', 'bob'], root, home, 'a long password\n');
  t.equal(refused.code, 2, refused.stdout);
  t.match(refused.stderr, `${installedConfig} sets dataDir ${JSON.stringify(elsewhere)}, but --data-dir gives`);
  t.match(refused.stderr, JSON.stringify(data));
  t.notOk(existsSync(elsewhere), 'no user written where the service does not look');
  const flag = path.join(dir, 'flag');
  t.equal((await user(['add', 'carol', '--data-dir', flag], root, home, 'a long password\n')).code, 2, 'nor to a flag');
  // The file naming the unit's data dir, or a flag with no installed config file, hold.
  writeFileSync(installedConfig, JSON.stringify({ auth: true, dataDir: data }));
  t.equal((await user(['add', 'bob'], root, home, 'a long password\n')).code, 0);
  t.ok(JSON.parse(readFileSync(path.join(data, 'users.json'), 'utf8')).users.bob, 'in the service’s data dir');
  rmSync(installedConfig);
  t.equal((await user(['add', 'carol', '--data-dir', flag], root, home, 'a long password\n')).code, 0);
  t.ok(existsSync(path.join(flag, 'users.json')), 'the flag');
});

// `sudo scripts/install-pi.sh --no-start` writes /etc/edgeblocks/config.json, while the data dir
// is made by the service's first start (the unit's StateDirectory). Adding the first user before
// that start, as one does before turning auth on, took the installed config file but ./data of the
// current directory, because the installed data dir did not exist yet: the service then found no
// user. The installed config file alone now makes the unit's data dir the default.
t.test('before the first start (no data dir yet), the user goes to the unit’s data dir', async (t) => {
  const { root, home, data } = installedRoot(t, false);

  const added = await user(['add', 'alice'], root, home, 'a long password\n');
  t.equal(added.code, 0, added.stderr);
  t.match(added.stdout, `user alice added to ${path.join(data, 'users.json')}`);
  t.notOk(existsSync(path.join(home, 'data')), 'nothing made in the current directory');
});

// `sudo edgeblocks user add NAME` does not run under systemd, so it has none of the variables a
// drop-in (sudo systemctl edit edgeblocks) gives the service, and it did not read them from the
// unit as check and the doctor do: a drop-in's EDGEBLOCKS_DATA_DIR (or EDGEBLOCKS_CONFIG) that the
// service's start refuses was passed over, and the user added to a dir while the service would
// not start. The user command now takes the unit's variables as the doctor does, and is refused
// as the start is, naming the drop-in; the variable naming the unit's own dir holds.
t.test("a drop-in's variables count for the user command as for the service", async (t) => {
  const { dir, root, home, data } = installedRoot(t, true);
  const units = path.join(root, 'etc/systemd/system');
  mkdirSync(path.join(units, 'edgeblocks.service.d'), { recursive: true });
  writeFileSync(path.join(units, 'edgeblocks.service'), '[Service]\nEnvironment=NODE_ENV=production\n');
  const dropIn = (text: string) => writeFileSync(path.join(units, 'edgeblocks.service.d/override.conf'), text);
  const elsewhere = path.join(dir, 'elsewhere');
  const from = 'the service gets EDGEBLOCKS_DATA_DIR from /etc/systemd/system/edgeblocks.service.d/override.conf';

  dropIn(`[Service]\nEnvironment=EDGEBLOCKS_DATA_DIR=${elsewhere}\n`);
  const refused = await user(['add', 'alice'], root, home, 'a long password\n');
  t.equal(refused.code, 2, refused.stdout);
  t.match(refused.stderr, `EDGEBLOCKS_DATA_DIR is ${JSON.stringify(elsewhere)}, but --data-dir gives`);
  t.match(refused.stderr, from);
  t.notOk(
    existsSync(path.join(data, 'users.json')),
    'no user added where the service, refusing to start, does not run',
  );
  t.notOk(existsSync(elsewhere));
  t.equal((await user(['list'], root, home)).code, 2, 'list is refused the same way');

  dropIn('[Service]\nEnvironment=EDGEBLOCKS_CONFIG=/etc/edgeblocks/other.json\n');
  const config = await user(['add', 'alice'], root, home, 'a long password\n');
  t.equal(config.code, 2, config.stdout);
  t.match(
    config.stderr,
    'the service gets EDGEBLOCKS_CONFIG from /etc/systemd/system/edgeblocks.service.d/override.conf',
  );

  // The variable naming the unit's own dir, as on the Pi, is one dir.
  dropIn('[Service]\nEnvironment=EDGEBLOCKS_DATA_DIR=/var/lib/edgeblocks\n');
  const added = await user(['add', 'alice'], root, home, 'a long password\n');
  t.equal(added.code, 0, added.stderr);
  t.match(added.stdout, `user alice added to ${path.join(data, 'users.json')}`);
});
