// Roles and the embedded broker's access rules (issue 45.8). A viewer reads the dashboard, REST
// reads, history and MQTT state; every write is refused: 403 naming the role on every REST route
// that changes something, dropped on the embedded broker (TCP and /eventbus). Nobody but the
// service writes its own output topics; `$SYS` is for admins. One rule (src/shared/roles.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import t, { type Test } from 'tap';
import { runUserCommand } from '../../src/auth/cli.js';
import { UsersFile } from '../../src/auth/users.js';
import { startApp } from '../helpers/app.js';
import { Recorder, sleep } from '../mqtt/fixtures.js';
import { until } from '../helpers/until.js';
import { variants } from '../helpers/path-variants.js';

const PASSWORD = 'a long password';
const concrete = (url: string) => url.replace(/:[^/]+/g, 'x').replace(/\*$/, 'index.html');

async function authApp(t: Test) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-roles-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const users = new UsersFile(dataDir).load();
  await users.add('alice', PASSWORD);
  await users.add('vic', PASSWORD, 'viewer');
  const tokens = { alice: users.createToken('alice'), vic: users.createToken('vic') };
  const rt = await startApp({ auth: 'true', hardware: 'sim', emitInterval: '200' }, { dataDir });
  t.teardown(() => rt.close());
  const origin = rt.base.slice(0, rt.base.length - '/edge-one'.length);
  const call = async (who: keyof typeof tokens, method: string, url: string, body?: unknown) => {
    const res = await fetch(origin + url, {
      method,
      headers: {
        authorization: `Bearer ${tokens[who]}`,
        ...(body === undefined || method === 'GET' ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined || method === 'GET' ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    let json: any = text;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, body: json };
  };
  return { rt, users, tokens, call, origin, dataDir };
}

t.test('edgeblocks user: --role viewer, role NAME ROLE, list shows the role', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-roles-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const run = async (argv: string[], stdin = `${PASSWORD}\n`) => {
    let out = '';
    let err = '';
    const { Readable } = await import('node:stream');
    const code = await runUserCommand([...argv, '--data-dir', dir], {
      stdin: Readable.from([stdin]),
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
    });
    return { code, out, err };
  };
  t.match(await run(['add', 'vic', '--role', 'viewer']), {
    code: 0,
    out: /user vic added to .* as a viewer \(reads only\)/,
  });
  t.match(await run(['add', 'alice']), { code: 0, out: /user alice added to \S+\n$/ });
  t.match(await run(['add', 'eve', '--role', 'root']), { code: 2, err: /unknown role "root"; roles: admin, viewer/ });
  t.match(await run(['list']), { code: 0, out: /^alice\nvic {2}\(viewer\)\n$/ });
  t.match(await run(['role', 'vic', 'admin']), { code: 0, out: /vic is now an admin/ });
  t.equal(new UsersFile(dir).load().roleOf('vic'), 'admin');
  t.match(await run(['role', 'vic']), { code: 2, err: /needs a user name and a role/ });
  t.match(await run(['passwd', 'vic', '--role', 'viewer']), { code: 2, err: /--role goes with `add`/ });
});

t.test('REST: a viewer is refused every write with 403 naming the role, and reads everything', async (t) => {
  const { rt, call, tokens } = await authApp(t);
  t.equal(
    (await call('alice', 'POST', '/edge-one/blocks/create', { id: 'S', type: 'TempSensorMock', data: {} })).status,
    201,
  );
  const routes = rt.app.http
    .routeTable()
    .filter((r) => !r.public && r.method !== 'HEAD' && !['/eventbus', '/history/timeseries/stream'].includes(r.url))
    .filter((r) => !r.url.endsWith('/events'));
  const writes = routes.filter((r) => r.write);
  t.ok(writes.length >= 30, `${writes.length} write routes`);
  const wrong: string[] = [];
  for (const r of routes) {
    const res = await call('vic', r.method, concrete(r.url), {});
    const refused = res.status === 403 && /user vic has the role viewer/.test(res.body?.message ?? '');
    if (refused !== r.write)
      wrong.push(`${r.method} ${r.url}: ${res.status} ${JSON.stringify(res.body).slice(0, 100)}`);
  }
  t.same(wrong, [], 'every write refused, no read refused');
  const refusal = await call('vic', 'POST', '/edge-one/blocks/write', { id: 'S', type: 'TempSensorMock', data: {} });
  t.match(refusal.body, {
    statusCode: 403,
    message: /^user vic has the role viewer, which may read but not change anything \(POST \/edge-one\/blocks\/write\)/,
  });
  // What a viewer reads: blocks, status, datastore, history, alerts, the fleet.
  for (const [method, url, body] of [
    ['POST', '/edge-one/blocks/all/read', {}],
    ['POST', '/edge-one/blocks/read', { id: 'S' }],
    ['GET', '/edge-one/system/status', undefined],
    ['POST', '/history/datastore/get', { namespace: 'edge-one', id: 'units' }],
    ['POST', '/history/timeseries/fields', { duration: '1h' }],
    ['GET', '/edge-one/alerts/rules', undefined],
    ['GET', '/edge-one/fleet', undefined],
  ] as const)
    t.equal((await call('vic', method, url, body)).status, 200, `${method} ${url}`);
  const events = await fetch(`${rt.base}/events`, { headers: { authorization: `Bearer ${tokens.vic}` } });
  t.equal(events.status, 200, 'the event stream');
  await events.body?.cancel();
  t.same(
    rt.app.runtime
      .blocks()
      .map((b) => b.id)
      .filter((id) => id === 'S'),
    ['S'],
    'the block is unchanged',
  );
});

/** One request sent as raw bytes (no client normalises the path): its status and body. */
function raw(port: number, method: string, rawPath: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path: rawPath, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${rawPath}: no answer in 10 s`)));
    req.end(body);
  });
}

t.test('a viewer changes nothing by any spelling of a write route, method or content type', async (t) => {
  const { rt, tokens, call } = await authApp(t);
  t.equal(
    (await call('alice', 'POST', '/edge-one/blocks/create', { id: 'S', type: 'TempSensorMock', data: {} })).status,
    201,
  );
  const port = Number(new URL(rt.base).port);
  const auth = { authorization: `Bearer ${tokens.vic}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const writes = rt.app.http.routeTable().filter((r) => r.write && !r.public);
  t.ok(writes.length >= 30, `${writes.length} write routes`);
  const wrong: string[] = [];
  const check = async (method: string, p: string, headers: Record<string, string>, body?: string) => {
    const res = await raw(port, method, p, headers, body);
    // Refused by the guard (403 naming the role), or before it by the router (404, 405) or the
    // content-type rule (415). A 400 or 422 would be the route's own checks: the guard let it by.
    const refused =
      (res.status === 403 && (method === 'HEAD' || /user vic has the role viewer/.test(res.text))) ||
      [404, 405, 415].includes(res.status);
    if (!refused)
      wrong.push(
        `${method} ${p} ${JSON.stringify(headers['content-type'] ?? '')}: ${res.status} ${res.text.slice(0, 80)}`,
      );
  };
  for (const r of writes) {
    const p = concrete(r.url);
    for (const v of [p, ...variants(p)]) await check(r.method, v, json, '{}');
    for (const [headers, body] of [
      [{ ...auth, 'content-type': 'text/plain' }, '{}'],
      [{ ...auth, 'content-type': 'APPLICATION/JSON; charset=utf-8' }, '{}'],
      [{ ...auth, 'content-type': 'application/x-www-form-urlencoded' }, 'a=1'],
      [auth, undefined],
      [{ ...json, 'x-http-method-override': r.method }, undefined],
    ] as const)
      await check(r.method, p, headers, body);
    await check(r.method.toLowerCase(), p, json, '{}');
    for (const other of ['GET', 'HEAD', 'OPTIONS', 'PROPFIND'])
      await check(other, p, { ...json, 'x-http-method-override': r.method, 'x-method-override': r.method });
  }
  // GET routes that exist at a write route's path (settings/enabled, sim/plant) read: a 200 there is a read.
  const reads = new Set(
    rt.app.http
      .routeTable()
      .filter((r) => !r.write)
      .map((r) => `${r.method} ${concrete(r.url)}`),
  );
  t.same(
    wrong.filter((w) => !reads.has(w.split(' ').slice(0, 2).join(' '))),
    [],
    'every spelling refused',
  );
  t.same(
    rt.app.runtime
      .blocks()
      .map((b) => b.id)
      .filter((id) => id === 'S'),
    ['S'],
    'the block is still there',
  );
});

