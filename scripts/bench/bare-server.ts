// The reference of the side-by-side bench: a bare fastify 5 server answering the block routes
// with the JSON bytes edgeblocks answered, captured in a file and held as Buffers (the fastest a
// fastify route can answer: no measuring or encoding per request). Usage: bare-server.js PORT FILE
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

interface Captured {
  prefix: string;
  read: Record<string, string>;
  all: string;
  patch: string;
  create: string;
}

const [port, file] = process.argv.slice(2);
const captured = JSON.parse(readFileSync(file!, 'utf8')) as Captured;
const read = new Map(Object.entries(captured.read).map(([id, text]) => [id, Buffer.from(text)]));
const all = Buffer.from(captured.all);
const patch = Buffer.from(captured.patch);
const create = Buffer.from(captured.create);
const prefix = captured.prefix;
const app = Fastify();
const json = 'application/json; charset=utf-8';
app.post(`${prefix}/blocks/read`, async (req, reply) =>
  reply.type(json).send(read.get((req.body as { id: string }).id)),
);
app.post(`${prefix}/blocks/all/read`, async (_req, reply) => reply.type(json).send(all));
app.post(`${prefix}/blocks/patch`, async (_req, reply) => reply.type(json).send(patch));
app.post(`${prefix}/blocks/create`, async (_req, reply) => reply.status(201).type(json).send(create));
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
