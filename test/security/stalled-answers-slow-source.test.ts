// The stall limit of answers (answer-stall.ts) is for clients that take nothing. A streamed answer
// whose source is slow (a history CSV whose slices come from a busy store or VictoriaMetrics)
// leaves nothing waiting for the client between its pieces: a client that takes every byte at once
// must get all of it however many pauses the source makes, as long as each is shorter than the limit.
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import t from 'tap';
import { StalledAnswers } from '../../src/api/answer-stall.js';
import { silentLogger } from '../../src/log.js';
import { sleep } from '../mqtt/fixtures.js';

const STALL_MS = 800;
/** Pauses of the source: each well under the limit, together more than twice it. */
const PAUSE_MS = 250;
const PIECES = 10;

t.test('a streamed answer whose source pauses, read at once by its client, arrives whole', async (t) => {
  const app = Fastify();
  const stalled = new StalledAnswers(silentLogger, STALL_MS);
  stalled.install(app);
  app.get('/slow', async (_req, reply) => {
    async function* pieces() {
      for (let i = 0; i < PIECES; i++) {
        await sleep(PAUSE_MS);
        yield `line ${i}\n`;
      }
    }
    return reply.type('text/plain').send(Readable.from(pieces()));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const { port } = app.server.address() as AddressInfo;
  const started = Date.now();
  const text = await fetch(`http://127.0.0.1:${port}/slow`)
    .then((r) => r.text())
    .catch((e: Error) => `failed: ${e.message} ${(e.cause as Error | undefined)?.message ?? ''}`);
  t.equal(
    text.trimEnd().split('\n').length,
    PIECES,
    `the client got every line (${JSON.stringify(text.slice(-40))}, in ${Date.now() - started} ms)`,
  );
  t.equal(stalled.cut, 0, 'no answer was counted as stalled');
});