t.test('alert channels: a viewer sees which are set up, not their addresses', async (t) => {
  const { call } = await authApp(t);
  const email = {
    host: 'smtp.example.com',
    user: 'brewer',
    password: 'pw',
    from: 'a@example.com',
    to: 'b@example.com',
  };
  t.equal((await call('alice', 'PUT', '/edge-one/alerts/channels/email', email)).status, 200);
  const ntfy = { url: 'https://ntfy.example.com/brewery-5f3a' };
  t.equal((await call('alice', 'PUT', '/edge-one/alerts/channels/ntfy', ntfy)).status, 200);
  const all = async (who: 'alice' | 'vic') => {
    const res = await call(who, 'GET', '/edge-one/alerts/channels');
    t.equal(res.status, 200);
    return res.body.channels as Array<{ name: string }>;
  };
  const seen = async (who: 'alice' | 'vic') => (await all(who)).find((c) => c.name === 'email') as any;
  t.match(
    (await all('alice')).find((c) => c.name === 'ntfy'),
    {
      secrets: { url: { set: true, host: 'https://ntfy.example.com' } },
    },
  );
  t.match(
    (await all('vic')).find((c) => c.name === 'ntfy'),
    { settings: null, secrets: { url: { set: true } } },
  );
  // The schemas are the same for everyone (their examples name example.com); the rest is the channels'.
  const values = (await all('vic')).map(({ schema: _schema, ...rest }: Record<string, unknown>) => rest);
  t.notMatch(JSON.stringify(values), /example\.com|brewer/, 'nothing of either channel tells where it goes');
  const admin = await seen('alice');
  t.match(admin, {
    source: 'dashboard',
    settings: { to: 'b@example.com', user: 'brewer' },
    secrets: { password: { set: true } },
  });
  t.notOk('password' in admin.settings, 'no secret even for an admin');
  const viewer = await seen('vic');
  t.match(viewer, { source: 'dashboard', settings: null, secrets: { password: { set: true } } });
  t.notMatch(JSON.stringify(viewer), /example\.com|brewer/, 'no address, host or user name');
});

