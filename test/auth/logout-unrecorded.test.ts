// A logout when revocations.json can be read but not written (a full card, a file size limit)
// answered 200 and cleared the cookie, while nothing was written: every other session of the user
// (another browser, a copied cookie) went on working. A logout's point is that the sessions end: it
// now ends them in users.json (as before the record existed) and logs that the record could not keep
// it. When users.json cannot be written either, nothing ends, and the answer says so (503, the
// cookie kept), not 200 and not 500.
// tags: slow (the built CLI under a file size limit)
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { addUser, CLI } from '../helpers/cli.js';
import { spawnOwned, waitForOutput } from '../helpers/children.js';
import { limit } from '../helpers/limits.js';
import { needTools } from '../helpers/tools.js';
import { assertBuilt } from '../mqtt/fixtures.js';

assertBuilt();
needTools('bash');
t.setTimeout(limit(120_000));

/** The file size limit the service runs under (bash's ulimit -f, in KiB: as root too). */
const MAX_FILE = 512 * 1024;

/** A data dir with alice, and a revocations record (of a user removed long ago) past the limit. */
function setUp(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-logout-unrecorded-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  addUser(dir, 'alice', 'a long password');
  const tokens = Array.from({ length: 9000 }, (_, i) => createHash('sha256').update(`old ${i}`).digest('hex'));
  writeFileSync(
    path.join(dir, 'revocations.json'),
    `${JSON.stringify({ version: 1, users: { carol: { sessionGen: 1, tokens } } }, null, 2)}\n`,
    { mode: 0o600 },
  );
  return dir;
}

/**
 * The service on `dir` with auth on, under the file size limit; without the NODE_OPTIONS tap puts
 * in a child's environment: the module it loads (signal-exit) turns the SIGXFSZ node ignores (the
 * write then fails EFBIG) into the process's end.
 */
async function start(t: Test, dir: string) {
  const args = [CLI, '--hardware', 'sim', '--data-dir', dir, '--port', '0', '--https-port', '0', '--mqtt-port', '0'];
  const child = spawnOwned(
    'bash',
    [
      '-c',
      `unset NODE_OPTIONS; ulimit -f ${MAX_FILE / 1024} && exec "$@"`,
      'bash',
      process.execPath,
      ...args,
      '--auth',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
    t,
  );
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const m = await waitForOutput(
    child,
    /http listening on (?:https?:\/\/)?[^:\s]*:(\d+)/,
    'the service',
    limit(30_000),
    () => out,
  );
  const base = `http://127.0.0.1:${m[1]}`;
  // A connection each (agent: false): a logout closes the user's connections, and a pooled one
  // reused after it would be reset.
  const call = (method: string, url: string, cookie?: string, body?: unknown) =>
    new Promise<{ status: number; body: any; setCookie: string | null }>((resolve, reject) => {
      const text = body ? JSON.stringify(body) : undefined;
      const req = request(
        base + url,
        {
          method,
          agent: false,
          headers: { ...(cookie ? { cookie } : {}), ...(text ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          let got = '';
          res.on('data', (c: Buffer) => (got += c.toString()));
          res.on('end', () => {
            const set = res.headers['set-cookie'];
            resolve({
              status: res.statusCode!,
              body: got ? JSON.parse(got) : undefined,
              setCookie: set ? set[0]! : null,
            });
          });
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  const login = async () => {
    const r = await call('POST', '/auth/login', undefined, { username: 'alice', password: 'a long password' });
    t.equal(r.status, 200, 'alice logs in');
    return r.setCookie!.split(';')[0]!;
  };
  return { call, login, log: () => out };
}

t.test('a logout the record cannot keep still ends every session of the user', async (t) => {
  const dir = setUp(t);
  const record = readFileSync(path.join(dir, 'revocations.json'), 'utf8');
  t.ok(record.length > MAX_FILE, 'the record is past the limit: it cannot be written again');
  const s = await start(t, dir);
  const here = await s.login();
  const other = await s.login(); // another browser
  const out = await s.call('POST', '/auth/logout', here);
  t.equal(out.status, 200, 'the logout is answered');
  t.match(out.setCookie, /^Authorization=;/, 'the cookie is cleared');
  t.equal((await s.call('POST', '/edge-one/blocks/all/read', other)).status, 401, "the other browser's session ended");
  t.equal((await s.call('GET', '/auth/refresh', here)).status, 401, 'and this one');
  t.equal(
    JSON.parse(readFileSync(path.join(dir, 'users.json'), 'utf8')).users.alice.sessionGen,
    1,
    'users.json keeps it',
  );
  t.equal(readFileSync(path.join(dir, 'revocations.json'), 'utf8'), record, 'the record is as it was');
  t.match(s.log(), /cannot write \S*revocations\.json \(EFBIG\)/, 'the log names the record and the reason');
  t.match(s.log(), /the logout of alice ended the sessions in users\.json alone/, 'and what holds');
  t.notMatch(s.log(), /the logout of alice was not recorded/, 'not that it was not recorded');
  t.equal((await s.call('POST', '/edge-one/blocks/all/read', await s.login())).status, 200, 'a new login works');
});

t.test('a logout neither file can keep: 503, the cookie kept, not 200 or 500', async (t) => {
  const dir = setUp(t);
  // users.json past the limit too: many users (copies of alice's record).
  const usersFile = path.join(dir, 'users.json');
  const users = JSON.parse(readFileSync(usersFile, 'utf8'));
  for (let i = 0; users && JSON.stringify(users).length < MAX_FILE + 4096; i++)
    users.users[`user${i}`] = users.users.alice;
  writeFileSync(usersFile, `${JSON.stringify(users, null, 2)}\n`, { mode: 0o600 });
  const before = readFileSync(usersFile, 'utf8');
  const s = await start(t, dir);
  const here = await s.login();
  const out = await s.call('POST', '/auth/logout', here);
  t.equal(out.status, 503, 'the logout is not answered as done');
  t.match(out.body.message, /the logout was not recorded/, 'it says the logout was not recorded');
  t.match(out.body.message, /EFBIG/, 'naming the reason');
  t.equal(out.setCookie, null, 'the cookie is kept, to log out again');
  t.equal((await s.call('GET', '/auth/refresh', here)).status, 200, 'the session holds, as the answer says');
  t.equal(readFileSync(usersFile, 'utf8'), before, 'users.json is as it was');
  t.match(s.log(), 'the logout of alice was not recorded');
});
