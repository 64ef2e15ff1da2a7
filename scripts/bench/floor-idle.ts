// The floor of the idle bench: what the service's packages cost with nothing of the service's
// own code. fastify with the plugins the service registers at start (websocket, cookie, static
// files), pino, TypeBox's value checks, an aedes broker on a TCP port with an mqtt.js client
// connected to it and subscribed, and an SQLite database open in WAL mode; a 10 Hz timer that
// does nothing, as in bare-idle.ts. No blocks, no messages. The bench bundles it as the service is
// bundled (scripts/bundle.ts) and runs dist/bench-floor/floor.cjs PORT DATA_DIR.
import { mkdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Aedes } from 'aedes';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import mqtt from 'mqtt';
import { pino } from 'pino';

async function main(port: number, dataDir: string): Promise<void> {
  mkdirSync(dataDir, { recursive: true });

  const db = new Database(path.join(dataDir, 'floor.sqlite'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v BLOB)');

  const broker = await Aedes.createBroker();
  const brokerServer = createServer((socket) => broker.handle(socket));
  await new Promise<void>((resolve) => brokerServer.listen(0, '127.0.0.1', resolve));
  const client = mqtt.connect(`mqtt://127.0.0.1:${(brokerServer.address() as AddressInfo).port}`, {
    protocolVersion: 4,
  });
  client.on('connect', () => client.subscribe('#'));

  const Body = Type.Object({ ok: Type.Boolean() });
  const app = Fastify({ loggerInstance: pino({ level: 'warn' }) });
  await app.register(fastifyWebsocket);
  await app.register(fastifyCookie);
  await app.register(fastifyStatic, { root: dataDir });
  app.post('/ping', async () => {
    const body = { ok: true };
    return Value.Check(Body, body) ? body : { ok: false };
  });
  await app.listen({ host: '127.0.0.1', port });
  let ticks = 0;
  setInterval(() => void ticks++, 100);
  // Nothing to keep: the bench only needs it gone. (Closing the broker, the client and the server
  // in turn hung once in CI, and a reference that does not stop would hold the bench up.)
  process.on('SIGTERM', () => process.exit(0));
}

// No top-level await: the bundle is CommonJS.
void main(Number(process.argv[2]), process.argv[3]!);
