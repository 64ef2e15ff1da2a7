// The stall limit of answers (answer-stall.ts) is for clients that take nothing; one that reads a
// large answer steadily, slower than the limit lets it finish, must get all of it. Through the
// HTTPS gateway (where the Brewblox UI comes in) the socket's idle timer is on the TLS socket,
// whose write of a large answer completes only when all of it is out: Node's own "a write is
// under way" pass looks at the TLS layer's queue, which does not move while the kernel takes the
// bytes. A steadily reading client was cut after one to two times the limit.
import Fastify from 'fastify';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'node:tls';
import t from 'tap';
import { StalledAnswers } from '../../src/api/answer-stall.js';
import { silentLogger } from '../../src/log.js';
import { gatewayIdentity } from '../../src/mqtt/tls-cert.js';
import { writePrivateFile } from '../../src/store/file-modes.js';

const STALL_MS = 1000;
const SIZE = 16 * 1024 * 1024;
/** Bytes a second the client reads: the answer takes some 4 s, four times the limit. */
const RATE = 4 * 1024 * 1024;

t.test('a client reading a large answer over HTTPS slower than the stall limit gets all of it', async (t) => {
  const tls = await gatewayIdentity(
    { dataDir: mkdtempSync(path.join(tmpdir(), 'stall-tls-')), writeFile: writePrivateFile },
    silentLogger,
  );
  const app = Fastify();
  const stalled = new StalledAnswers(silentLogger, STALL_MS);
  stalled.install(app);
  app.get('/big', async (_req, reply) => reply.type('text/plain').send('a'.repeat(SIZE)));
  await app.ready();
  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => app.routing(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(async () => {
    server.closeAllConnections();
    server.close();
    await app.close();
  });
  const { port } = server.address() as AddressInfo;

  const started = Date.now();
  const got = await new Promise<number>((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', rejectUnauthorized: false });
    let bytes = 0;
    socket.on('secureConnect', () => socket.write('GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    socket.on('data', (d: Buffer) => {
      bytes += d.length;
      socket.pause();
      setTimeout(() => socket.resume(), Math.ceil((d.length / RATE) * 1000));
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(bytes));
  });
  t.ok(
    got > SIZE,
    `the client got the whole answer (${got} of more than ${SIZE} bytes, in ${Date.now() - started} ms)`,
  );
  t.equal(stalled.cut, 0, 'no answer was counted as stalled');

  // One that stops reading after the first bytes is still cut.
  const cutAfter = await new Promise<number>((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', rejectUnauthorized: false });
    const begun = Date.now();
    socket.on('secureConnect', () => socket.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.once('data', () => socket.pause());
    socket.on('error', () => undefined);
    const check = setInterval(() => {
      if (stalled.cut === 1 || Date.now() - begun > 10 * STALL_MS) {
        clearInterval(check);
        socket.destroy();
        resolve(Date.now() - begun);
      }
    }, 50);
  });
  t.equal(stalled.cut, 1, `a client that stopped reading was cut (after ${cutAfter} ms)`);
});
