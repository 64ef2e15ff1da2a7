// Auth on: the Brewblox login contract, the session cookie, API tokens, the guard on every API
// route, /eventbus, the TLS gateway and the embedded broker, rate limiting, and no secret in the log.
import { request } from 'node:https';
import mqtt from 'mqtt';
import { WebSocket } from 'ws';
import t from 'tap';
import { FAIL_DELAY_MS } from '../../src/auth/attempts.js';
import { loadSecret, signSession } from '../../src/auth/session.js';
import { startApp } from '../helpers/app.js';
import { PASSWORD, setup } from './auth-app.js';
import { limit } from '../helpers/limits.js';

t.test(
  'auth on: every API route refuses anonymous clients; the login contract and static paths stay open',
  async (t) => {
    const { call, login, token, rt } = await setup(t);
    t.same((await call('GET', '/auth/status')).body, { enabled: true, valid_duration: 'P7D' });
    for (const [method, url, body] of [
      ['POST', '/edge-one/blocks/read', { id: 'x' }],
      ['POST', '/edge-one/blocks/create', { id: 'x', type: 'TempSensorMock', data: {} }],
      ['POST', '/edge-one/blocks/all/delete', undefined],
      ['GET', '/edge-one/system/status', undefined],
      ['POST', '/edge-one/system/ping', undefined],
      ['GET', '/edge-one/sim/devices', undefined],
      ['GET', '/edge-one/api/doc/json', undefined],
      ['POST', '/history/datastore/mget', { namespace: 'x', ids: [] }],
      ['GET', '/edge-one/no/such/route', undefined],
      ['DELETE', '/anything', undefined],
    ] as const) {
      const res = await call(method, url, { body });
      t.equal(res.status, 401, `${method} ${url} anonymous -> 401`);
      t.match(res.body.message, /login required/);
    }
    t.equal(rt.app.runtime.blocks().filter((b) => b.id === 'x').length, 0, 'nothing was created');

    const s = await login();
    t.equal(s.status, 200);
    t.equal(s.body.username, 'alice');
    t.match(s.setCookie, /^Authorization=[^;]+;/);
    t.match(s.setCookie, /HttpOnly/);
    t.match(s.setCookie, /SameSite=Strict/);
    t.notMatch(s.setCookie, /Secure/, 'no Secure flag on plain http');
    const expires = Date.parse(/Expires=([^;]+)/.exec(s.setCookie!)![1]!);
    t.ok(Math.abs(expires - (Date.now() + 7 * 86400_000)) < limit(60_000), 'cookie lasts valid_duration');
    t.notOk('token' in s.body, 'the session value is not in the body');

    t.equal(
      (
        await call('POST', '/edge-one/blocks/create', {
          cookie: s.cookie,
          body: { id: 'x', type: 'TempSensorMock', data: {} },
        })
      ).status,
      201,
    );
    t.equal((await call('GET', '/edge-one/system/status', { cookie: s.cookie })).status, 200);
    t.equal((await call('GET', '/edge-one/sim/devices', { cookie: s.cookie })).status, 200);
    t.equal(
      (
        await call('POST', '/edge-one/blocks/read', {
          headers: { authorization: `Bearer ${token}` },
          body: { id: 'x' },
        })
      ).status,
      200,
      'API token works',
    );
    t.equal(
      (
        await call('POST', '/edge-one/blocks/read', {
          headers: { authorization: `Bearer ${token}x` },
          body: { id: 'x' },
        })
      ).status,
      401,
      'wrong token',
    );
    t.equal(
      (await call('POST', '/edge-one/blocks/read', { headers: { authorization: 'Bearer ebt_' }, body: { id: 'x' } }))
        .status,
      401,
    );

    const refreshed = await call('GET', '/auth/refresh', { cookie: s.cookie });
    t.equal(refreshed.status, 200);
    t.match(refreshed.setCookie, /^Authorization=/);
    t.equal((await call('GET', '/auth/refresh')).status, 401, 'refresh without a session');

    const out = await call('GET', '/auth/logout', { cookie: s.cookie });
    t.equal(out.status, 200);
    t.match(out.setCookie, /^Authorization=;.*Expires=Thu, 01 Jan 1970/);

    const page = await call('GET', '/');
    t.equal(page.status, 200, 'the dashboard page is open (it shows the login)');
    t.match(page.body, /<html/i);
    t.equal((await call('GET', '/dashboard.json')).status, 200, 'which service the page belongs to is open');
    t.equal(
      (await call('GET', '/some/static/file.js')).status,
      401,
      'a path that matches no route is refused by default, not answered 404',
    );
    t.equal((await call('GET', '/api/doc/json')).status, 200, 'the Swagger page of the login contract is open');
    t.equal((await call('POST', '/some/static/file.js')).status, 401, 'other methods are guarded everywhere');
  },
);

