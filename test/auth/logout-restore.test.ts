// A logout stays a logout: putting back an older users.json (a copy from before the logout, a
// hand edit that lowers "sessionGen") brought back the sessions the logout had ended, since a
// session held while the file's generation was the one it was made with. The service now keeps
// the generation each logout reached in its own file (revocations.json, logouts.json before it);
// a session older than that is refused whatever users.json says, also after a restart.
// tags: slow (the built service and CLI)
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { addUser, startCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { assertBuilt } from '../mqtt/fixtures.js';

assertBuilt();
t.setTimeout(limit(120_000));

t.test('log in, log out, put the old users.json back: the old cookie stays refused', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-logout-restore-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'users.json');
  const cfg = path.join(dir, 'config.json');
  writeFileSync(cfg, JSON.stringify({ auth: true, dataDir: dir, hardware: 'sim', mqttPort: 0 }));
  addUser(dir, 'alice', 'a long password');
  let service = await startCli(['--config', cfg], {}, t);
  const base = () => service.base;
  const login = async () => {
    const res = await fetch(`${base()}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'a long password' }),
    });
    t.equal(res.status, 200, 'logged in');
    return res.headers.get('set-cookie')!.split(';')[0]!;
  };
  const status = async (cookie: string) =>
    (await fetch(`${base()}/edge-one/blocks/all/read`, { method: 'POST', headers: { cookie } })).status;
  const logout = async (cookie: string) =>
    t.equal((await fetch(`${base()}/auth/logout`, { method: 'POST', headers: { cookie } })).status, 200, 'logged out');
  const putBack = (text: string) => {
    writeFileSync(`${file}.restored`, text, { mode: 0o600 });
    renameSync(`${file}.restored`, file);
  };

  const old = await login();
  t.equal(await status(old), 200, 'the session works');
  const backup = readFileSync(file, 'utf8');
  await logout(old);
  t.equal(await status(old), 401, 'the logged-out cookie is refused');

  putBack(backup);
  t.equal(await status(old), 401, 'with the old users.json back, the logged-out cookie is still refused');
  const fresh = await login();
  t.equal(await status(fresh), 200, 'a new login works with the old file');
  await logout(fresh);
  t.equal(await status(fresh), 401, 'and its logout ends it');

  // A hand edit that lowers the generation (to none: 0), and a restart with the old file.
  const edited = JSON.parse(readFileSync(file, 'utf8'));
  delete edited.users.alice.sessionGen;
  putBack(JSON.stringify(edited));
  t.equal(await status(fresh), 401, 'a lowered sessionGen brings back no session');
  service.child.kill('SIGTERM');
  await service.exited;
  putBack(backup);
  service = await startCli(['--config', cfg], {}, t);
  t.teardown(() => void service.child.kill('SIGKILL'));
  t.equal(await status(old), 401, 'after a restart with the old file, the first cookie is refused');
  t.equal(await status(fresh), 401, 'and so is the second');
  t.equal(await status(await login()), 200, 'a login after the restart works');
});

t.test('a logouts.json that is not one: said at the start, logins work, the next logout writes it anew', async (t) => {
  const { dir, cfg, logouts } = aliceWithLogoutsFile(t);
  writeFileSync(logouts, '{"version":1,"users":{"alice":"x"', { mode: 0o600 });
  const service = await startCli(['--config', cfg], {}, t);
  t.teardown(() => void service.child.kill('SIGKILL'));
  await service.waitFor(/logouts\.json is not a logouts file/, 'the start saying logouts.json is not one');
  await loginThenLogout(t, service.base);
  t.same(
    JSON.parse(readFileSync(path.join(dir, 'revocations.json'), 'utf8')),
    { version: 1, users: { alice: { sessionGen: 1, tokens: [] } } },
    'the record is written anew, as revocations.json',
  );
  t.notOk(existsSync(logouts), 'the damaged logouts.json is gone');
});

t.test("the release before's logouts.json: its floors hold, and are carried into revocations.json", async (t) => {
  const { dir, cfg, logouts } = aliceWithLogoutsFile(t);
  writeFileSync(logouts, '{"version": 1, "users": {"alice": 4}}\n', { mode: 0o600 });
  const service = await startCli(['--config', cfg], {}, t);
  t.teardown(() => void service.child.kill('SIGKILL'));
  await loginThenLogout(t, service.base);
  t.same(
    JSON.parse(readFileSync(path.join(dir, 'revocations.json'), 'utf8')).users.alice.sessionGen,
    5,
    'the logout went one above the floor logouts.json kept',
  );
  t.notOk(existsSync(logouts), 'logouts.json, carried over, is gone');
});

/** A data dir with alice in its users file, its config, and where the release before kept logouts. */
function aliceWithLogoutsFile(t: Test): { dir: string; cfg: string; logouts: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-logout-restore-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cfg = path.join(dir, 'config.json');
  writeFileSync(cfg, JSON.stringify({ auth: true, dataDir: dir, hardware: 'sim', mqttPort: 0 }));
  addUser(dir, 'alice', 'a long password');
  return { dir, cfg, logouts: path.join(dir, 'logouts.json') };
}

/** alice logs in and out through the service's own routes. */
async function loginThenLogout(t: Test, base: string): Promise<void> {
  const res = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'alice', password: 'a long password' }),
  });
  t.equal(res.status, 200, 'logged in');
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  t.equal((await fetch(`${base}/auth/logout`, { method: 'POST', headers: { cookie } })).status, 200);
}
