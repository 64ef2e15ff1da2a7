// The reference of the side-by-side bench: a bare fastify 5 server answering the block routes
// with the JSON bytes edgeblocks answered, captured in a file. Usage: bare-server.js PORT FILE
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
const bytes = JSON.parse(readFileSync(file!, 'utf8')) as Captured;
const app = Fastify();
const json = 'application/json; charset=utf-8';
app.post(`${bytes.prefix}/blocks/read`, async (req, reply) => reply.type(json).send(bytes.read[(req.body as { id: string }).id]));
app.post(`${bytes.prefix}/blocks/all/read`, async (_req, reply) => reply.type(json).send(bytes.all));
app.post(`${bytes.prefix}/blocks/patch`, async (_req, reply) => reply.type(json).send(bytes.patch));
app.post(`${bytes.prefix}/blocks/create`, async (_req, reply) => reply.status(201).type(json).send(bytes.create));
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