t.test('forged, expired and stale cookies are refused', async (t) => {
  const { call, login, dataDir, users } = await setup(t);
  const s = await login();
  const value = s.cookie.slice('Authorization='.length);
  const [payload, mac] = value.split('.');
  const forgedPayload = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), u: 'mallory' }),
  ).toString('base64url');
  const read = (cookie: string) => call('POST', '/edge-one/blocks/all/read', { cookie });
  t.equal((await read(s.cookie)).status, 200, 'the real cookie works');
  t.equal((await read(`Authorization=${forgedPayload}.${mac}`)).status, 401, 'payload changed');
  t.equal((await read(`Authorization=${payload}.${mac!.slice(0, -2)}AA`)).status, 401, 'signature changed');
  t.equal((await read(`Authorization=garbage`)).status, 401);
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
  // Timed on the issuing run's monotonic clock (m); one from an earlier run by its wall-clock exp.
  const expired = signSession(loadSecret(dataDir), { ...claims, exp: Date.now() - 1000, m: 0 });
  t.equal((await read(`Authorization=${expired}`)).status, 401, 'expired');
  const { b: _run, m: _m, ...earlierRun } = claims;
  const expiredEarlier = signSession(loadSecret(dataDir), { ...earlierRun, exp: Date.now() - 1000 });
  t.equal((await read(`Authorization=${expiredEarlier}`)).status, 401, 'expired, issued by an earlier run');
  const validEarlier = signSession(loadSecret(dataDir), { ...earlierRun, exp: Date.now() + 60_000 });
  t.equal((await read(`Authorization=${validEarlier}`)).status, 200, 'not expired, issued by an earlier run');
  const otherKey = signSession(Buffer.alloc(32, 7), claims);
  t.equal((await read(`Authorization=${otherKey}`)).status, 401, 'signed with another key');
  t.equal(
    (await call('GET', '/auth/refresh', { cookie: `Authorization=${expired}` })).status,
    401,
    'refresh of an expired session',
  );

  await users.setPassword('alice', 'a new password 2');
  t.equal((await read(s.cookie)).status, 401, 'a password change ends the old sessions');
  users.remove('alice');
  await users.add('bob', 'bobs password');
  t.equal(
    (await call('POST', '/auth/login', { body: { username: 'bob', password: 'bobs password' } })).status,
    200,
    'users added by the CLI can log in without a restart',
  );
});

t.test('wrong passwords: 401 after a constant delay; logins are rate limited per address', async (t) => {
  const { call } = await setup(t);
  for (const body of [
    { username: 'alice', password: 'wrong password' },
    { username: 'nobody', password: 'whatever1' },
  ]) {
    const started = Date.now();
    const res = await call('POST', '/auth/login', { body });
    const took = Date.now() - started;
    t.equal(res.status, 401, JSON.stringify(body));
    t.ok(took >= FAIL_DELAY_MS - 5, `answered after ${took} ms, not before the constant delay`);
    t.equal(res.setCookie, null);
  }
  // A body that is not {username, password} tries no password: 422 naming the field, never quoting a password.
  for (const [body, field] of [
    [{ username: 'alice' }, 'password'],
    [{ username: 'alice', password: 86753099 }, 'password'],
    [{ password: 'hunter2-secret' }, 'username'],
  ] as const) {
    const res = await call('POST', '/auth/login', { body });
    t.equal(res.status, 422, JSON.stringify(body));
    t.ok(
      (res.body as { validation?: Array<{ path: string }> }).validation?.some((v) => v.path === field),
      `names ${field}`,
    );
    t.notMatch(JSON.stringify(res.body), /86753099|hunter2/, 'the password is not quoted back');
    t.equal(res.setCookie, null);
  }
  const bad = await call('POST', '/auth/login', { body: '{"username":"alice","password":"hunter2-secret' });
  t.equal(bad.status, 400);
  t.notMatch(JSON.stringify(bad.body), /hunter2/, 'a broken login body is not quoted back');
  const burst = await Promise.all(
    Array.from({ length: 12 }, () =>
      call('POST', '/auth/login', { body: { username: 'alice', password: 'guess1234' } }),
    ),
  );
  t.ok(
    burst.some((r) => r.status === 429),
    'attempts past the limit get 429',
  );
  t.equal(
    (await call('POST', '/auth/login', { body: { username: 'alice', password: PASSWORD } })).status,
    429,
    'the right password is refused too while limited',
  );
});

