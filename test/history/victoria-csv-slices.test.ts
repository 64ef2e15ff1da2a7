// The CSV export of VictoriaMetrics asked for every point of the query in one answer, held the
// text, every parsed line and every [time, value] pair in memory at once and parsed them in one
// go: an export of a month of 20 fields at 5 s (10 million points) took the service from 165 MB
// to 2.2 GB and held up the control loop's ticks (and every other request) for 8 s. The export
// now asks for a window of time at a time, sized to about RAW_SLICE_POINTS points, and cuts off
// (and asks again, shorter) a window that turns out denser than that.
// tags: slow (a real VictoriaMetrics)
import pino from 'pino';
import t from 'tap';
import { joinSlices } from '../helpers/slices.js';
import { RAW_SLICE_POINTS } from '../../src/history/limits.js';
import type { RawSeries } from '../../src/history/store.js';
import { VictoriaStore } from '../../src/history/victoria-store.js';
import { startVictoria } from '../helpers/victoria.js';

const log = pino({ level: 'silent' });
const HOUR = 3_600_000;
const DENSE_FIELDS = 20;
const DENSE_TIMES = 4000;

const count = (series: RawSeries[]) => series.reduce((n, s) => n + s.t.length, 0);

t.test('a long export of VictoriaMetrics comes in slices of about RAW_SLICE_POINTS, whole and in order', async (t) => {
  const vm = await startVictoria();
  t.teardown(() => vm.stop());
  const store = new VictoriaStore({ url: vm.url, log, maxPendingLines: 100_000 });
  t.teardown(() => store.close());
  const now = Date.now();
  // A sparse field over 40 days (windows widen over it), then dense data in the last minutes.
  const sparseStart = now - 40 * 24 * HOUR;
  for (let t0 = sparseStart; t0 < now - HOUR; t0 += HOUR) store.write('sparse', [['x', t0 % 997]], t0);
  const denseStart = now - 30 * 60_000;
  for (let i = 0; i < DENSE_TIMES; i++) {
    store.write(
      'dense',
      Array.from({ length: DENSE_FIELDS }, (_, f) => [`f${f}`, Math.PI * (i + f)] as const),
      denseStart + i * 250,
    );
    if (i % 1000 === 999) await store.flush();
  }
  await store.flush();
  const fields = ['sparse/x', ...Array.from({ length: DENSE_FIELDS }, (_, f) => `dense/f${f}`)];
  const total = 40 * 24 - 1 + DENSE_TIMES * DENSE_FIELDS;

  const whole = await store.raw(fields, sparseStart - 1000, now);
  t.equal(count(whole), total, 'every point is in VictoriaMetrics');

  const slices: RawSeries[][] = [];
  for await (const s of store.rawSlices(fields, sparseStart - 1000, now)) slices.push(s);
  const largest = Math.max(...slices.map(count));
  t.ok(slices.length > 1, `${slices.length} slices`);
  t.ok(largest <= 4 * RAW_SLICE_POINTS, `the largest slice holds ${largest} points (of ${total})`);
  for (let i = 1; i < slices.length; i++) {
    const before = Math.max(...slices[i - 1]!.map((s) => s.t[s.t.length - 1]!));
    const after = Math.min(...slices[i]!.map((s) => s.t[0]!));
    if (!(before < after)) t.fail(`slice ${i} begins at ${after}, not after the end of the one before (${before})`);
  }
  // The slices together: every point once, as the one export has them.
  const joined = joinSlices(slices);
  t.same(
    fields.filter((f) => joined.has(f)),
    whole.map((s) => s.field),
    'the same fields',
  );
  for (const s of whole) t.same(joined.get(s.field), { t: s.t, v: s.v }, `${s.field}: every point, once, in order`);
});

t.test('windows of one millisecond and an end after 2262 keep to the asked span', async (t) => {
  const vm = await startVictoria();
  t.teardown(() => vm.stop());
  const store = new VictoriaStore({ url: vm.url, log, maxPendingLines: 100_000 });
  t.teardown(() => store.close());
  const t0 = Date.now() - 10 * 60_000;
  // A point a second over 10 minutes.
  for (let i = 0; i < 600; i++) store.write('k', [['v', i]], t0 + i * 1000);
  await store.flush();
  const all = async (start: number, end: number) => {
    const seen: number[] = [];
    for await (const slice of store.rawSlices(['k/v'], start, end)) for (const s of slice) seen.push(...s.t);
    return seen;
  };
  // A span of one millisecond: VictoriaMetrics answers start = end with five minutes from start.
  t.same(await all(t0 + 5000, t0 + 5000), [t0 + 5000], 'a one-millisecond span holds its one point');
  const closed = await all(t0, t0 + 60_000);
  t.equal(closed.length, 61, 'a closed span holds its points and none after its end');
  t.equal(closed.at(-1), t0 + 60_000);
  const far = await all(t0, Date.UTC(3000, 0, 1));
  t.equal(far.length, 600, 'an end in the year 3000 is read up to the last time VictoriaMetrics takes');
  const ranges = await store.ranges(['k/v'], t0, Date.UTC(3000, 0, 1), 3600 * 24 * 365);
  t.equal(ranges.length, 1, 'and ranges to the year 3000 answer');
});
