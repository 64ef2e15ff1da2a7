// A query whose client went away (the REST answer closed unsent, the CSV export's socket closed)
// still waited for VictoriaMetrics' answer, up to the 10 s time limit, holding one of the query
// turns (VICTORIA_QUERY_REQUESTS) and a connection meanwhile, and its requests still waiting in
// line for a turn went on after it: the store took the client's signal and dropped it. The signal
// now ends the requests under way (combined with the time limit) and those waiting in line.
//
// A real VictoriaMetrics behind a proxy that holds its answers back DELAY_MS (less than the time
// limit, so the query would be answered): the client goes away; the turns and the connections to
// VictoriaMetrics must be given back at once.
// tags: slow (a real VictoriaMetrics)
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import pino from 'pino';
import t, { type Test } from 'tap';
import type { HistoryStore } from '../../src/history/store.js';
import { VictoriaStore } from '../../src/history/victoria-store.js';
import { startApp } from '../helpers/app.js';
import { startVictoria } from '../helpers/victoria.js';
import { csvRequest } from './csv-request.js';

const log = pino({ level: 'silent' });
const DELAY_MS = 8000;
/** The client goes away this long after asking. */
const GONE_AFTER_MS = 300;
/** "At once": the turns are back this long after the client went away at most. */
const AT_ONCE_MS = 1000;
const FIELDS = 10;

/**
 * A TCP proxy to `target` that holds every byte of the answers back `delayMs`. It counts the
 * connections that carried a request and are still open (no answer gets through in these tests):
 * an idle one (fetch's pool may open one again after an abort) asks VictoriaMetrics nothing.
 */
async function slowProxy(
  target: number,
  delayMs: number,
): Promise<{ port: number; asking(): number; close(): Promise<void> }> {
  const open = new Set<Socket>();
  const asking = new Set<Socket>();
  const server: Server = createServer((socket) => {
    open.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      open.delete(socket);
      asking.delete(socket);
    });
    socket.once('data', () => asking.add(socket));
    const upstream = connect(target, '127.0.0.1');
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
    upstream.on('data', (d: Buffer) => setTimeout(() => socket.destroyed || socket.write(d), delayMs).unref());
    socket.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    asking: () => asking.size,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Turns held and requests waiting for one (the store's Turns). */
function turnsOf(store: unknown): () => { held: number; waiting: number } {
  const turns = (store as { turns: { held: number; line: unknown[] } }).turns;
  return () => ({ held: turns.held, waiting: turns.line.length });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function withVictoria(t: Test) {
  const vm = await startVictoria();
  t.teardown(() => vm.stop());
  const writer = new VictoriaStore({ url: vm.url, log });
  const now = Date.now();
  for (let s = 0; s < 6; s++)
    writer.write(
      'k',
      Array.from({ length: FIELDS }, (_, i) => [`f${i}`, i + s] as const),
      now - 60_000 + s * 10_000,
    );
  await writer.flush();
  const proxy = await slowProxy(vm.port, DELAY_MS);
  t.teardown(proxy.close);
  return { vm, proxy, now, fields: Array.from({ length: FIELDS }, (_, i) => `k/f${i}`) };
}

for (const query of ['ranges', 'raw'] as const)
  t.test(`a ${query} query whose client went away gives its turns back at once`, async (t) => {
    const { proxy, now, fields } = await withVictoria(t);
    // The default time limit (10 s): longer than VictoriaMetrics takes to answer here.
    const store: HistoryStore = new VictoriaStore({ url: `http://127.0.0.1:${proxy.port}`, log });
    const turns = turnsOf(store);
    const client = new AbortController();
    const asked =
      query === 'ranges'
        ? store.ranges(fields, now - 120_000, now + 1000, 10, client.signal)
        : store.raw(fields, now - 120_000, now + 1000, client.signal);
    const settled = asked.then(
      () => 'answered',
      (e: Error) => e.message,
    );
    await sleep(GONE_AFTER_MS);
    t.ok(turns().held > 0, `the query holds turns while VictoriaMetrics has not answered (${JSON.stringify(turns())})`);
    if (query === 'ranges') t.ok(turns().waiting > 0, `some of its ${FIELDS} requests wait in line`);
    const goneAt = Date.now();
    client.abort(new Error('the client went away'));
    const outcome = await Promise.race([settled, sleep(AT_ONCE_MS).then(() => 'still waiting')]);
    t.equal(outcome, 'the client went away', 'the query ends at once with the reason of its abort');
    t.same(turns(), { held: 0, waiting: 0 }, `its turns are given back at once (${Date.now() - goneAt} ms after)`);
    for (let i = 0; i < 20 && proxy.asking() > 0; i++) await sleep(50);
    t.equal(proxy.asking(), 0, 'its connections to VictoriaMetrics that carried a request are closed');
  });

t.test('a CSV export whose client went away while VictoriaMetrics had not answered gives its turn back', async (t) => {
  const { proxy, now, fields } = await withVictoria(t);
  const rt = await startApp({ historyUrl: `http://127.0.0.1:${proxy.port}` });
  t.teardown(() => rt.close());
  const store = rt.app.history!.store;
  t.equal(store.kind, 'victoria');
  const turns = turnsOf(store);
  const req = csvRequest(rt.base);
  req.end(JSON.stringify({ fields, precision: 'ms', start: now - 120_000, end: now + 1000 }));
  for (let i = 0; i < 40 && turns().held === 0; i++) await sleep(50);
  t.equal(turns().held, 1, 'the export holds a turn while VictoriaMetrics has not answered');
  const goneAt = Date.now();
  req.destroy();
  for (let i = 0; i < AT_ONCE_MS / 50 && turns().held > 0; i++) await sleep(50);
  t.same(turns(), { held: 0, waiting: 0 }, `its turn is given back at once (${Date.now() - goneAt} ms after)`);
  for (let i = 0; i < 20 && proxy.asking() > 0; i++) await sleep(50);
  t.equal(proxy.asking(), 0, 'its connection to VictoriaMetrics that carried the request is closed');
});
