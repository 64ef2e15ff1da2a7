// A large query of the embedded store (many fields over days, a CSV export) decoded every record
// in one go: the event loop stood still for the whole query, and the control loop's ticks (a PWM
// switching a heater) came late by as much. A query now decodes in slices with a turn of the
// event loop between them; a small one still answers in one go.
//
// No time limits here: the longest wait of a timer during the query is compared with the
// query's own duration, on whatever machine runs it (before, it was all of it; now it is a few
// slices, or however long another process kept this one off the CPU).
import t from 'tap';
import { QUERY_SLICE_MS } from '../../src/history/limits.js';
import { filledStore } from './filled-store.js';

const FIELDS = 50;

/** Run `query` while a 1 ms timer runs: the timer's runs during it and the longest gap between them. */
async function watched<T>(query: () => Promise<T>): Promise<{ result: T; ms: number; runs: number; maxGap: number }> {
  let last = performance.now();
  let runs = 0;
  let maxGap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    runs++;
  }, 1);
  // Let the timer find its pace before the query begins.
  await new Promise((r) => setTimeout(r, 20));
  const began = performance.now();
  last = began;
  runs = 0;
  maxGap = 0;
  const result = await query();
  const ms = performance.now() - began;
  maxGap = Math.max(maxGap, performance.now() - last);
  clearInterval(timer);
  return { result, ms, runs, maxGap };
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
    w.maxGap < w.ms / 2,
    `the timer waited at most ${w.maxGap.toFixed(0)} ms, a small part of the query's ${w.ms.toFixed(0)} ms`,
  );
});

t.test('a graph of two days at a fine step (raw points) lets timers run too', async (t) => {
  const { store, start, end, fields } = data;
  const w = await watched(() => store.ranges(fields, start, end, 10));
  t.equal(w.result.length, FIELDS, 'every field answered');
  t.ok(w.runs >= 3, `the timer ran during the query (${w.runs} times in ${w.ms.toFixed(0)} ms)`);
  t.ok(w.maxGap < w.ms / 2, `the timer waited at most ${w.maxGap.toFixed(0)} ms of the query's ${w.ms.toFixed(0)} ms`);
});

t.test('a small query answers without giving up its turn', async (t) => {
  const { store, end, fields } = data;
  let turned = false;
  setImmediate(() => (turned = true));
  const raw = await store.raw(fields.slice(0, 2), end - 10 * 60_000, end);
  t.equal(raw[0]!.t.length, 121, 'ten minutes of points, both ends included');
  t.notOk(turned, 'answered before the event loop turned');
});
