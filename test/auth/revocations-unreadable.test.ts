// A revocations.json that cannot be read for a passing reason (EIO, EMFILE, EACCES, EISDIR: anything
// but "there is none") was read as empty: the next change then wrote only what it ended, and every
// revocation before it was lost for good (an older users.json put back let the revoked token in
// again). A change now fails, naming the file and the reason, and writes nothing (users.json
// neither: written without the record, a copy put back would bring back what the change ended). The
// service lets nobody in while the record cannot be read (it cannot tell a revoked token from a good
// one), says so in its log, and lets people in again once it can be read.
// tags: slow (the built service and CLI)
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { addUser, runUser, startCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { UsersFile } from '../../src/auth/users.js';
import { assertBuilt } from '../mqtt/fixtures.js';

assertBuilt();
t.setTimeout(limit(120_000));

/** alice with a revoked token and bob with a good one; the users.json from before the revocation. */
function setUp(t: Test) {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-revocations-unreadable-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  addUser(dir, 'alice', 'a long password');
  addUser(dir, 'bob', 'bobs long password');
  const revoked = runUser(dir, ['token', 'alice']).stdout.trim();
  const bobToken = runUser(dir, ['token', 'bob']).stdout.trim();
  const usersFile = path.join(dir, 'users.json');
  const record = path.join(dir, 'revocations.json');
  const before = readFileSync(usersFile, 'utf8');
  t.equal(runUser(dir, ['token', 'alice', '--revoke']).status, 0, "alice's token is revoked");
  const kept = readFileSync(record, 'utf8');
  /** Make the record unreadable (a directory where it should be: EISDIR, as root too); undo() puts it back. */
  const breakRecord = () => {
    renameSync(record, `${record}.aside`);
    mkdirSync(record);
    return () => {
      rmSync(record, { recursive: true });
      renameSync(`${record}.aside`, record);
    };
  };
  return { dir, usersFile, record, before, kept, revoked, bobToken, breakRecord };
}

t.test('a change with an unreadable revocations.json fails, names the file and why, and writes nothing', async (t) => {
  const s = setUp(t);
  const undo = s.breakRecord();
  const users = readFileSync(s.usersFile, 'utf8');
  for (const [args, input] of [
    [['passwd', 'alice'], 'a new long password\n'],
    [['token', 'bob', '--revoke'], ''],
    [['token', 'alice'], ''],
    [['remove', 'bob'], ''],
    [['role', 'bob', 'viewer'], ''],
    [['add', 'carol'], 'carols long password\n'],
  ] as const) {
    const r = runUser(s.dir, [...args], input);
    t.equal(r.status, 1, `user ${args.join(' ')} fails`);
    t.match(
      r.stderr,
      new RegExp(`${s.record.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be read \\(EISDIR\\)`),
      'naming the file and the reason',
    );
    t.match(r.stderr, /nothing was changed/, 'and saying nothing was changed');
    t.equal(readFileSync(s.usersFile, 'utf8'), users, 'users.json is not written');
  }
  const list = runUser(s.dir, ['list']);
  t.equal(list.status, 0, 'user list still lists');
  t.match(list.stderr, /revocations\.json cannot be read \(EISDIR\)/, 'with a warning');
  undo();
  t.equal(readFileSync(s.record, 'utf8'), s.kept, 'the record is as it was');
  t.equal(
    runUser(s.dir, ['token', 'bob', '--revoke']).status,
    0,
    'with the record readable again, a change goes through',
  );
  const digests = JSON.parse(readFileSync(s.record, 'utf8')).users;
  t.equal(digests.alice.tokens.length, 1, "alice's revoked token is still in the record");
  t.equal(digests.bob.tokens.length, 1, "and bob's is added");
});

t.test(
  'EACCES (not as root): the same refusal',
  { skip: process.getuid?.() === 0 && 'root reads a mode 000 file' },
  async (t) => {
    const s = setUp(t);
    const { chmodSync } = await import('node:fs');
    chmodSync(s.record, 0o000);
    t.teardown(() => chmodSync(s.record, 0o600));
    const users = readFileSync(s.usersFile, 'utf8');
    const r = runUser(s.dir, ['token', 'bob', '--revoke']);
    t.equal(r.status, 1, 'the revocation fails');
    t.match(r.stderr, /revocations\.json cannot be read \(EACCES\)/);
    t.equal(readFileSync(s.usersFile, 'utf8'), users, 'users.json is not written');
    chmodSync(s.record, 0o600);
    t.equal(readFileSync(s.record, 'utf8'), s.kept, 'the record is as it was');
  },
);

t.test('the service lets nobody in while the record cannot be read, and says so', async (t) => {
  const s = setUp(t);
  const cfg = path.join(s.dir, 'config.json');
  writeFileSync(cfg, JSON.stringify({ auth: true, dataDir: s.dir, hardware: 'sim', mqttPort: 0 }));
  // The users.json from before the revocation put back, and the record unreadable: read as empty,
  // the revoked token would let alice in.
  writeFileSync(s.usersFile, s.before, { mode: 0o600 });
  const undo = s.breakRecord();
  const service = await startCli(['--config', cfg], {}, t);
  t.teardown(() => void service.child.kill('SIGKILL'));
  const read = async (token: string) =>
    (
      await fetch(`${service.base}/edge-one/blocks/all/read`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      })
    ).status;
  await service.waitFor(/revocations\.json cannot be read \(EISDIR\)[^\n]*nobody can log in/, 'the log line');
  t.equal(await read(s.revoked), 401, 'the revoked token is refused');
  t.equal(await read(s.bobToken), 401, "bob's token is refused too: the service cannot tell it from a revoked one");
  const login = await fetch(`${service.base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'alice', password: 'a long password' }),
  });
  t.equal(login.status, 503, 'a login is answered 503');
  t.match(((await login.json()) as { message: string }).message, /revocations\.json/, 'naming the record');
  undo();
  await service.waitFor(/revocations\.json can be read again/, 'the recovery log line');
  t.equal(await read(s.bobToken), 200, "with the record readable, bob's token works");
  t.equal(await read(s.revoked), 401, "and alice's revoked one stays refused");
});

t.test('a logout that finds the record unreadable before any refresh leaves the service locked', async (t) => {
  // The record breaks and a logout reads it before the timer's refresh does: the logout's own read
  // kept the users with no revocations applied and marked the files as seen, so no refresh looked
  // again and the put-back file's revoked token was let in.
  const s = setUp(t);
  writeFileSync(s.usersFile, s.before, { mode: 0o600 });
  const users = new UsersFile(s.dir);
  t.equal(users.loadOrLock(), null, 'the service starts with the record readable');
  t.equal(users.checkToken(s.revoked), null, 'the revoked token is refused');
  const undo = s.breakRecord();
  await t.rejects(
    users.endSessions('bob'),
    /revocations\.json cannot be read \(EISDIR\)/,
    'the logout fails, naming the record',
  );
  t.equal(users.refresh(), null, 'the refresh after it has nothing new to say');
  t.equal(users.checkToken(s.revoked), null, 'the revoked token is still refused');
  t.equal(users.checkToken(s.bobToken), null, "bob's token is refused too while the record cannot be read");
  t.match(users.broken?.message, /revocations\.json cannot be read/, 'the users stand locked, naming the record');
  undo();
  t.equal(users.refresh(), null, 'the next refresh reads the record again');
  t.equal(users.broken, null, 'and unlocks');
  t.equal(users.checkToken(s.bobToken), 'bob', "bob's token works again");
  t.equal(users.checkToken(s.revoked), null, "alice's revoked one stays refused");
});
