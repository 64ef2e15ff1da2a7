// The slices of a store's rawSlices joined per field, in the order they came: what one raw query
// over the same span should answer.
import type { RawSeries } from '../../src/history/store.js';

export function joinSlices(slices: RawSeries[][]): Map<string, { t: number[]; v: number[] }> {
  const joined = new Map<string, { t: number[]; v: number[] }>();
  for (const slice of slices)
    for (const s of slice) {
      const j = joined.get(s.field) ?? joined.set(s.field, { t: [], v: [] }).get(s.field)!;
      j.t.push(...s.t);
      j.v.push(...s.v);
    }
  return joined;
}
