// Slow clients are timed out (issue 15, item 5): a body trickling in one byte every 2 s, or
// headers one byte a second, are answered 408 and closed within node's check interval (5 s)
// after the request (20 s) or headers (10 s) deadline, on the HTTP port and on the TLS gateway. Real sockets, real servers.
// tags: slow (waits out the server's request timeouts)
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import t from 'tap';
import { CHECK_INTERVAL_MS, HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../src/api/timeouts.js';
import { startApp } from '../helpers/app.js';
import { limit } from '../helpers/limits.js';
import { freePort } from '../helpers/mosquitto.js';

const LIMIT_MS = limit(60_000);

/** Send `head` then one byte of `trickle` every `everyMs`; resolve when the server closes the socket. */
function trickle(
  socket: Socket,
  head: string,
  trickle: string,
  everyMs: number,
): Promise<{ ms: number; answer: string }> {
  const started = performance.now();
  let answer = '';
  let i = 0;
  socket.on('data', (c: Buffer) => (answer += c.toString()));
  socket.on('error', () => undefined);
  socket.write(head);
  const timer = setInterval(() => {
    if (i < trickle.length && !socket.destroyed) socket.write(trickle[i++]!);
  }, everyMs);
  return new Promise((resolve, reject) => {
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after ${LIMIT_MS} ms`));
    }, LIMIT_MS);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ ms: performance.now() - started, answer });
    });
  });
}

t.test('slow bodies and slow headers are closed on both ports', async (t) => {
  const rt = await startApp({ httpsPort: String(await freePort()) });
  t.teardown(() => rt.close());
  const httpPort = Number(new URL(rt.base).port);
  const httpsPort = rt.app.gateway.port!;
  const body = `{"id": "Slow", "type": "TempSensorMock", "data": {}${' '.repeat(200)}}`;
  const bodyHead = `POST /edge-one/blocks/create HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  const headerHead = 'POST /edge-one/blocks/create HTTP/1.1\r\nHost: 127.0.0.1\r\n';
  const headerTrickle = 'Content-Type: application/json\r\nX-Slow: ' + 'a'.repeat(100);
  const open = {
    http: () => netConnect({ host: '127.0.0.1', port: httpPort }),
    https: () => tlsConnect({ host: '127.0.0.1', port: httpsPort, rejectUnauthorized: false }),
  };
  const runs = await Promise.all(
    Object.entries(open).flatMap(([port, sock]) => [
      trickle(sock(), bodyHead, body, 2000).then((r) => ({
        ...r,
        what: `slow body on ${port}`,
        deadline: REQUEST_TIMEOUT_MS,
      })),
      trickle(sock(), headerHead, headerTrickle, 1000).then((r) => ({
        ...r,
        what: `slow headers on ${port}`,
        deadline: HEADERS_TIMEOUT_MS,
      })),
    ]),
  );
  for (const r of runs) {
    t.ok(
      r.ms >= r.deadline - 1000 && r.ms <= r.deadline + CHECK_INTERVAL_MS + limit(2000),
      `${r.what}: closed after ${(r.ms / 1000).toFixed(1)} s (deadline ${r.deadline / 1000} s)`,
    );
    t.match(r.answer, /^HTTP\/1\.1 408 /, `${r.what}: answered 408 Request Timeout`);
  }
  const list = await rt.post('blocks/all/read');
  t.notOk(
    (list.body as Array<{ id: string }>).some((b) => b.id === 'Slow'),
    'the slow request created nothing',
  );
});
