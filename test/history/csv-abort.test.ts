// A CSV export streams the store's raw slices as the client reads (csv-stream.test.ts). When the
// client closed its connection mid-export, the route's stream was destroyed but the store's
// iteration was never ended: the CSV generator read the slices by hand and did not close them,
// so the store's generator (its snapshot of the record files and the points it held) stayed
// suspended until garbage collected, its `finally` never run. The export now ends the iteration
// when the client goes away, and a slice still waiting for its turn leaves the line.
//
// A real HTTP client asks for a large export, reads a few bytes and destroys its socket: the
// store's iteration (a spy around rawSlices) must end at once, hand out no more slices, and hold
// no turn.
import http from 'node:http';
import t from 'tap';
import { QUERY_TURNS } from '../../src/history/limits.js';
import type { RawSeries } from '../../src/history/store.js';
import { startApp } from '../helpers/app.js';
import { sleep } from '../mqtt/fixtures.js';
import { csvRequest } from './csv-request.js';

const KEY = 'export';
const FIELDS = 40;
const POINTS = 30_000;
const FLUSH_EVERY = 1000;

t.test('a CSV export whose client goes away mid-stream ends the store iteration at once', async (t) => {
  const rt = await startApp();
  t.teardown(() => rt.close());
  const store = rt.app.history!.store;
  t.equal(store.kind, 'embedded');
  const start = Date.now() - 3_600_000;
  for (let i = 0; i < POINTS; i++) {
    store.write(
      KEY,
      Array.from({ length: FIELDS }, (_, f) => [`f${f}`, Math.PI * (i + f)] as const),
      start + i * 100,
    );
    if (i % FLUSH_EVERY === FLUSH_EVERY - 1) await store.flush();
  }
  await store.flush();
  const fields = Array.from({ length: FIELDS }, (_, f) => `${KEY}/f${f}`);

  // The slices the store hands out, and whether its iteration ended.
  let slices = 0;
  let points = 0;
  let ended = false;
  const spied = store as unknown as Record<string, (...a: unknown[]) => AsyncIterable<RawSeries[]>>;
  const real = spied.rawSlices!.bind(store);
  spied.rawSlices = (...a: unknown[]) =>
    (async function* () {
      try {
        for await (const s of real(...a)) {
          slices++;
          points += s.reduce((n, r) => n + r.t.length, 0);
          yield s;
        }
      } finally {
        ended = true;
      }
    })();
  const turns = (store as unknown as { turns: { held: number; line: unknown[] } }).turns;

  const req = csvRequest(rt.base);
  const res = await new Promise<http.IncomingMessage>((resolve) => {
    req.once('response', resolve);
    req.end(JSON.stringify({ fields, precision: 'ms', duration: '2h' }));
  });
  t.equal(res.statusCode, 200);
  await new Promise<void>((resolve) => res.once('data', () => resolve()));
  res.pause();
  const atClose = slices;
  req.destroy();
  for (let i = 0; i < 20 && !ended; i++) await sleep(50);
  t.ok(ended, `the store's iteration ended once the client went away (${slices} slices handed out)`);
  const afterEnd = slices;
  await sleep(500);
  t.equal(slices, afterEnd, 'no slice handed out after it ended');
  t.ok(slices - atClose <= 2, `at most the slices under way when the client went away (${slices - atClose})`);
  t.ok(points < POINTS * FIELDS, `the export did not run to its end (${points} of ${POINTS * FIELDS} points)`);
  t.same({ held: turns.held, waiting: turns.line.length }, { held: 0, waiting: 0 }, 'no turn held or waited for');
});

t.test('a CSV export whose client goes away while it waits for a turn leaves the line', async (t) => {
  const rt = await startApp();
  t.teardown(() => rt.close());
  const store = rt.app.history!.store;
  const now = Date.now();
  for (let i = 0; i < 10; i++) store.write(KEY, [['f0', i]], now - 60_000 + i * 1000);
  await store.flush();
  // Every turn held (as by other clients' long queries): the export's first slice waits in line.
  const turns = (
    store as unknown as { turns: { held: number; line: unknown[]; take(): Promise<void>; release(): void } }
  ).turns;
  for (let i = 0; i < QUERY_TURNS.running; i++) await turns.take();
  t.teardown(() => {
    for (let i = 0; i < QUERY_TURNS.running; i++) turns.release();
  });
  const req = csvRequest(rt.base);
  req.end(JSON.stringify({ fields: [`${KEY}/f0`], precision: 'ms', duration: '2h' }));
  for (let i = 0; i < 40 && turns.line.length === 0; i++) await sleep(50);
  t.equal(turns.line.length, 1, `the export waits in line (${turns.held} turns held)`);
  req.destroy();
  for (let i = 0; i < 20 && turns.line.length > 0; i++) await sleep(50);
  t.equal(turns.line.length, 0, 'it left the line once its client went away');
});
