// MQTT over websocket at /eventbus: on the TLS gateway (self-signed, verification off) and on
// the controller HTTP port, bridged to the embedded broker or piped to the external one. The
// gateway also serves REST, keeps its certificate, and a port it cannot bind is only a warning.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { pino } from 'pino';
import t from 'tap';
import { WebSocket } from 'ws';
import { CERT_FILE } from '../../src/mqtt/tls-cert.js';
import { startApp } from '../helpers/app.js';
import { limit } from '../helpers/limits.js';
import { freePort } from '../helpers/mosquitto.js';
import { controllerTopic, Recorder, SERVICE_ID, topic, until, VARIANTS } from './fixtures.js';

function httpsPost(port: number, route: string, body?: unknown): Promise<{ status: number; body: any; cert: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: `/${SERVICE_ID}/${route}`,
        method: 'POST',
        rejectUnauthorized: false,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const cert = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, cert });
        });
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const isOnlineState = (m: { json(): any }) => m.json().data.status.online === true;

for (const variant of VARIANTS) {
  t.test(variant.name, async (t) => {
    const bus = await variant.setup();
    t.teardown(() => bus.close());
    const httpsPort = await freePort();
    const rt = await startApp({ ...bus.overrides, httpsPort: String(httpsPort), emitInterval: '200' });
    t.teardown(() => rt.close());
    t.equal(rt.app.gateway.port, httpsPort, 'the gateway listens');
    await until(() => rt.app.mqtt.connected, 'the runtime to connect');
    const httpPort = Number(new URL(rt.base).port);

    t.test('wss on the gateway, certificate verification off', async (t) => {
      const wss = await Recorder.connect(`wss://127.0.0.1:${httpsPort}/eventbus`, { rejectUnauthorized: false });
      t.teardown(() => wss.end());
      await wss.subscribe(topic('state'), topic('patch'));
      const state = await wss.waitFor(isOnlineState, 'state over wss', 2000);
      t.equal(state.json().key, SERVICE_ID);
      // And the other direction: a block API message published over wss reaches the runtime.
      await wss.publish(
        controllerTopic('create'),
        JSON.stringify({ id: 'From wss', serviceId: SERVICE_ID, type: 'TempSensorMock', data: {} }),
      );
      await wss.waitFor(
        (m) => m.topic === topic('patch') && m.json().data.changed[0]?.id === 'From wss',
        'the patch of a create sent over wss',
        2000,
      );
      t.equal((await rt.post('blocks/read', { id: 'From wss' })).status, 200);
    });

    t.test('a client that verifies certificates is refused by the self-signed one', async (t) => {
      await t.rejects(
        Recorder.connect(`wss://127.0.0.1:${httpsPort}/eventbus`, { reconnectPeriod: 0, connectTimeout: 2000 }),
      );
    });

    t.test('ws on the controller HTTP port', async (t) => {
      const ws = await Recorder.connect(`ws://127.0.0.1:${httpPort}/eventbus`);
      t.teardown(() => ws.end());
      await ws.subscribe(topic('state'));
      t.ok(await ws.waitFor(isOnlineState, 'state over ws', 2000));
    });

    t.test('upgrades: the history stream over the gateway, 404 for a path nobody serves', async (t) => {
      const answer = (url: string) =>
        new Promise<number>((resolve, reject) => {
          const ws = new WebSocket(url, { rejectUnauthorized: false });
          const timer = setTimeout(() => reject(new Error(`no answer from ${url}`)), limit(5000));
          ws.on('open', () => (clearTimeout(timer), ws.terminate(), resolve(101)));
          ws.on('unexpected-response', (_req, res) => (clearTimeout(timer), ws.terminate(), resolve(res.statusCode!)));
          ws.on('error', (e) => (clearTimeout(timer), reject(e)));
        });
      t.equal(
        await answer(`wss://127.0.0.1:${httpsPort}/history/timeseries/stream`),
        101,
        'the history stream on the gateway',
      );
      t.equal(await answer(`wss://127.0.0.1:${httpsPort}/nothing/here`), 404, 'an unknown path on the gateway');
      t.equal(await answer(`ws://127.0.0.1:${httpPort}/nothing/here`), 404, 'an unknown path on the HTTP port');
      t.equal(await answer(`ws://127.0.0.1:${httpPort}/eventbus/extra`), 404, 'a longer path is another path');
    });

    t.test('REST over the gateway', async (t) => {
      const ping = await httpsPost(httpsPort, 'system/ping');
      t.same([ping.status, ping.body], [200, { ping: 'pong' }]);
      const created = await httpsPost(httpsPort, 'blocks/create', {
        id: 'Via TLS',
        type: 'TempSensorMock',
        data: { setting: 22 },
      });
      t.equal(created.status, 201);
      t.equal((await rt.post('blocks/read', { id: 'Via TLS' })).body.data.setting.value, 22, 'same runtime');
      const bad = await httpsPost(httpsPort, 'blocks/read', { id: 'Nope' });
      t.equal(bad.status, 404, 'same error handling');
      t.equal(bad.body.statusCode, 404);
    });
  });
}

t.test('the self-signed certificate is generated once and kept in the data dir', async (t) => {
  const httpsPort = await freePort();
  const first = await startApp({ httpsPort: String(httpsPort) });
  const dataDir = first.dataDir;
  const pem = readFileSync(path.join(dataDir, CERT_FILE), 'utf8');
  const fp1 = (await httpsPost(httpsPort, 'system/ping')).cert;
  await first.app.stop();
  const second = await startApp({ httpsPort: String(httpsPort) }, { dataDir });
  t.teardown(async () => {
    await second.close();
    await first.close();
  });
  t.equal(readFileSync(path.join(dataDir, CERT_FILE), 'utf8'), pem, 'same file');
  t.equal((await httpsPost(httpsPort, 'system/ping')).cert, fp1, 'same certificate served');
});

t.test('a gateway port in use is a warning naming the port and the fix; the service keeps running', async (t) => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  const busyPort = (blocker.address() as AddressInfo).port;
  const lines: any[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const rt = await startApp({ httpsPort: String(busyPort) }, { log: pino({ level: 'warn' }, sink) });
  t.teardown(() => rt.close());
  const warning = lines.find((l) => l.level === 40 && /gateway/.test(l.msg));
  t.ok(warning, 'a warning is logged');
  t.match(warning?.msg, new RegExp(`HTTPS gateway port ${busyPort} on .* is in use`));
  t.match(warning?.msg, /stop the other instance, or choose another port with --https-port \(default 443; 0 = off\)/);
  t.notMatch(warning?.msg, /setcap|CAP_NET_BIND_SERVICE/, 'no capability advice: capabilities do not free a busy port');
  t.equal(rt.app.gateway.port, null);
  const status = (await (await fetch(`${rt.base}/system/status`)).json()) as { gateway: unknown };
  t.match(status.gateway, { listening: false, error: 'EADDRINUSE' });
  t.equal((await rt.post('system/ping')).status, 200, 'REST answers');
  await until(() => rt.app.mqtt.connected, 'MQTT to connect anyway');
});
