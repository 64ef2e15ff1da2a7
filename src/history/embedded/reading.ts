// The points a query of the embedded store reads: a tier's stored records, its completed buckets
// not written yet, and for raw points the unflushed batch. A coarse tier answers up to its
// completed buckets, raw points after.
import { stepAverages, type Range, type RawSeries } from '../store.js';
import type { Series } from './chunk-codec.js';
import { tierForQuery, type Tier } from './tiers.js';

/** Points of one series, in time order. */
export type Buffered = { t: number[]; v: number[] };

/** What a query reads, as the store holds it at the time of the query. */
export interface ReadView {
  tiers: Tier[];
  /** Field ids by name. */
  ids: Map<string, number>;
  /** Decoded series of a tier's stored records overlapping [start, end], wanted ids only. */
  stored(tier: number, start: number, end: number, wanted?: Set<number>): Series[];
  /** Per tier: buckets ending at or before this time are complete. */
  doneUntil: number[];
  /** Per tier: completed buckets not yet written. */
  unwritten: Array<Map<number, Buffered>>;
  /** The raw points of the unflushed batch. */
  pending: Map<number, Buffered>;
}

/** Points per id in [start, end] of a tier (raw includes the unflushed batch); bucket points sit at their end. */
function collect(view: ReadView, tier: Tier, ids: Set<number>, start: number, end: number): Map<number, Buffered> {
  const out = new Map<number, Buffered>();
  const add = (id: number, t: number, v: number) => {
    if (t < start || t > end) return;
    let b = out.get(id);
    if (!b) out.set(id, (b = { t: [], v: [] }));
    b.t.push(t);
    b.v.push(v);
  };
  for (const s of view.stored(tier.index, start, end, ids)) s.t.forEach((t, i) => add(s.id, t, s.v[i]!));
  if (tier.index > 0)
    for (const id of ids)
      view.unwritten[tier.index]!.get(id)?.t.forEach((t, i) => add(id, t, view.unwritten[tier.index]!.get(id)!.v[i]!));
  if (tier.index === 0)
    for (const id of ids) view.pending.get(id)?.t.forEach((t, i) => add(id, t, view.pending.get(id)!.v[i]!));
  return out;
}

/** Points of the chosen tier up to its completed buckets, raw points after. */
function points(view: ReadView, tier: Tier, ids: Set<number>, start: number, end: number): Map<number, Buffered> {
  if (tier.index === 0) return collect(view, tier, ids, start, end);
  const cut = view.doneUntil[tier.index]!;
  const coarse = collect(view, tier, ids, start, Math.min(end, cut));
  if (end <= cut) return coarse;
  const fine = collect(view, view.tiers[0]!, ids, Math.max(start, cut + 1), end);
  for (const [id, b] of fine) {
    const c = coarse.get(id);
    if (c) {
      c.t.push(...b.t);
      c.v.push(...b.v);
    } else coarse.set(id, b);
  }
  return coarse;
}

function idSet(view: ReadView, fields: string[]): Set<number> {
  return new Set(fields.map((f) => view.ids.get(f)).filter((id): id is number => id !== undefined));
}

/** Step averages of each field with data, in request order, from the coarsest tier that fits the step. */
export function rangesOf(
  view: ReadView,
  fields: string[],
  start: number,
  end: number,
  stepS: number,
  now: number,
): Range[] {
  const stepMs = stepS * 1000;
  const tier = tierForQuery(view.tiers, stepMs, start, now);
  const pts = points(view, tier, idSet(view, fields), start - stepMs, end);
  const out: Range[] = [];
  for (const f of fields) {
    const b = pts.get(view.ids.get(f) ?? -1);
    const values = b ? stepAverages(b, start, end, stepS) : [];
    if (values.length) out.push({ metric: { __name__: f }, values });
  }
  return out;
}

/** Raw points of each field with data (the finest tier that reaches back to start). */
export function rawOf(view: ReadView, fields: string[], start: number, end: number, now: number): RawSeries[] {
  const tier = tierForQuery(view.tiers, 0, start, now);
  const pts = points(view, tier, idSet(view, fields), start, end);
  const out: RawSeries[] = [];
  for (const f of new Set(fields)) {
    const b = pts.get(view.ids.get(f) ?? -1);
    if (b?.t.length) out.push({ field: f, t: b.t, v: b.v });
  }
  return out;
}

/** Bucket averages of one tier as stored (for tests and diagnostics). */
export function tierPointsOf(view: ReadView, tier: number, field: string, start: number, end: number): Buffered {
  const id = view.ids.get(field);
  if (id === undefined) return { t: [], v: [] };
  const out: Buffered = { t: [], v: [] };
  for (const s of view.stored(tier, start, end, new Set([id]))) {
    s.t.forEach((t, i) => {
      if (t >= start && t <= end) {
        out.t.push(t);
        out.v.push(s.v[i]!);
      }
    });
  }
  return out;
}
