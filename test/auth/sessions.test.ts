// Sessions and connections end with what let them in: `edgeblocks user remove` (the CLI, another
// process) closes the user's MQTT connections, /eventbus websockets and event streams; `user
// passwd` does too and revokes the API token; a logout ends the user's sessions, for good (a
// stale writer of the users file and a restart do not bring them back).
// tags: slow (the built CLI in another process)
import { spawn } from 'node:child_process';
import mqtt from 'mqtt';
import t, { type Test } from 'tap';
import { UsersFile } from '../../src/auth/users.js';
import { startApp } from '../helpers/app.js';
import { CLI } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { assertBuilt } from '../mqtt/fixtures.js';
import { PASSWORD, setup } from './auth-app.js';

assertBuilt();
t.setTimeout(limit(180_000));

function runCli(args: string[], stdin = ''): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), limit(20_000));
    child.on('error', reject);
    child.on('exit', (code) => (clearTimeout(timer), resolve({ code, stderr })));
    child.stdin.end(stdin);
  });
}

/** A live connection: `ended` resolves (with the ms since `since()` was last set) when it closes. */
interface Live {
  name: string;
  ended: Promise<void>;
  isOpen(): boolean;
  /** Resolves with the next message or event after now. */
  next(): Promise<void>;
  close(): void;
}

async function mqttLive(t: Test, name: string, url: string, opts: mqtt.IClientOptions): Promise<Live> {
  const c = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: limit(10_000), ...opts });
  t.teardown(() => void c.end(true));
  await new Promise<void>((resolve, reject) => {
    c.once('connect', () => resolve());
    c.once('error', reject);
  });
  let open = true;
  const ended = new Promise<void>((resolve) => c.once('close', () => ((open = false), resolve())));
  await c.subscribeAsync('#');
  const next = () => new Promise<void>((resolve) => c.once('message', () => resolve()));
  await next();
  return { name, ended, isOpen: () => open, next, close: () => void c.end(true) };
}

async function sseLive(t: Test, name: string, url: string, headers: Record<string, string>): Promise<Live> {
  const ctl = new AbortController();
  t.teardown(() => ctl.abort());
  const res = await fetch(url, { headers, signal: ctl.signal });
  if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
  const reader = res.body!.getReader();
  let open = true;
  const waiters: Array<() => void> = [];
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (new TextDecoder().decode(value).includes('event: ')) for (const w of waiters.splice(0)) w();
      }
    } catch {
      // the socket was destroyed
    }
    open = false;
  })();
  const next = () => new Promise<void>((resolve) => waiters.push(resolve));
  await next();
  return { name, ended, isOpen: () => open, next, close: () => ctl.abort() };
}

/** Every connection in `lives` ends within `ms`; returns how long the last one took. */
async function allEnd(t: Test, lives: Live[], ms: number): Promise<number> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([Promise.all(lives.map((l) => l.ended)), timeout]);
  clearTimeout(timer);
  for (const l of lives) t.notOk(l.isOpen(), `${l.name} ended`);
  return Date.now() - started;
}

t.test(
  '`user remove` (the CLI) closes the user’s MQTT connections, /eventbus websocket and event streams',
  async (t) => {
    const { rt, dataDir, token, login, origin, log } = await setup(t);
    const s = await login();
    const broker = `mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`;
    const lives = [
      await mqttLive(t, 'MQTT with the password', broker, { username: 'alice', password: PASSWORD }),
      await mqttLive(t, 'MQTT with the token', broker, { username: 'script', password: token }),
      await mqttLive(t, '/eventbus with the session', `ws://${origin.slice('http://'.length)}/eventbus`, {
        wsOptions: { headers: { cookie: s.cookie } },
      }),
      await sseLive(t, 'event stream with the session', `${rt.base}/events`, { cookie: s.cookie }),
      await sseLive(t, 'event stream with the token', `${rt.base}/events`, { authorization: `Bearer ${token}` }),
    ];
    const removed = await runCli(['user', 'remove', 'alice', '--data-dir', dataDir]);
    t.equal(removed.code, 0, removed.stderr);
    const took = await allEnd(t, lives, limit(5000));
    t.comment(`all ${lives.length} ended ${took} ms after the CLI exited`);
    t.match(log(), /closed 5 connection\(s\) of alice \(user removed\)/, 'the closing is logged once, with the count');
  },
);

