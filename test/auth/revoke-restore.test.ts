// What an older users.json put back (a copy, a hand edit) brings back, and what it does not. A
// revoked or replaced API token, a removed user's token, and the sessions a password change or a
// removal ended stayed ended only until the file was put back: its token digests and password
// stamps let them in again, while the service ran and after a restart. The generations and
// token digests such changes end are now kept in revocations.json (with the logouts' floors, one
// record); the old password, a role, a removed user come back with the file, as the file says.
// tags: slow (the built service and CLI)
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { addUser, runUser, startCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { assertBuilt } from '../mqtt/fixtures.js';

assertBuilt();
t.setTimeout(limit(120_000));

function user(dir: string, args: string[], input = ''): string {
  const r = runUser(dir, args, input);
  if (r.status !== 0) throw new Error(`edgeblocks user ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

t.test(
  'revoke, change the password, remove; put the old users.json back, restart: nothing ended comes back',
  async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-revoke-restore-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'users.json');
    const cfg = path.join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify({ auth: true, dataDir: dir, hardware: 'sim', mqttPort: 0 }));
    addUser(dir, 'alice', 'a long password');
    addUser(dir, 'bob', 'bobs long password');
    const aliceToken = user(dir, ['token', 'alice']);
    const bobToken = user(dir, ['token', 'bob']);
    let service = await startCli(['--config', cfg], {}, t);
    t.teardown(() => void service.child.kill('SIGKILL'));
    const read = async (auth: { cookie?: string; token?: string }) =>
      (
        await fetch(`${service.base}/edge-one/blocks/all/read`, {
          method: 'POST',
          headers: auth.token ? { authorization: `Bearer ${auth.token}` } : { cookie: auth.cookie! },
        })
      ).status;
    const login = async (username: string, password: string) => {
      const res = await fetch(`${service.base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      });
      return { status: res.status, cookie: res.headers.get('set-cookie')?.split(';')[0] ?? '' };
    };
    const putBack = (text: string) => {
      writeFileSync(`${file}.restored`, text, { mode: 0o600 });
      renameSync(`${file}.restored`, file);
    };

    const session = await login('alice', 'a long password');
    t.equal(session.status, 200, 'alice logs in');
    t.equal(await read({ token: aliceToken }), 200, "alice's token works");
    t.equal(await read({ token: bobToken }), 200, "bob's token works");
    t.equal(await read(session), 200, "alice's session works");
    const backup = readFileSync(file, 'utf8');

    user(dir, ['token', 'alice', '--revoke']);
    user(dir, ['passwd', 'alice'], 'a new long password\n');
    user(dir, ['remove', 'bob']);
    t.equal(await read({ token: aliceToken }), 401, 'the revoked token is refused');
    t.equal(await read(session), 401, 'the session the password change ended is refused');
    t.equal(await read({ token: bobToken }), 401, "the removed user's token is refused");

    putBack(backup);
    t.equal(await read({ token: aliceToken }), 401, 'with the old users.json back, the revoked token stays refused');
    t.equal(await read(session), 401, 'and the session the password change ended stays ended');
    t.equal(await read({ token: bobToken }), 401, "and the removed user's token stays refused");
    const again = await login('alice', 'a long password');
    t.equal(again.status, 200, 'the old password comes back with the file');
    t.equal(await read(again), 200, 'and a session made with it works');
    const bob = await login('bob', 'bobs long password');
    t.equal(bob.status, 200, 'the removed user comes back with the file');
    t.equal(await read(bob), 200, 'and a session of his works');

    service.child.kill('SIGTERM');
    await service.exited;
    putBack(backup);
    service = await startCli(['--config', cfg], {}, t);
    t.equal(await read({ token: aliceToken }), 401, 'after a restart with the old file, the revoked token is refused');
    t.equal(await read(session), 401, 'the ended session is refused');
    t.equal(await read({ token: bobToken }), 401, "the removed user's token is refused");
    t.equal(await read(again), 200, 'a session made after the restore holds');
    const fresh = user(dir, ['token', 'alice']);
    t.equal(await read({ token: fresh }), 200, 'a new token works');
    t.equal(await read({ token: aliceToken }), 401, 'the old one stays refused');
    const bobDigest = createHash('sha256').update(bobToken).digest('hex');
    t.notOk(
      readFileSync(file, 'utf8').includes(bobDigest),
      "the next write leaves bob's revoked token out of users.json",
    );
    t.ok(existsSync(path.join(dir, 'revocations.json')), 'the record is revocations.json');
  },
);
