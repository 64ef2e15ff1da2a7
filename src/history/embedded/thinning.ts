// Thinning of the embedded store's unflushed batch when it overflows (the bound and what is
// reported stay with the store's write).
import type { Buffered } from './reading.js';

/**
 * Keep every other point of the oldest half of each series, in place; the series of `own` are
 * left whole when `spareOwn`. Answers the points left and the points lost, own and other.
 */
export function thinOlderHalf(
  pending: Map<number, Buffered>,
  own: Set<number>,
  spareOwn: boolean,
): { count: number; lost: { own: number; other: number } } {
  let count = 0;
  const lost = { own: 0, other: 0 };
  for (const [id, b] of pending) {
    const isOwn = own.has(id);
    if (isOwn && spareOwn) {
      count += b.t.length;
      continue;
    }
    const half = Math.floor(b.t.length / 2);
    const keep = (_: number, i: number) => i >= half || i % 2 === 0;
    const had = b.t.length;
    b.t = b.t.filter(keep);
    b.v = b.v.filter(keep);
    count += b.t.length;
    lost[isOwn ? 'own' : 'other'] += had - b.t.length;
  }
  return { count, lost };
}
