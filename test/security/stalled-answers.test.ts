// A client that asks for a large answer and stops reading it must not hold it in the service's
// memory for ever. A history CSV of some megabytes is made from points held in memory while it
// streams; with the client not reading, the stream waits for it, and nothing ended the wait: the
// connection, the points and the generator stayed until the client went away. An answer the
// client takes nothing of for ANSWER_STALL_MS is cut and counted; a client that reads gets all.
// tags: slow (waits out the stall limit)
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { ANSWER_STALL_MS } from '../../src/api/timeouts.js';
import { startApp, type RunningApp } from '../helpers/app.js';
import { limit } from '../helpers/limits.js';
import { sleep } from '../mqtt/fixtures.js';

const KEY = 'stall';
const FIELDS = 40;
const POINTS = 12_000;

/** Points enough for a CSV of some 8 MB, more than the kernel's socket buffers take. */
async function bigHistory(rt: RunningApp): Promise<{ body: string; start: number }> {
  const store = rt.app.history!.store;
  const start = Date.now() - 3_600_000;
  for (let i = 0; i < POINTS; i++) {
    const fields = Array.from({ length: FIELDS }, (_, f) => [`f${f}`, Math.PI * (i + f)] as const);
    store.write(KEY, fields, start + i * 100);
    if (i % 1000 === 999) await store.flush();
  }
  await store.flush();
  const fields = Array.from({ length: FIELDS }, (_, f) => `${KEY}/f${f}`);
  return { body: JSON.stringify({ fields, precision: 'ISO8601', duration: '2h' }), start };
}

const stalls = (rt: RunningApp) => (rt.app.status() as any).http?.stalledAnswers;

t.test('a CSV download that stops being read is cut; one that is read arrives whole', async (t) => {
  const rt = await startApp();
  t.teardown(() => rt.close());
  const { body } = await bigHistory(rt);
  const { port } = new URL(rt.base);

  const reader = await fetch(`http://127.0.0.1:${port}/history/timeseries/csv`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const text = await reader.text();
  const lines = text.trimEnd().split('\n');
  t.equal(lines.length, POINTS + 1, `a reading client gets every line (${(text.length / 1e6).toFixed(1)} MB)`);

  const server = (rt.app.http as unknown as { server: { getConnections(cb: (e: unknown, n: number) => void): void } })
    .server;
  const connections = () => new Promise<number>((r) => server.getConnections((_e, n) => r(n)));
  const before = await connections();
  const stalled: Socket = connect(Number(port), '127.0.0.1');
  stalled.on('error', () => undefined);
  t.teardown(() => stalled.destroy());
  stalled.write(
    `POST /history/timeseries/csv HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  // Take the first bytes (the answer has begun), then stop reading. A paused socket sees no close,
  // so the server's side is watched.
  await new Promise((resolve) => stalled.once('data', resolve));
  stalled.pause();
  t.equal(await connections(), before + 1, 'the stalled client is connected');
  // The cut comes some one and a half limits after the last byte taken. Looking once per limit,
  // it came after three (the first write's move and Node's own pass for a write under way each
  // let a whole limit by), a hair from the old deadline of three.
  const paused = performance.now();
  const deadline = paused + limit(2.5 * ANSWER_STALL_MS);
  while ((await connections()) > before && performance.now() < deadline) await sleep(500);
  const after = ((performance.now() - paused) / 1000).toFixed(1);
  t.equal(
    await connections(),
    before,
    `the connection of the client that stopped reading is closed (after ${after} s, limit ${ANSWER_STALL_MS / 1000} s)`,
  );
  t.equal(stalls(rt), 1, 'counted in system/status');

  const again = await fetch(`http://127.0.0.1:${port}/history/timeseries/csv`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  t.equal((await again.text()).trimEnd().split('\n').length, POINTS + 1, 'the next reading client gets it whole');
});
