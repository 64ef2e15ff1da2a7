// With auth on, no route answers an anonymous client, whatever spelling of its path reaches the
// router: percent-encoded letters, other case, doubled slashes, dot segments, a trailing slash,
// encoded slashes. The routes come from the app's own route table, so a new route is covered by
// itself; every variant goes to the HTTP port and the TLS gateway as raw bytes (no client
// normalises them first). Websocket upgrades of every spelling are refused too.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { UsersFile } from '../../src/auth/users.js';
import { startApp } from '../helpers/app.js';
import { freePort } from '../helpers/mosquitto.js';
import { limit } from '../helpers/limits.js';
import { variants } from '../helpers/path-variants.js';

/** A concrete path for a route pattern (`:param` and `*` filled in). */
const concrete = (url: string) => url.replace(/:[^/]+/g, 'x').replace(/\*$/, 'index.html');

interface Answer {
  status: number;
  upgraded: boolean;
}

function send(
  port: number,
  tls: boolean,
  agent: HttpAgent,
  method: string,
  rawPath: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = method === 'POST' || method === 'PUT' ? '{}' : undefined;
    const opts = {
      host: '127.0.0.1',
      port,
      method,
      path: rawPath,
      agent,
      rejectUnauthorized: false,
      headers: {
        ...headers,
        ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
      },
    };
    const req = (tls ? httpsRequest : httpRequest)(opts, (res: IncomingMessage) => {
      resolve({ status: res.statusCode ?? 0, upgraded: false });
      res.destroy(); // the events route streams: the status line is all we need
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, upgraded: true });
    });
    req.on('error', reject);
    req.setTimeout(limit(10_000), () =>
      req.destroy(new Error(`${method} ${rawPath}: no answer in ${limit(10_000)} ms`)),
    );
    req.end(body);
  });
}

t.test('every route of the route table, in every spelling, refuses anonymous clients on both ports', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-routes-'));
  const users = new UsersFile(dataDir).load();
  await users.add('alice', 'correct horse battery');
  const token = users.createToken('alice');
  const httpsPort = await freePort();
  const rt = await startApp({ auth: 'true', hardware: 'sim', httpsPort: String(httpsPort) }, { dataDir });
  const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 8 });
  const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 8 });
  t.teardown(async () => {
    httpAgent.destroy();
    httpsAgent.destroy();
    await rt.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const httpPort = Number(new URL(rt.base).port);
  const ports = [
    { name: 'http', port: httpPort, tls: false, agent: httpAgent },
    { name: 'https gateway', port: httpsPort, tls: true, agent: httpsAgent as unknown as HttpAgent },
  ];

  const table = rt.app.http.routeTable();
  const guarded = table.filter((r) => !r.public);
  t.ok(
    guarded.some((r) => r.url === '/edge-one/events'),
    'the table holds the events stream',
  );
  t.ok(
    guarded.some((r) => r.url.startsWith('/edge-one/sim/')),
    'the table holds the sim routes',
  );
  t.ok(
    guarded.some((r) => r.url === '/history/datastore/ping'),
    'the table holds the datastore',
  );
  t.ok(
    guarded.some((r) => r.url === '/edge-one/settings/enabled'),
    'the table holds settings/enabled',
  );
  t.ok(
    table
      .filter((r) => r.public)
      .every(
        (r) =>
          r.url.startsWith('/auth/') ||
          r.url.startsWith('/api') ||
          r.url === '/' ||
          r.url === '/dashboard.json' ||
          r.url === '/index.html' ||
          r.url.startsWith('/assets/'),
      ),
    'public: only the login contract, the index and the dashboard files',
  );

  let checked = 0;
  const leaks: string[] = [];
  for (const { name, port, tls, agent } of ports) {
    for (const route of guarded) {
      const p = concrete(route.url);
      // The route exists as spelled: with a token it is not refused (so the variants test something).
      const own = await send(port, tls, agent, route.method, p, { authorization: `Bearer ${token}` });
      if (own.status === 401) leaks.push(`${name} ${route.method} ${p}: refused even with a token`);
      for (const v of [p, ...variants(p)]) {
        const res = await send(port, tls, agent, route.method, v);
        checked++;
        if (res.status !== 401) leaks.push(`${name} ${route.method} ${v} -> ${res.status}`);
      }
    }
  }
  t.same(leaks, [], 'no spelling of a guarded route answers without credentials');
  t.ok(checked > guarded.length * 20, `${checked} anonymous requests`);

  // Upgrades of both websocket paths, in every spelling, on both ports.
  const upgradeLeaks: string[] = [];
  for (const { name, port, tls, agent } of ports) {
    for (const p of ['/eventbus', '/history/timeseries/stream']) {
      for (const v of [p, ...variants(p)]) {
        const res = await send(port, tls, agent, 'GET', v, {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'sec-websocket-protocol': 'mqtt',
        });
        if (res.upgraded || res.status !== 401)
          upgradeLeaks.push(`${name} upgrade ${v} -> ${res.status}${res.upgraded ? ' (upgraded)' : ''}`);
      }
    }
  }
  t.same(upgradeLeaks, [], 'no spelling of a websocket path upgrades without credentials');
});

