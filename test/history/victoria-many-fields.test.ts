// VictoriaMetrics reads a form of at most 10 MiB (Go's limit): a CSV export of many fields with
// long names (1000 fields of 2000 characters beyond ASCII, which the timeseries API accepts) put
// every selector into one request, VictoriaMetrics answered 400 "missing match[] arg", and the
// export was a 503 "history database unavailable" while the database was fine. The selectors now
// go in requests of at most VICTORIA_FORM_BYTES each.
// tags: slow (a real VictoriaMetrics)
import t from 'tap';
import { silentLogger } from '../../src/log.js';
import { VictoriaStore } from '../../src/history/victoria-store.js';
import { startVictoria } from '../helpers/victoria.js';

t.test('an export of 1000 fields with 2000-character names', async (t) => {
  const vm = await startVictoria();
  t.teardown(() => vm.stop());
  const store = new VictoriaStore({ url: vm.url, log: silentLogger });
  t.teardown(() => store.close());
  const fields = Array.from({ length: 1000 }, (_, i) => `${i} ${'é'.repeat(1990)}`);
  const now = Date.now();
  const stored = [0, 500, 999];
  store.write(
    'k',
    stored.map((i) => [fields[i]!, i] as const),
    now,
  );
  await store.flush();
  const names = fields.map((f) => `k/${f}`);
  const raw = await store.raw(names, now - 60_000, now + 1000);
  t.same(
    raw.map((r) => [r.field.slice(0, 5), r.v]),
    stored.map((i) => [names[i]!.slice(0, 5), [i]]),
    'every stored field, in request order',
  );
  const slices: number[] = [];
  for await (const slice of store.rawSlices(names, now - 60_000, now + 1000)) slices.push(...slice.flatMap((r) => r.v));
  t.same(slices, stored, 'and in the CSV slices');
});
