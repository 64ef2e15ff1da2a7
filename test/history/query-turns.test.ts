// Queries of the embedded store give up the event loop between slices (query-slices.test.ts), so
// many sent at once all decoded at the same time, each holding its points until it answered: a
// client firing a few dozen month-long queries together had the service hold all of them in a
// Pi's memory. A few now decode at once (QUERY_TURNS), the others wait in a line of bounded length,
// and one beyond it is refused with a message that says why (a 503 at the API).
import t from 'tap';
import { QUERY_TURNS } from '../../src/history/limits.js';
import { filledStore } from './filled-store.js';

const { store, start, end, fields, timestamps } = filledStore(t, {
  fields: 20,
  stepMs: 10_000,
  days: 1,
  value: (i, f) => f + (i % 100) / 16,
});

/** Counts the queries decoding stored records at once: each iterates them from its first record to its last. */
function decoding() {
  const files = (store as unknown as { files: { snapshot: () => (...a: unknown[]) => Iterable<unknown> } }).files;
  const original = files.snapshot.bind(files);
  const seen = { now: 0, most: 0 };
  files.snapshot = () => {
    const stored = original();
    return (...args: unknown[]) => ({
      *[Symbol.iterator]() {
        seen.now++;
        seen.most = Math.max(seen.most, seen.now);
        try {
          yield* stored(...args);
        } finally {
          seen.now--;
        }
      },
    });
  };
  return seen;
}

t.test(
  'many large queries at once: a few decode at a time, the line is bounded, the rest are refused by name',
  async (t) => {
    const seen = decoding();
    const sent = QUERY_TURNS.running + QUERY_TURNS.waiting + 6;
    const answers = await Promise.allSettled(
      Array.from({ length: sent }, (_, i) =>
        i % 2 ? store.raw(fields, start, end) : store.ranges(fields, start, end, 10),
      ),
    );
    const refused = answers.filter((a) => a.status === 'rejected');
    const answered = answers.filter((a) => a.status === 'fulfilled');
    t.ok(seen.most >= 1, 'the counter saw the queries');
    t.ok(seen.most <= QUERY_TURNS.running, `at most ${QUERY_TURNS.running} decoded at once (${seen.most})`);
    t.equal(answered.length, QUERY_TURNS.running + QUERY_TURNS.waiting, 'those running and those in line answered');
    t.equal(refused.length, 6, 'those beyond the line were refused');
    t.match(
      String((refused[0] as PromiseRejectedResult).reason),
      /too many history queries at once \(\d+ running, \d+ waiting\)/,
      'and told why',
    );
    const raw = (answered.find((a, i) => i % 2 === 1 && a.status === 'fulfilled') as PromiseFulfilledResult<unknown>)
      .value as Array<{ t: number[] }>;
    t.equal(raw[0]!.t.length, timestamps, 'an answered raw query has every point');
  },
);

t.test('a streamed export holds a turn only while it reads a slice', async (t) => {
  // Were a turn held from slice to slice, the graph below would wait for ever behind the exports.
  // As many exports as there are turns, each with a client that reads no further for now.
  const exports = Array.from({ length: QUERY_TURNS.running }, () =>
    store.rawSlices(fields, start, end)[Symbol.asyncIterator](),
  );
  const firsts = await Promise.all(exports.map((e) => e.next()));
  t.ok(
    firsts.every((f) => !f.done),
    'the exports have begun',
  );
  const [slices, ...others] = exports;
  const first = firsts[0]!;
  const graph = await store.ranges(fields.slice(0, 1), start, end, 600);
  t.equal(graph.length, 1, 'a graph answered while the exports wait for their clients');
  for (const o of others) await o.return?.();
  let rest = 0;
  for (let s = await slices!.next(); !s.done; s = await slices!.next()) rest += s.value[0]!.t.length;
  t.ok(
    rest + (first.value as Array<{ t: number[] }>)[0]!.t.length >= timestamps - 1,
    'and the export then read to its end',
  );
});

t.test('a query whose client went away while it waited in line does not decode for nobody', async (t) => {
  const seen = decoding();
  let started = 0;
  const files = (store as unknown as { files: { snapshot: () => (...a: unknown[]) => Iterable<unknown> } }).files;
  const counted = files.snapshot.bind(files);
  files.snapshot = () => {
    const stored = counted();
    return (...args: unknown[]) => {
      started++;
      return stored(...args);
    };
  };
  await store.ranges(fields, start, end, 10);
  const perQuery = started;
  await store.ranges(fields.slice(0, 1), start, end, 600);
  const perGraph = started - perQuery;
  started = 0;
  // Both turns taken, then a line of queries whose clients go away (a dashboard tab closed, a
  // graph's time range changed) before their turn comes; one more client that stays.
  const running = Array.from({ length: QUERY_TURNS.running }, () => store.ranges(fields, start, end, 10));
  const gone = new AbortController();
  const abandoned = Array.from({ length: 10 }, () => store.ranges(fields, start, end, 10, gone.signal));
  const stays = store.ranges(fields.slice(0, 1), start, end, 600);
  gone.abort(new Error('the client went away'));
  const answers = await Promise.allSettled([...running, ...abandoned, stays]);
  t.ok(
    answers.slice(QUERY_TURNS.running, -1).every((a) => a.status === 'rejected'),
    'the abandoned queries end without an answer',
  );
  t.equal(answers.at(-1)!.status, 'fulfilled', 'the client that stayed is answered');
  t.ok(seen.most <= QUERY_TURNS.running);
  t.ok(
    started <= QUERY_TURNS.running * perQuery + perGraph,
    `only the running queries and the one that stayed decoded (${started} reads of the stored records)`,
  );
});