t.test('a role change takes effect without a new login', async (t) => {
  const { call, dataDir } = await authApp(t);
  const body = { id: 'Later', type: 'TempSensorMock', data: {} };
  t.equal((await call('vic', 'POST', '/edge-one/blocks/create', body)).status, 403);
  new UsersFile(dataDir).load().setRole('vic', 'admin');
  let status = 0;
  for (let i = 0; i < 40 && status !== 201; i++, await sleep(100))
    status = (await call('vic', 'POST', '/edge-one/blocks/create', body)).status;
  t.equal(status, 201, 'an admin now');
});

t.test('an admin made a viewer no longer gets $SYS on the subscription made as an admin', async (t) => {
  const { rt, call, dataDir } = await authApp(t);
  const url = `mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`;
  const as = async (user: string, clientId: string) => {
    const r = await Recorder.connect(url, { username: user, password: PASSWORD, clientId, reconnectPeriod: 0 });
    t.teardown(() => r.end());
    return r;
  };
  const users = new UsersFile(dataDir).load();
  await users.add('root', PASSWORD);
  const alice = await as('alice', 'alice-sub');
  const root = await as('root', 'root-sub');
  for (const r of [alice, root]) await r.subscribe('$SYS/#', 'svc/state/edge-one');
  // Every new client is announced on $SYS/<broker id>/new/clients.
  const announced = (id: string) => (m: { topic: string; payload: Buffer }) =>
    m.topic.endsWith('/new/clients') && m.payload.toString() === id;
  await as('root', 'first');
  await alice.waitFor(announced('first'), 'alice reads $SYS as an admin');

  users.setRole('alice', 'viewer');
  await until(async () => (await call('alice', 'GET', '/auth/refresh')).body?.role === 'viewer', 'the role change');
  await as('root', 'second');
  await root.waitFor(announced('second'), 'the announcement, to an admin');
  // What the broker sent alice before these answers has arrived by then.
  await alice.client.subscribeAsync('svc/nothing');
  await alice.waitFor((m) => m.topic === 'svc/state/edge-one', 'a state after it', 5000, alice.messages.length);
  t.notOk(alice.messages.some(announced('second')), 'alice, a viewer now, does not read $SYS');
  t.ok(alice.client.connected, 'and reads the rest as before');
});