t.test('/eventbus, the TLS gateway and the embedded broker refuse anonymous clients', async (t) => {
  const { rt, login, token, httpsPort, origin } = await setup(t);
  const s = await login();
  const brokerUrl = `mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`;
  const tryConnect = (url: string, opts: mqtt.IClientOptions) =>
    new Promise<{ ok: boolean; code?: number; message?: string }>((resolve) => {
      const c = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 3000, ...opts });
      c.once('connect', () => (c.end(true), resolve({ ok: true })));
      c.once(
        'error',
        (e) => (c.end(true), resolve({ ok: false, code: (e as { code?: number }).code, message: e.message })),
      );
      c.once('close', () => resolve({ ok: false, message: 'closed' }));
    });
  const anon = await tryConnect(brokerUrl, {});
  t.equal(anon.ok, false);
  t.equal(anon.code, 5, 'CONNACK 5: not authorized');
  t.equal((await tryConnect(brokerUrl, { username: 'alice', password: 'wrong password' })).code, 5);
  t.equal((await tryConnect(brokerUrl, { username: 'alice', password: PASSWORD })).ok, true, 'user name and password');
  t.equal((await tryConnect(brokerUrl, { username: 'script', password: token })).ok, true, 'token as the password');
  t.equal(
    (await tryConnect(brokerUrl, { username: 'edgeblocks-internal', password: 'guess' })).code,
    5,
    "the service's own account needs its random password",
  );
  t.equal(rt.app.mqtt.connected, true, "the service's own client is connected");

  const ws = `ws://${origin.slice('http://'.length)}/eventbus`;
  const anonWs = await tryConnect(ws, {});
  t.equal(anonWs.ok, false, '/eventbus without a session');
  const upgradeStatus = (url: string) =>
    new Promise<number>((resolve, reject) => {
      const sock = new WebSocket(url, 'mqtt');
      sock.once('unexpected-response', (_req, res) => (resolve(res.statusCode!), sock.terminate()));
      sock.once('open', () => (sock.close(), resolve(101)));
      sock.once('error', reject);
    });
  t.equal(await upgradeStatus(ws), 401, 'the upgrade is answered 401');
  t.equal(await upgradeStatus(ws.replace('/eventbus', '/history/timeseries/stream')), 401, 'any other websocket too');
  t.equal(
    (await tryConnect(ws, { wsOptions: { headers: { cookie: s.cookie } } })).ok,
    true,
    '/eventbus with the session cookie',
  );
  t.equal(
    (await tryConnect(ws, { wsOptions: { headers: { authorization: `Bearer ${token}` } } })).ok,
    true,
    '/eventbus with a token',
  );

  t.equal(
    (await tryConnect(`wss://127.0.0.1:${httpsPort}/eventbus`, { rejectUnauthorized: false })).ok,
    false,
    'gateway /eventbus without a session',
  );
  const https = (method: string, p: string, headers: Record<string, string> = {}, body?: string) =>
    new Promise<{ status: number; setCookie?: string[] }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: httpsPort,
          path: p,
          method,
          rejectUnauthorized: false,
          headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, setCookie: res.headers['set-cookie'] }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  t.equal((await https('POST', '/edge-one/system/ping')).status, 401, 'gateway REST without a session');
  const gl = await https('POST', '/auth/login', {}, JSON.stringify({ username: 'alice', password: PASSWORD }));
  t.equal(gl.status, 200);
  t.match(gl.setCookie![0], /; Secure/, 'Secure on the TLS gateway');
  t.equal((await https('POST', '/edge-one/system/ping', { cookie: gl.setCookie![0]!.split(';')[0]! })).status, 200);
});

t.test('no password, hash, token or session value in any log line', async (t) => {
  const { call, login, token, log, users, rt } = await setup(t);
  const s = await login();
  await call('POST', '/auth/login', { body: { username: 'alice', password: 'wrong password' } });
  await call('POST', '/auth/login', { body: '{"username":"alice","password":"hunter2-secret' });
  await call('POST', '/edge-one/blocks/read', { headers: { authorization: `Bearer ${token}` }, body: { id: 'nope' } });
  await call('POST', '/edge-one/blocks/read', { cookie: s.cookie, body: { nid: 'bad' } });
  const c = mqtt.connect(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`, {
    username: 'alice',
    password: 'wrong password',
    reconnectPeriod: 0,
  });
  await new Promise((r) => c.once('error', r));
  c.end(true);
  const text = log();
  t.ok(text.length > 200, 'something was logged');
  t.match(text, /not authorized/, 'the refused MQTT client is logged');
  for (const secret of [
    PASSWORD,
    'wrong password',
    'hunter2-secret',
    token,
    s.cookie.split('=')[1]!,
    users.get('alice')!.hash.split('$')[5]!,
    users.get('alice')!.token!,
    ...(rt.app.config.auth ? ['edgeblocks-internal-password'] : []),
  ]) {
    t.notOk(text.includes(secret), `log free of ${secret.slice(0, 6)}...`);
  }
});

t.test('auth off: the contract answers enabled:false and every route is open', async (t) => {
  const rt = await startApp();
  t.teardown(() => rt.close());
  const origin = rt.base.replace(/\/[^/]+$/, '');
  t.same(await (await fetch(`${origin}/auth/status`)).json(), { enabled: false, valid_duration: 'P7D' });
  t.equal((await fetch(`${origin}/auth/refresh`)).status, 200);
  const login = await fetch(`${origin}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"username":"a","password":"b"}',
  });
  t.same(await login.json(), { username: null, expires: null, enabled: false });
  t.equal((await rt.post('system/ping')).status, 200);
});
