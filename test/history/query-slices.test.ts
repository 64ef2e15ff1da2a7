// A large query of the embedded store (many fields over days, a CSV export) decoded every record
// in one go: the event loop stood still for the whole query, and the control loop's ticks (a PWM
// switching a heater) came late by as much. A query now decodes in slices with a turn of the
// event loop between them; a small one still answers in one go.
//
// No time limits here: what is compared is the query's own duration, on whatever machine runs it.
// Before, a 1 ms timer did not run at all during the query. Now it runs in most windows of a few
// slices' length: not in every one, since a garbage collection of the decoded points, or another
// process keeping this one off the CPU, stops timers for a while whatever the store does.
// tags: alone (the event loop's gaps measured on the real clock)
import t from 'tap';
import { QUERY_SLICE_MS } from '../../src/history/limits.js';
import { filledStore } from './filled-store.js';

const FIELDS = 50;
/** A window of a few slices: the timer should run in most of them. */
const WINDOW_MS = 5 * QUERY_SLICE_MS;

/** Run `query` while a 1 ms timer runs: its runs during the query, and the share of windows it ran in. */
async function watched<T>(query: () => Promise<T>): Promise<{ result: T; ms: number; runs: number; share: number }> {
  const ran: number[] = [];
  const timer = setInterval(() => ran.push(performance.now()), 1);
  // Let the timer find its pace before the query begins.
  await new Promise((r) => setTimeout(r, 20));
  const began = performance.now();
  ran.length = 0;
  const result = await query();
  const ms = performance.now() - began;
  clearInterval(timer);
  const windows = Math.max(1, Math.floor(ms / WINDOW_MS));
  const hit = new Set(ran.map((at) => Math.floor((at - began) / WINDOW_MS)).filter((w) => w < windows));
  return { result, ms, runs: ran.length, share: hit.size / windows };
}

// 50 fields every 5 s over two days (all raw points).
const data = filledStore(t, {
  fields: FIELDS,
  stepMs: 5000,
  days: 2,
  value: (i, f) => Math.round(Math.sin(i / 100 + f) * 1600) / 16,
});

t.test('a raw query of 50 fields over two days lets timers run while it decodes', async (t) => {
  const { store, start, end, fields, timestamps } = data;
  const w = await watched(() => store.raw(fields, start, end));
  t.equal(w.result.length, FIELDS, 'every field answered');
  t.equal(w.result[0]!.t.length, timestamps, 'with every point');
  t.ok(w.ms > 5 * QUERY_SLICE_MS, `the query is long enough to tell (${w.ms.toFixed(0)} ms)`);
  t.ok(w.runs >= 3, `the timer ran during the query (${w.runs} times in ${w.ms.toFixed(0)} ms)`);
  t.ok(
    w.share >= 0.5,
    `the timer ran in ${(w.share * 100).toFixed(0)} % of the query's ${WINDOW_MS} ms windows (at least half)`,
  );
});

t.test('a graph of two days at a fine step (raw points) lets timers run too', async (t) => {
  const { store, start, end, fields } = data;
  const w = await watched(() => store.ranges(fields, start, end, 10));
  t.equal(w.result.length, FIELDS, 'every field answered');
  t.ok(w.runs >= 3, `the timer ran during the query (${w.runs} times in ${w.ms.toFixed(0)} ms)`);
  t.ok(w.share >= 0.5, `the timer ran in ${(w.share * 100).toFixed(0)} % of the query's ${WINDOW_MS} ms windows`);
});

t.test('a small query answers without giving up its turn', async (t) => {
  const { store, end, fields } = data;
  let turned = false;
  setImmediate(() => (turned = true));
  const raw = await store.raw(fields.slice(0, 2), end - 10 * 60_000, end);
  t.equal(raw[0]!.t.length, 121, 'ten minutes of points, both ends included');
  t.notOk(turned, 'answered before the event loop turned');
});