t.test(
  'the embedded broker: viewers read, publish nothing, no $SYS; nobody writes the controller topics',
  async (t) => {
    const { rt, tokens, origin } = await authApp(t);
    const url = `mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`;
    const as = (user: string) =>
      Recorder.connect(url, { username: user, password: PASSWORD, clientId: `${user}-${Math.random()}` });
    const vic = await as('vic');
    t.teardown(() => vic.end());
    const alice = await as('alice');
    t.teardown(() => alice.end());

    await vic.subscribe('svc/state/+');
    await vic.waitFor((m) => m.topic === 'svc/state/edge-one', 'a viewer reads the state');
    await t.rejects(vic.client.subscribeAsync('$SYS/#'), /Subscribe error/, 'a viewer may not read $SYS');
    t.equal((await alice.client.subscribeAsync('$SYS/#'))[0]?.qos, 0, 'an admin may');

    const create = (id: string) => JSON.stringify({ serviceId: 'edge-one', id, type: 'TempSensorMock', data: {} });
    await vic.publish('svc/controller/blocks/create', create('By Viewer'));
    await alice.publish('svc/controller/blocks/create', create('By Admin'));
    await until(() => rt.app.runtime.find('By Admin') !== undefined, 'the admin block');
    await sleep(200);
    t.notOk(rt.app.runtime.find('By Viewer'), "the viewer's publish was dropped");
    t.ok(vic.client.connected, 'and the viewer stays connected (as with Mosquitto)');

    // The controller's own topics, even by an admin, retained: nobody else gets them.
    const forged = JSON.stringify({ key: 'edge-one', type: 'Spark.state', data: { status: { online: false } } });
    for (const topic of [
      'svc/state/edge-one',
      'svc/fleet/edge-one',
      'svc/ha/edge-one/availability',
      'homeassistant/sensor/edgeblocks_edge-one/100_value/config',
    ])
      await alice.publish(topic, forged, true);
    const late = await as('alice');
    t.teardown(() => late.end());
    await late.subscribe('svc/#', 'homeassistant/#');
    await sleep(500);
    t.same(
      late.messages.filter((m) => m.payload.toString() === forged).map((m) => m.topic),
      [],
      'no forged message, live or retained',
    );
    t.match((rt.app.status() as any).mqtt.refused, { publish: 5, subscribe: 1 }, 'counted in system/status');

    // /eventbus with a viewer's token: the same rules.
    const ws = await mqtt.connectAsync(`${origin.replace('http', 'ws')}/eventbus`, {
      wsOptions: { headers: { authorization: `Bearer ${tokens.vic}` } },
      reconnectPeriod: 0,
    });
    t.teardown(() => ws.endAsync(true));
    await ws.publishAsync('svc/controller/blocks/create', create('Over Eventbus'));
    await sleep(300);
    t.notOk(rt.app.runtime.find('Over Eventbus'), 'a viewer over /eventbus publishes nothing');
  },
);

t.test('auth off: anyone may use the broker, but not write the controller topics', async (t) => {
  const rt = await startApp({ homeAssistant: 'true', emitInterval: '200' });
  t.teardown(() => rt.close());
  const anon = await Recorder.connect(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`);
  t.teardown(() => anon.end());
  const sp = { id: 'Setpoint', type: 'SetpointSensorPair', data: { enabled: true, storedSetting: 18 } };
  t.equal((await rt.post('blocks/create', sp)).status, 201);
  const nid = rt.app.runtime.find('Setpoint')!.nid;
  await anon.publish('svc/state/edge-one', 'forged', true);
  await anon.publish(`svc/ha/edge-one/${nid}/set/setting`, '25');
  const setting = async () => (await rt.post('blocks/read', { id: 'Setpoint' })).body.data.storedSetting.value;
  for (let i = 0; i < 50 && (await setting()) !== 25; i++) await sleep(100);
  t.equal(await setting(), 25, 'a Home Assistant command is applied');
  const late = await Recorder.connect(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`);
  t.teardown(() => late.end());
  await late.subscribe('svc/state/edge-one');
  const state = await late.waitFor((m) => m.topic === 'svc/state/edge-one', 'the state');
  t.not(state.payload.toString(), 'forged', 'the retained state is the controller’s');
  t.equal((rt.app.status() as any).mqtt.refused.publish, 1);
});
