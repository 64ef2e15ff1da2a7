// DNS rebinding (issue 23, item 6): a page on evil.example that points its name at the
// controller sends `Host: evil.example` with a matching Origin. Over real sockets, on the HTTP
// port, the TLS gateway and websocket upgrades of both, such a request is answered 421 naming
// the setting to add, and nothing changes; the names the controller is known by, any IP
// address, allowedHosts and a request without Host (HTTP/1.0) keep working.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { hostname } from 'node:os';
import t from 'tap';
import { WebSocket } from 'ws';
import { loadConfig } from '../../src/config.js';
import { startApp } from '../helpers/app.js';
import { limit } from '../helpers/limits.js';
import { freePort } from '../helpers/mosquitto.js';

const SID = 'edge-one';

function send(
  tls: boolean,
  port: number,
  route: string,
  host: string,
  opts: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  const request = tls ? httpsRequest : httpRequest;
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const origin = `${tls ? 'https' : 'http'}://${host}`;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: `/${SID}/${route}`,
        method: opts.method ?? 'POST',
        rejectUnauthorized: false,
        headers: { host, origin, ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function upgrade(url: string, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['mqtt'], {
      headers: { host },
      origin: `${url.startsWith('wss') ? 'https' : 'http'}://${host}`,
      rejectUnauthorized: false,
    });
    const timer = setTimeout(() => reject(new Error(`no answer from ${url}`)), limit(5000));
    ws.on('open', () => (clearTimeout(timer), ws.terminate(), resolve({ status: 101, text: '' })));
    ws.on('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => (ws.terminate(), resolve({ status: res.statusCode!, text })));
    });
    ws.on('error', (e) => (clearTimeout(timer), reject(e)));
  });
}

/** One HTTP/1.0 request without a Host header; the status code. */
function withoutHost(port: number, route: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET /${SID}/${route} HTTP/1.0\r\n\r\n`));
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('end', () => resolve(Number(text.split(' ')[1])));
    socket.on('error', reject);
  });
}

t.test('a foreign Host is refused on every port and upgrade; known names pass', async (t) => {
  const httpsPort = await freePort();
  const rt = await startApp({
    httpsPort: String(httpsPort),
    allowedHosts: 'brewblox-ui',
    allowedOrigins: 'http://proxy.example:8080',
  });
  t.teardown(() => rt.close());
  const port = Number(new URL(rt.base).port);
  const count = async () => ((await rt.post('blocks/all/read')).body as unknown[]).length;
  const before = await count();

  for (const [tls, p] of [
    [false, port],
    [true, httpsPort],
  ] as const) {
    const where = tls ? 'the TLS gateway' : 'the HTTP port';
    const attack = await send(tls, p, 'blocks/create', `evil.example:${p}`, {
      body: { id: `Rebound ${p}`, type: 'TempSensorMock', data: {} },
    });
    t.equal(attack.status, 421, `${where}: a create with Host evil.example is refused`);
    t.match(
      attack.body?.message,
      /Host "evil\.example:\d+" is not a name this controller is known by/,
      'the answer says why',
    );
    t.match(attack.body?.message, /allowedHosts .*EDGEBLOCKS_ALLOWED_HOSTS=evil\.example/, 'and which setting to add');
    t.equal(
      (await send(tls, p, 'system/status', 'evil.example', { method: 'GET' })).status,
      421,
      `${where}: reads are refused too`,
    );
    t.equal((await send(tls, p, 'blocks/all/read', 'EVIL.example.')).status, 421, `${where}: any spelling of the name`);
  }
  t.equal(await count(), before, 'nothing was created');

  const name = hostname();
  const known = [
    'localhost',
    `localhost:${port}`,
    name,
    `${name}.local:${port}`,
    `${name.toUpperCase()}.`,
    '127.0.0.1',
    `[::1]:${port}`,
    '10.11.12.13:5000',
    '[fe80::1]',
    'brewblox-ui',
    'proxy.example:8080',
  ];
  for (const host of known) {
    t.equal((await send(false, port, 'blocks/all/read', host)).status, 200, `Host ${host} is accepted`);
  }
  const created = await send(true, httpsPort, 'blocks/create', name, {
    body: { id: 'Via name', type: 'TempSensorMock', data: {} },
  });
  t.equal(created.status, 201, "a create over the gateway by the machine's name");
  t.equal(await withoutHost(port, 'system/ping'), 200, 'HTTP/1.0 without a Host header passes');

  for (const [scheme, p] of [
    ['ws', port],
    ['wss', httpsPort],
  ] as const) {
    for (const path of ['/eventbus', '/history/timeseries/stream']) {
      const url = `${scheme}://127.0.0.1:${p}${path}`;
      const refused = await upgrade(url, 'evil.example');
      t.equal(refused.status, 421, `${url} refuses Host evil.example`);
      t.match(refused.text, /EDGEBLOCKS_ALLOWED_HOSTS/, 'naming the setting');
      t.equal((await upgrade(url, 'brewblox-ui')).status, 101, `${url} accepts an allowedHosts name`);
    }
  }
});

t.test('allowedHosts: * turns the check off', async (t) => {
  const rt = await startApp({ allowedHosts: '*' });
  t.teardown(() => rt.close());
  const port = Number(new URL(rt.base).port);
  t.equal((await send(false, port, 'blocks/all/read', 'anything.example')).status, 200);
});

t.test('allowedHosts must be host names', async (t) => {
  t.throws(
    () => loadConfig({}, { EDGEBLOCKS_ALLOWED_HOSTS: 'http://ui.example' }),
    /allowedHosts: "http:\/\/ui.example" is not a host name/,
  );
  t.throws(
    () => loadConfig({}, { EDGEBLOCKS_ALLOWED_HOSTS: 'ui.example:8080' }),
    /allowedHosts: "ui.example:8080" is not a host name/,
  );
  t.same(loadConfig({}, { EDGEBLOCKS_ALLOWED_HOSTS: 'brewblox, Brew.Local,10.0.0.2' }).allowedHosts, [
    'brewblox',
    'Brew.Local',
    '10.0.0.2',
  ]);
});
