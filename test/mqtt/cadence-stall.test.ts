// The emission cadence after a stall (the process busy, its timer fired late): one late run, then
// the next slot still ahead. It ran the missed slot and then, at once, the slot in progress, and
// the slot after followed within the interval: three history messages within one interval after
// every stall, which is what the reconnect test calls a replayed backlog (it failed so under load).
import t from 'tap';
import { Cadence } from '../../src/mqtt/cadence.js';
import { limit } from '../helpers/limits.js';

const INTERVAL = 50;

t.test('after a stall: one late run, then the next slot; never three runs within an interval', async (t) => {
  const runs: { at: number; due: number }[] = [];
  const cadence = new Cadence(INTERVAL, (due) => runs.push({ at: performance.now(), due }));
  cadence.start();
  t.teardown(() => cadence.stop());
  for (const stallMs of [2.5 * INTERVAL, 1.6 * INTERVAL, 4.3 * INTERVAL]) {
    await new Promise((r) => setTimeout(r, INTERVAL / 3));
    const from = runs.length;
    const stalledAt = performance.now();
    while (performance.now() - stalledAt < stallMs); // busy: the cadence's timer, due meanwhile, waits
    const deadline = performance.now() + limit(5000);
    while (runs.length < from + 3 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const [a, b, c] = runs.slice(from, from + 3);
    if (!a || !b || !c) throw new Error(`only ${runs.length - from} runs after a ${stallMs} ms stall`);
    t.ok(
      a.at - a.due >= stallMs - INTERVAL - 1,
      `a ${stallMs} ms stall: the first run after it reports how late it is (${(a.at - a.due).toFixed(0)} ms)`,
    );
    t.ok(
      c.at - a.at >= INTERVAL - 2,
      `no burst: the three runs after it span ${(c.at - a.at).toFixed(0)} ms (${(b.at - a.at).toFixed(0)} ms to the second), at least an interval`,
    );
  }
});
