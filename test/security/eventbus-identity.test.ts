// The /eventbus bridge never lends the controller's broker identity (issue 15, item 1), against
// real Mosquitto brokers: one that requires client certificates and takes the certificate's name
// as the user (require_certificate + use_identity_as_username), and one with a password file.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import t from 'tap';
import { WebSocket } from 'ws';
import { createLogger } from '../../src/log.js';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { until } from '../mqtt/fixtures.js';
import { needTools } from '../helpers/tools.js';

needTools('mosquitto_passwd', 'openssl');

function makePki(dir: string): Record<'ca' | 'serverCert' | 'serverKey' | 'clientCert' | 'clientKey', string> {
  const f = (name: string) => path.join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=edgeblocks test CA',
  );
  writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1\n');
  for (const [name, cn, ext] of [
    ['server', '127.0.0.1', ['-extfile', f('server.ext')]],
    ['client', 'edge-controller', []],
  ] as const) {
    ssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      f(`${name}.key`),
      '-out',
      f(`${name}.csr`),
      '-subj',
      `/CN=${cn}`,
    );
    ssl(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-out',
      f(`${name}.pem`),
      '-days',
      '2',
      ...ext,
    );
  }
  readable(dir);
  return {
    ca: f('ca.pem'),
    serverCert: f('server.pem'),
    serverKey: f('server.key'),
    clientCert: f('client.pem'),
    clientKey: f('client.key'),
  };
}

/** Mosquitto started as root reads its files as the mosquitto user. */
function readable(dir: string): void {
  chmodSync(dir, 0o755);
  for (const name of readdirSync(dir)) chmodSync(path.join(dir, name), 0o644);
}

/** Try MQTT over the app's /eventbus; resolves 'connected' or the error. */
async function tryEventbus(port: number, opts: { username?: string; password?: string } = {}): Promise<string> {
  const client = mqtt.connect(`ws://127.0.0.1:${port}/eventbus`, {
    protocolVersion: 4,
    reconnectPeriod: 0,
    connectTimeout: 4000,
    ...opts,
  });
  try {
    return await new Promise<string>((resolve) => {
      client.once('connect', () => client.subscribe('#', (err) => resolve(err ? err.message : 'connected')));
      client.once('error', (e) => resolve(e.message));
      client.once('close', () => resolve('closed without a connection'));
      setTimeout(() => resolve('no answer within 5 s'), 5000);
    });
  } finally {
    client.end(true);
  }
}

function upgradeStatus(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/eventbus`, ['mqtt']);
    ws.on('open', () => {
      ws.terminate();
      resolve({ status: 101, body: '' });
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    ws.on('error', reject);
  });
}

t.test('a broker that wants client certificates: the bridge is off, and says why once', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-pki-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const pki = makePki(dir);
  const broker = await startMosquitto(undefined, [
    `cafile ${pki.ca}`,
    `certfile ${pki.serverCert}`,
    `keyfile ${pki.serverKey}`,
    'require_certificate true',
    'use_identity_as_username true',
  ]);
  t.teardown(() => broker.stop());
  const lines: string[] = [];
  const log = createLogger('info', {}, { write: (s: string) => lines.push(s) });
  const rt = await startApp(
    { mqttUrl: `mqtts://127.0.0.1:${broker.port}`, mqttCa: pki.ca, mqttCert: pki.clientCert, mqttKey: pki.clientKey },
    { log },
  );
  t.teardown(() => rt.close());
  await until(() => rt.app.mqtt.connected, 'the controller to connect with its certificate', 8000);
  const port = Number(new URL(rt.base).port);

  t.not(await tryEventbus(port), 'connected', 'a websocket client without credentials does not get onto the broker');
  t.not(await tryEventbus(port, { username: 'edge-controller' }), 'connected', 'nor by claiming the certificate name');
  const upgrade = await upgradeStatus(port);
  t.equal(upgrade.status, 503, 'the upgrade is answered 503');
  t.match(upgrade.body, /client certificate \(mqttCert\).*will not lend the controller's certificate identity/);
  t.equal(
    lines.filter((l) => /will not lend the controller's certificate identity/.test(l)).length,
    1,
    'the reason is logged once',
  );
});

t.test('a broker with passwords: websocket clients need their own', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-passwd-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const passwd = path.join(dir, 'passwd');
  execFileSync('mosquitto_passwd', ['-b', '-c', passwd, 'controller', 'controller-secret'], { stdio: 'pipe' });
  execFileSync('mosquitto_passwd', ['-b', passwd, 'browser', 'browser-secret'], { stdio: 'pipe' });
  readable(dir);
  const broker = await startMosquitto(undefined, ['allow_anonymous false', `password_file ${passwd}`]);
  t.teardown(() => broker.stop());
  const rt = await startApp({
    mqttUrl: `mqtt://controller:controller-secret@127.0.0.1:${broker.port}`,
    mqttUsername: 'controller',
    mqttPassword: 'controller-secret',
  });
  t.teardown(() => rt.close());
  await until(() => rt.app.mqtt.connected, 'the controller to connect with its password', 8000);
  const port = Number(new URL(rt.base).port);

  t.match(
    await tryEventbus(port),
    /Not authorized|Connection refused|Bad username/i,
    "no credentials: the broker refuses (the controller's are not added)",
  );
  t.match(
    await tryEventbus(port, { username: 'browser', password: 'wrong' }),
    /Not authorized|Connection refused|Bad username/i,
    'a wrong password is refused',
  );
  t.equal(
    await tryEventbus(port, { username: 'browser', password: 'browser-secret' }),
    'connected',
    "the client's own credentials get through",
  );
});
