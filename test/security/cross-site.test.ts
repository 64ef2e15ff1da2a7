// Cross-site requests are refused (issue 15, item 2), over real HTTP: a page on another origin
// cannot delete blocks with a form-like POST, cannot open /eventbus, and a POST must be JSON;
// the same host (what the Brewblox UI and the built-in page send), configured allowedOrigins
// and scripts without Origin keep working.
import { request } from 'node:http';
import t from 'tap';
import { WebSocket } from 'ws';
import { loadConfig } from '../../src/config.js';
import { startApp } from '../helpers/app.js';

interface Answer {
  status: number;
  body: any;
}

function send(
  base: string,
  route: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const url = new URL(`${base}/${route}`);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'POST', headers: opts.headers ?? {} }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

function upgrade(wsUrl: string, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, ['mqtt'], origin ? { origin } : {});
    ws.on('open', () => {
      ws.terminate();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode!);
      ws.terminate();
    });
    ws.on('error', (e) => reject(e));
  });
}

t.test('foreign origins are refused, this host and allowedOrigins are not', async (t) => {
  const rt = await startApp({ allowedOrigins: 'http://ui.example:8080' });
  t.teardown(() => rt.close());
  const self = new URL(rt.base).origin; // http://127.0.0.1:PORT, the Host the client sends
  const port = new URL(rt.base).port;
  const ids = async () => ((await rt.post('blocks/all/read')).body as Array<{ id: string }>).map((b) => b.id);
  t.equal((await rt.post('blocks/create', { id: 'Keep Me', type: 'TempSensorMock', data: {} })).status, 201);

  // The attack from the issue: text/plain, no body, foreign Origin.
  const attack = await send(rt.base, 'blocks/all/delete', {
    headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
  });
  t.equal(attack.status, 403, 'a foreign Origin is refused');
  t.match(attack.body.message, /cross-site request refused: Origin http:\/\/evil\.example is neither this host/);
  const viaReferer = await send(rt.base, 'blocks/all/delete', {
    headers: { referer: 'http://evil.example/page.html', 'content-type': 'application/json' },
  });
  t.equal(viaReferer.status, 403, 'a foreign Referer is refused when there is no Origin');
  t.equal(
    (await send(rt.base, 'blocks/all/delete', { headers: { origin: 'null', 'content-type': 'application/json' } }))
      .status,
    403,
    'Origin null is refused',
  );
  t.equal(
    (
      await send(rt.base, 'blocks/all/delete', {
        headers: { origin: 'http://127.0.0.1:1', 'content-type': 'application/json' },
      })
    ).status,
    403,
    'this host on another port is another origin',
  );
  for (const method of ['PUT', 'PATCH', 'DELETE']) {
    t.equal(
      (await send(rt.base, 'blocks/all/delete', { method, headers: { origin: 'http://evil.example' } })).status,
      403,
      `${method} from a foreign origin is refused`,
    );
  }
  t.ok((await ids()).includes('Keep Me'), 'nothing was deleted');

  // Not JSON: 415, with or without a body, with or without an Origin.
  const plain = await send(rt.base, 'blocks/all/delete', { headers: { 'content-type': 'text/plain' } });
  t.equal(plain.status, 415, 'a text/plain POST without Origin is 415');
  t.match(plain.body.message, /content-type: application\/json/);
  const form = await send(rt.base, 'blocks/create', {
    headers: { origin: self, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'id=x',
  });
  t.equal(form.status, 415, 'a same-origin form POST is 415');
  const untyped = await send(rt.base, 'blocks/create', {
    body: JSON.stringify({ id: 'Untyped', type: 'TempSensorMock', data: {} }),
  });
  t.equal(untyped.status, 415, 'a body without a content type is 415');
  t.match(untyped.body.message, /content-type: application\/json/);
  t.ok((await ids()).includes('Keep Me'), 'still nothing deleted');

  // What keeps working.
  t.equal(
    (await send(rt.base, 'blocks/all/read')).status,
    200,
    'a script: no Origin, no body, no content type (curl -XPOST)',
  );
  t.equal(
    (await send(rt.base, 'blocks/all/read', { headers: { origin: self } })).status,
    200,
    'the Brewblox UI: same host, no body, no content type (axios)',
  );
  t.equal(
    (
      await send(rt.base, 'blocks/all/read', {
        headers: { referer: `${self}/ui/`, 'content-type': 'application/json' },
      })
    ).status,
    200,
    'same-host Referer',
  );
  t.equal(
    (
      await send(rt.base, 'blocks/all/read', {
        headers: { origin: 'http://ui.example:8080', 'content-type': 'application/json; charset=utf-8' },
      })
    ).status,
    200,
    'an allowedOrigins entry',
  );
  t.equal(
    (
      await send(rt.base, 'blocks/all/read', {
        headers: { origin: 'http://ui.example:8081', 'content-type': 'application/json' },
      })
    ).status,
    403,
    'not the listed port',
  );
  const created = await send(rt.base, 'blocks/create', {
    headers: { origin: self, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'From UI', type: 'TempSensorMock', data: {} }),
  });
  t.equal(created.status, 201, 'a same-host JSON POST creates');
  t.equal(
    (await send(rt.base, 'system/ping', { method: 'GET', headers: { origin: 'http://evil.example' } })).status,
    200,
    'GET is not state-changing',
  );

  // Websocket upgrades of /eventbus.
  const wsUrl = `ws://127.0.0.1:${port}/eventbus`;
  t.equal(await upgrade(wsUrl, 'http://evil.example'), 403, '/eventbus refuses a foreign Origin');
  t.equal(await upgrade(wsUrl, self), 101, '/eventbus accepts this host');
  t.equal(await upgrade(wsUrl, 'http://ui.example:8080'), 101, '/eventbus accepts an allowedOrigins entry');
  t.equal(await upgrade(wsUrl), 101, '/eventbus accepts a client without Origin');
  // Every websocket of the service gets the same check, the history stream too.
  const streamUrl = `ws://127.0.0.1:${port}/history/timeseries/stream`;
  t.equal(await upgrade(streamUrl, 'http://evil.example'), 403, 'the history stream refuses a foreign Origin');
  t.equal(await upgrade(streamUrl, self), 101, 'the history stream accepts this host');
});

t.test('allowedOrigins must be origins', async (t) => {
  t.throws(
    () => loadConfig({ allowedOrigins: 'http://ui.example/path' }, {}),
    /allowedOrigins: "http:\/\/ui.example\/path" must be an origin only/,
  );
  t.throws(() => loadConfig({ allowedOrigins: 'ui.example' }, {}), /allowedOrigins: "ui.example" is not a URL/);
  t.same(loadConfig({}, { EDGEBLOCKS_ALLOWED_ORIGINS: 'http://a.example, https://b.example:8443' }).allowedOrigins, [
    'http://a.example',
    'https://b.example:8443',
  ]);
});
