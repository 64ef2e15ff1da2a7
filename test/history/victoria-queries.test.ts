// A ranges query asks VictoriaMetrics once per field, and a query may name 1000 fields. Each
// request had a connection of its own, all at once: one query opened as many sockets as it had
// fields (file descriptors the service needs for its files and clients), and a VictoriaMetrics
// that takes connections and never answers held them all for the time limit. Requests now take
// turns (VICTORIA_QUERY_REQUESTS at once), and a query as a whole ends at the time limit.
// tags: slow (a real VictoriaMetrics)
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import { VICTORIA_QUERY_REQUESTS, VictoriaStore } from '../../src/history/victoria-store.js';
import { startVictoria } from '../helpers/victoria.js';
import { limit } from '../helpers/limits.js';

const log = pino({ level: 'silent' });
const FIELDS = 200;

/** Counts the connections open through it at once; `target` null: takes them and never answers. */
async function counting(target: number | null): Promise<{ port: number; peak: () => number; close(): Promise<void> }> {
  const open = new Set<Socket>();
  let peak = 0;
  const server: Server = createServer((socket) => {
    open.add(socket);
    peak = Math.max(peak, open.size);
    socket.on('error', () => undefined);
    socket.on('close', () => open.delete(socket));
    if (target === null) return void socket.resume();
    const upstream = connect(target, '127.0.0.1');
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    peak: () => peak,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const names = (key: string) => Array.from({ length: FIELDS }, (_, i) => `${key}/f${i}`);

t.test(
  'VictoriaMetrics that takes connections and never answers: few sockets, the query ends at the limit',
  async (t) => {
    const hung = await counting(null);
    t.teardown(hung.close);
    const store = new VictoriaStore({ url: `http://127.0.0.1:${hung.port}`, log, timeoutMs: 1000 });
    const now = Date.now();
    await t.rejects(
      store.ranges(names('hung'), now - 3_600_000, now, 10),
      /did not answer within 1000 ms/,
      'the query fails, naming the time limit',
    );
    t.ok(
      hung.peak() <= VICTORIA_QUERY_REQUESTS,
      `${hung.peak()} connections at once for a query of ${FIELDS} fields (at most ${VICTORIA_QUERY_REQUESTS})`,
    );
  },
);

t.test('a real VictoriaMetrics: every field answered, in order, through a few connections', async (t) => {
  const vm = await startVictoria();
  t.teardown(() => vm.stop());
  const proxy = await counting(vm.port);
  t.teardown(proxy.close);
  const writer = new VictoriaStore({ url: vm.url, log });
  const now = Date.now();
  for (let s = 0; s < 6; s++)
    writer.write(
      'many',
      Array.from({ length: FIELDS }, (_, i) => [`f${i}`, i + s] as const),
      now - 60_000 + s * 10_000,
    );
  await writer.flush();
  const store = new VictoriaStore({ url: `http://127.0.0.1:${proxy.port}`, log, timeoutMs: limit(20_000) });
  const fields = names('many');
  let ranges = await store.ranges(fields, now - 120_000, now + 1000, 10);
  for (let i = 0; ranges.length < FIELDS && i < 50; i++) {
    await new Promise((r) => setTimeout(r, 200));
    ranges = await store.ranges(fields, now - 120_000, now + 1000, 10);
  }
  t.same(
    ranges.map((r) => r.metric.__name__),
    fields,
    'every field, in request order',
  );
  t.ok(
    proxy.peak() <= VICTORIA_QUERY_REQUESTS,
    `${proxy.peak()} connections at once (at most ${VICTORIA_QUERY_REQUESTS})`,
  );
});
