// `edgeblocks check` reads the data dir as a start does, without changing it: with auth on and no
// user in it, or a users file that is not one, or a session key that is not one, or a database
// a newer release migrated, the service would refuse to start or lock everybody out, so the check
// says so (exit 2, the start's one line). It takes no lock (the service runs beside an upgrade)
// and writes nothing (the installer runs it as root). Needs `npm run build`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test as Tap } from 'tap';
import { SECRET_FILE } from '../../src/auth/session.js';
import { UsersFile } from '../../src/auth/users.js';
import { DB_FILE } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import Database from '../../src/store/sqlite.js';
import { CLI } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

function check(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, 'check', ...args], {
    encoding: 'utf8',
    timeout: limit(30_000),
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function sandbox(t: Tap, config: Record<string, unknown>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-check-data-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return { dir, file, dataDir: path.join(dir, 'data') };
}

t.test('auth on without a user is refused, with the fix; with one it holds; nothing is written', async (t) => {
  const { file, dataDir } = sandbox(t, { auth: true });
  const missing = check(['--config', file, '--data-dir', dataDir]);
  t.equal(missing.code, 2, `no data dir at all: ${missing.out}`);
  t.match(
    missing.err.trim(),
    /^edgeblocks: configuration error: auth: auth is on but there is no user in .*edgeblocks user add/,
  );
  t.equal(missing.err.trim().split('\n').length, 1, 'one line');
  t.notOk(existsSync(dataDir), 'no data dir was made');

  mkdirSync(dataDir, { mode: 0o700 });
  const empty = check(['--config', file, '--data-dir', dataDir]);
  t.equal(empty.code, 2, 'an empty data dir');
  t.match(empty.err, /no user in/);

  await new UsersFile(dataDir).load().add('brewer', 'a long enough password');
  const before = readdirSync(dataDir).sort();
  const ok = check(['--config', file, '--data-dir', dataDir]);
  t.equal(ok.code, 0, ok.err);
  t.match(ok.out, /is valid/);
  t.same(readdirSync(dataDir).sort(), before, 'no session key, lock or database was made');

  writeFileSync(path.join(dataDir, 'users.json'), '{"users": [');
  const broken = check(['--config', file, '--data-dir', dataDir]);
  // A start goes on with it (control first, an alert): so does an upgrade or a rollback, which may mend it.
  t.equal(broken.code, 0, 'a users file that is not one does not stop an upgrade');
  t.match(broken.err.trim(), /^edgeblocks: warning: auth: .*users\.json.*nobody can log in until it is fixed$/);
  t.match(broken.out, /is valid/);

  rmSync(path.join(dataDir, 'users.json'));
  await new UsersFile(dataDir).load().add('brewer', 'a long enough password');
  // What the changes to users.json ended (src/auth/revocations.ts), and the logouts the release
  // before recorded: a start says it reads a broken one as empty, and so does the check.
  for (const [name, kind] of [
    ['logouts.json', 'logouts'],
    ['revocations.json', 'revocations'],
  ]) {
    writeFileSync(path.join(dataDir, name!), '{"version": 1, "users": {"brewer": -1}}\n');
    const said = check(['--config', file, '--data-dir', dataDir]);
    t.equal(said.code, 0, `a ${kind} file that is not one does not stop an upgrade`);
    t.match(
      said.err.trim(),
      new RegExp(`^edgeblocks: warning: auth: .*${name}.* is not a ${kind} file.*read as empty`),
    );
    t.match(said.out, /is valid/);
    rmSync(path.join(dataDir, name!));
  }

  writeFileSync(path.join(dataDir, SECRET_FILE), 'not a key\n');
  const key = check(['--config', file, '--data-dir', dataDir]);
  t.equal(key.code, 2, 'a session key that is not one');
  t.match(key.err, /session key/);
});

t.test('auth off: the users file is not read; a database of a newer release is refused', async (t) => {
  const { file, dataDir } = sandbox(t, {});
  mkdirSync(dataDir, { mode: 0o700 });
  writeFileSync(path.join(dataDir, 'users.json'), 'junk');
  t.equal(check(['--config', file, '--data-dir', dataDir]).code, 0, 'auth off: users.json is not looked at');

  const db = new Database(path.join(dataDir, DB_FILE));
  db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  db.close();
  const newer = check(['--config', file, '--data-dir', dataDir]);
  t.equal(newer.code, 2, newer.out);
  t.match(newer.err.trim(), /^edgeblocks: cannot start: database schema version \d+ is newer than this edgeblocks/);
  t.equal(newer.err.trim().split('\n').length, 1, 'one line');

  const db2 = new Database(path.join(dataDir, DB_FILE));
  db2.pragma(`user_version = ${MIGRATIONS.length}`);
  db2.close();
  const before = readdirSync(dataDir).sort();
  t.equal(check(['--config', file, '--data-dir', dataDir]).code, 0, 'the schema this release knows');
  t.same(readdirSync(dataDir).sort(), before, 'nothing was written beside it');
});

// `edgeblocks check --data-dir /var/lib/edgeblock` (one letter short) said "valid" and nothing
// more: with auth off there was nothing in the dir to refuse, so a misspelt dir passed as the
// real one. A data dir that does not exist is named in a warning; it still holds (exit 0), as
// the installer's check of a fresh install, whose data dir the first start makes, needs it to.
t.test('a data dir that does not exist: a warning naming it, and still exit 0', async (t) => {
  const { file, dataDir } = sandbox(t, {});
  const missing = check(['--config', file, '--data-dir', dataDir]);
  t.equal(missing.code, 0, missing.err);
  t.equal(
    missing.err.trim(),
    `edgeblocks: warning: the data dir ${dataDir} does not exist, so nothing in it was checked (a start makes it; check --data-dir if it should be there)`,
  );
  t.match(missing.out, /is valid/);
  t.notOk(existsSync(dataDir), 'not made');
  mkdirSync(dataDir, { mode: 0o700 });
  const there = check(['--config', file, '--data-dir', dataDir]);
  t.equal(there.err, '', 'no warning once it is there');
});