t.test('the variants include the spellings that bypassed the guard', async (t) => {
  const v = variants('/edge-one/events');
  for (const bypass of ['/%65dge-one/events', '/edg%65-one/events', '//edge-one/events', '/EDGE-ONE/events'])
    t.ok(v.includes(bypass), bypass);
  t.ok(variants('/history/datastore/ping').includes('/%68istory/datastore/ping'));
});

interface FullAnswer {
  status: number;
  upgraded: boolean;
  body: { statusCode?: number; error?: string; message?: string } | null;
}

/** One request (or upgrade request) and the whole refusal body, parsed as JSON (null when it is not JSON). */
function sendFull(
  port: number,
  tls: boolean,
  agent: HttpAgent,
  method: string,
  rawPath: string,
  headers: Record<string, string>,
): Promise<FullAnswer> {
  return new Promise((resolve, reject) => {
    const body = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method) ? '{}' : undefined;
    const opts = {
      host: '127.0.0.1',
      port,
      method,
      path: rawPath,
      agent,
      rejectUnauthorized: false,
      headers: {
        ...headers,
        ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
      },
    };
    const req = (tls ? httpsRequest : httpRequest)(opts, (res: IncomingMessage) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        let parsed: FullAnswer['body'] = null;
        try {
          parsed = JSON.parse(text) as FullAnswer['body'];
        } catch {
          parsed = null;
        }
        resolve({ status: res.statusCode ?? 0, upgraded: false, body: parsed });
      });
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, upgraded: true, body: null });
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${rawPath}: no answer in 10 s`)));
    req.end(body);
  });
}

const UPGRADE = {
  connection: 'Upgrade',
  upgrade: 'websocket',
  'sec-websocket-version': '13',
  'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
  'sec-websocket-protocol': 'mqtt',
};

t.test(
  'one guard chain: requests, event streams and both websocket paths on both ports meet the same hooks',
  async (t) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-chain-'));
    const users = new UsersFile(dataDir).load();
    await users.add('alice', 'correct horse battery');
    const token = users.createToken('alice');
    const httpsPort = await freePort();
    const rt = await startApp({ auth: 'true', hardware: 'sim', httpsPort: String(httpsPort) }, { dataDir });
    const httpAgent = new HttpAgent({ keepAlive: false });
    const httpsAgent = new HttpsAgent({ keepAlive: false });
    t.teardown(async () => {
      await rt.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const httpPort = Number(new URL(rt.base).port);
    const ports = [
      { name: 'http', port: httpPort, tls: false, agent: httpAgent },
      { name: 'https gateway', port: httpsPort, tls: true, agent: httpsAgent as unknown as HttpAgent },
    ];

    // The websocket paths are routes of the table like any other (the guards decide on the matched route).
    const table = rt.app.http.routeTable();
    for (const ws of ['/eventbus', '/history/timeseries/stream'])
      t.ok(
        table.some((r) => r.url === ws && r.method === 'GET' && !r.public),
        `${ws} is a guarded route`,
      );

    // Every served path, as the client meets it: each route of the table, and each websocket path as an upgrade.
    const targets = [
      ...table
        .filter((r) => !r.public && !['/eventbus', '/history/timeseries/stream'].includes(r.url))
        .map((r) => ({ method: r.method, path: concrete(r.url), upgrade: false })),
      ...['/eventbus', '/history/timeseries/stream'].map((p) => ({ method: 'GET', path: p, upgrade: true })),
    ];
    t.ok(
      targets.some((x) => x.path === '/edge-one/events'),
      'the event stream is among them',
    );

    const refusals = new Map<string, Set<string>>();
    const wrong: string[] = [];
    const note = (kind: string, a: FullAnswer, method: string) => {
      if (method === 'HEAD') return; // no body to compare
      // The refusal's words, with the path-independent part only (the same hook says the same thing).
      const words = `${a.status} ${a.body?.error} ${a.body?.message?.replace(/Host "[^"]*"/, 'Host').slice(0, 60)}`;
      (refusals.get(kind) ?? refusals.set(kind, new Set()).get(kind)!).add(words);
    };
    for (const { name, port, tls, agent } of ports) {
      const self = `127.0.0.1:${port}`;
      for (const x of targets) {
        const base = x.upgrade ? UPGRADE : {};
        const label = `${name} ${x.method} ${x.path}${x.upgrade ? ' (upgrade)' : ''}`;
        // A foreign Host (DNS rebinding), even with a token: the host hook, 421.
        const rebound = await sendFull(port, tls, agent, x.method, x.path, {
          ...base,
          host: 'evil.example',
          origin: 'http://evil.example',
          authorization: `Bearer ${token}`,
        });
        if (rebound.status !== 421 || rebound.upgraded)
          wrong.push(`${label} with Host evil.example -> ${rebound.status}`);
        note('host', rebound, x.method);
        // A foreign Origin, even with a token: the cross-site hook, 403, for state-changing requests and upgrades.
        const stateChanging = x.upgrade || ['POST', 'PUT', 'PATCH', 'DELETE'].includes(x.method);
        if (stateChanging) {
          const foreign = await sendFull(port, tls, agent, x.method, x.path, {
            ...base,
            host: self,
            origin: 'http://evil.example',
            authorization: `Bearer ${token}`,
          });
          if (foreign.status !== 403 || foreign.upgraded)
            wrong.push(`${label} from Origin evil.example -> ${foreign.status}`);
          note('cross-site', foreign, x.method);
        }
        // No credentials, same site: the auth hook, 401.
        const anonymous = await sendFull(port, tls, agent, x.method, x.path, {
          ...base,
          host: self,
          origin: `http${tls ? 's' : ''}://${self}`,
        });
        if (anonymous.status !== 401 || anonymous.upgraded)
          wrong.push(`${label} without credentials -> ${anonymous.status}`);
        note('auth', anonymous, x.method);
      }
    }
    t.same(wrong, [], 'every served path on both ports is refused');
    // One hook per refusal: the same JSON error body whether the client asked for a route, an event stream or an upgrade.
    for (const kind of ['host', 'cross-site', 'auth'])
      t.equal(
        refusals.get(kind)?.size,
        1,
        `${kind}: one refusal for every path and port: ${[...(refusals.get(kind) ?? [])].join(' | ')}`,
      );
    t.match([...refusals.get('host')!][0], /^421 Misdirected Request Host is not a name this controller is known by/);
    t.match(
      [...refusals.get('cross-site')!][0],
      /^403 Forbidden cross-site request refused: Origin http:\/\/evil\.example/,
    );
    t.match([...refusals.get('auth')!][0], /^401 Unauthorized login required/);
    // And with a token, from this host, both websocket paths do upgrade on both ports (the refusals above are the hooks, not a dead path).
    for (const { name, port, tls, agent } of ports) {
      for (const p of ['/eventbus', '/history/timeseries/stream']) {
        const ok = await sendFull(port, tls, agent, 'GET', p, {
          ...UPGRADE,
          host: `127.0.0.1:${port}`,
          authorization: `Bearer ${token}`,
        });
        t.ok(ok.upgraded && ok.status === 101, `${name} ${p} upgrades with a token`);
      }
    }
  },
);