t.test(
  '`user passwd` (the CLI) revokes the API token and closes what the old password, session or token opened',
  async (t) => {
    const { rt, dataDir, token, login, call } = await setup(t);
    const s = await login();
    const broker = `mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`;
    const bearer = { authorization: `Bearer ${token}` };
    t.equal((await call('POST', '/edge-one/system/ping', { headers: bearer })).status, 200, 'the token works before');
    const lives = [
      await mqttLive(t, 'MQTT with the old password', broker, { username: 'alice', password: PASSWORD }),
      await mqttLive(t, 'MQTT with the token', broker, { username: 'script', password: token }),
      await sseLive(t, 'event stream with the session', `${rt.base}/events`, { cookie: s.cookie }),
      await sseLive(t, 'event stream with the token', `${rt.base}/events`, bearer),
    ];
    const changed = await runCli(['user', 'passwd', 'alice', '--data-dir', dataDir], 'a brand new password\n');
    t.equal(changed.code, 0, changed.stderr);
    await allEnd(t, lives, limit(5000));
    t.equal((await call('POST', '/edge-one/system/ping', { headers: bearer })).status, 401, 'the old token gets 401');
    t.equal(
      (await call('POST', '/edge-one/system/ping', { cookie: s.cookie })).status,
      401,
      'the old session gets 401',
    );
    const fresh = await mqttLive(t, 'MQTT with the new password', broker, {
      username: 'alice',
      password: 'a brand new password',
    });
    t.ok(fresh.isOpen(), 'the new password logs in');
  },
);

t.test(
  'a logout ends the user’s sessions: the old cookie gets 401, its event stream ends, tokens and MQTT logins stay',
  async (t) => {
    const { rt, dataDir, token, login, call } = await setup(t);
    const s1 = await login();
    const s2 = await login();
    const staleWriter = new UsersFile(dataDir).load();
    const read = (cookie: string) => call('POST', '/edge-one/blocks/all/read', { cookie });
    t.equal((await read(s1.cookie)).status, 200);
    const bearer = { authorization: `Bearer ${token}` };
    const stream = await sseLive(t, 'event stream with the session', `${rt.base}/events`, { cookie: s1.cookie });
    const tokenStream = await sseLive(t, 'event stream with the token', `${rt.base}/events`, bearer);
    const mqttLogin = await mqttLive(t, 'MQTT with the password', `mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`, {
      username: 'alice',
      password: PASSWORD,
    });

    const out = await call('POST', '/auth/logout', { cookie: s1.cookie });
    t.equal(out.status, 200);
    t.match(out.setCookie, /^Authorization=;.*Expires=Thu, 01 Jan 1970/, 'the cookie is cleared');
    t.equal((await read(s1.cookie)).status, 401, 'the logged-out cookie gets 401');
    t.equal((await read(s2.cookie)).status, 401, 'so does every other session of the user');
    t.equal((await call('GET', '/auth/refresh', { cookie: s1.cookie })).status, 401, 'and cannot be refreshed');
    await allEnd(t, [stream], limit(5000));
    await tokenStream.next();
    t.ok(tokenStream.isOpen(), 'the token’s event stream goes on');
    await mqttLogin.next();
    t.ok(mqttLogin.isOpen(), 'the MQTT login goes on');
    t.equal((await call('POST', '/edge-one/system/ping', { headers: bearer })).status, 200, 'the token still works');

    await staleWriter.add('bob', 'bobs password');
    t.equal(
      (await read(s1.cookie)).status,
      401,
      'a writer that read the users file before the logout does not undo it',
    );
    const s3 = await login();
    t.equal((await read(s3.cookie)).status, 200, 'a new login works');

    tokenStream.close();
    mqttLogin.close();
    await rt.close();
    const again = await startApp({ auth: 'true', hardware: 'sim' }, { dataDir });
    t.teardown(() => again.close());
    const readAgain = (cookie: string) =>
      fetch(`${again.base}/blocks/all/read`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: '{}',
      });
    t.equal((await readAgain(s1.cookie)).status, 401, 'after a restart the logged-out cookie still gets 401');
    t.equal((await readAgain(s3.cookie)).status, 200, 'and the new one still works');
  },
);

t.test('a revoked token leaves nothing behind: /auth/refresh does not trade a token for a session', async (t) => {
  const { dataDir, token, call } = await setup(t);
  const bearer = { authorization: `Bearer ${token}` };
  const refreshed = await call('GET', '/auth/refresh', { headers: bearer });
  t.equal(refreshed.status, 200, 'the token is valid');
  t.match(refreshed.body, { username: 'alice', role: 'admin', enabled: true });
  const cookie = refreshed.setCookie?.split(';')[0];
  new UsersFile(dataDir).load().revokeToken('alice');
  t.equal((await call('POST', '/edge-one/system/ping', { headers: bearer })).status, 401, 'the revoked token gets 401');
  // A session made from the token would have outlived it, renewed a week at a time.
  const withCookie = cookie ? (await call('POST', '/edge-one/system/ping', { cookie })).status : 401;
  t.equal(withCookie, 401, 'and nothing the token was traded for works');
});
