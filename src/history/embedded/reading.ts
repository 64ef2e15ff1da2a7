// The points a query of the embedded store reads: a tier's stored records, its completed buckets
// not written yet, and for raw points the unflushed batch. A coarse tier answers up to its
// completed buckets, raw points after. A query decodes records for at most QUERY_SLICE_MS per
// turn of the event loop, then lets the control loop's ticks and the API have theirs.
import { QUERY_SLICE_MS, RAW_SLICE_POINTS } from '../limits.js';
import { stepAverages, type Range, type RawSeries } from '../store.js';
import type { StoredRecords } from './record-files.js';
import { tierForQuery, type Tier } from './tiers.js';

/** Points of one series, in time order. */
export type Buffered = { t: number[]; v: number[] };

/** What a query reads, as the store held it when the query began (flushes may come while it waits for its turn). */
export interface ReadView {
  tiers: Tier[];
  /** Field ids by name. */
  ids: ReadonlyMap<string, number>;
  /** The stored records (none while the store is not open). */
  stored: StoredRecords;
  /** Per tier: buckets ending at or before this time are complete. */
  doneUntil: number[];
  /** Per tier: completed buckets not yet written. */
  unwritten: Array<Map<number, Buffered>>;
  /** The raw points of the unflushed batch. */
  pending: Map<number, Buffered>;
}

/** The time one query has worked since it last gave up its turn of the event loop. */
class Slices {
  private since = performance.now();

  /** Whether the query has had its slice; then await next(). */
  get due(): boolean {
    return performance.now() - this.since >= QUERY_SLICE_MS;
  }

  async next(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}

/** Points per id in [start, end] of a tier, a group of records of about `maxPoints` at a time, in time order (raw ends with the unflushed batch); bucket points sit at their end. */
async function* batches(
  view: ReadView,
  slices: Slices,
  tier: Tier,
  ids: Set<number>,
  start: number,
  end: number,
  maxPoints: number,
): AsyncGenerator<Map<number, Buffered>> {
  let out = new Map<number, Buffered>();
  let count = 0;
  const add = (id: number, t: number, v: number) => {
    if (t < start || t > end) return;
    let b = out.get(id);
    if (!b) out.set(id, (b = { t: [], v: [] }));
    b.t.push(t);
    b.v.push(v);
    count++;
  };
  for (const record of view.stored(tier.index, start, end, ids)) {
    for (const s of record) s.t.forEach((t, i) => add(s.id, t, s.v[i]!));
    if (count >= maxPoints) {
      yield out;
      out = new Map();
      count = 0;
    }
    if (slices.due) await slices.next();
  }
  if (tier.index > 0)
    for (const id of ids)
      view.unwritten[tier.index]!.get(id)?.t.forEach((t, i) => add(id, t, view.unwritten[tier.index]!.get(id)!.v[i]!));
  if (tier.index === 0)
    for (const id of ids) view.pending.get(id)?.t.forEach((t, i) => add(id, t, view.pending.get(id)!.v[i]!));
  if (out.size) yield out;
}

/** Points of the chosen tier up to its completed buckets, raw points after, in groups of about `maxPoints`. */
async function* pointBatches(
  view: ReadView,
  slices: Slices,
  tier: Tier,
  ids: Set<number>,
  start: number,
  end: number,
  maxPoints: number,
): AsyncGenerator<Map<number, Buffered>> {
  if (tier.index === 0) return yield* batches(view, slices, tier, ids, start, end, maxPoints);
  const cut = view.doneUntil[tier.index]!;
  yield* batches(view, slices, tier, ids, start, Math.min(end, cut), maxPoints);
  if (end > cut) yield* batches(view, slices, view.tiers[0]!, ids, Math.max(start, cut + 1), end, maxPoints);
}

/** Append the points of `from` to those of `to`, per id. */
function append(to: Map<number, Buffered>, from: Map<number, Buffered>): void {
  for (const [id, b] of from) {
    const c = to.get(id);
    if (c) {
      c.t.push(...b.t);
      c.v.push(...b.v);
    } else to.set(id, b);
  }
}

/** All points of the chosen tier up to its completed buckets, raw points after. */
async function points(
  view: ReadView,
  slices: Slices,
  tier: Tier,
  ids: Set<number>,
  start: number,
  end: number,
): Promise<Map<number, Buffered>> {
  let all: Map<number, Buffered> | null = null;
  for await (const batch of pointBatches(view, slices, tier, ids, start, end, Number.POSITIVE_INFINITY)) {
    if (all) append(all, batch);
    else all = batch;
  }
  return all ?? new Map();
}

function idSet(view: ReadView, fields: string[]): Set<number> {
  return new Set(fields.map((f) => view.ids.get(f)).filter((id): id is number => id !== undefined));
}

/** Step averages of each field with data, in request order, from the coarsest tier that fits the step. */
export async function rangesOf(
  view: ReadView,
  fields: string[],
  start: number,
  end: number,
  stepS: number,
  now: number,
): Promise<Range[]> {
  const slices = new Slices();
  const stepMs = stepS * 1000;
  const tier = tierForQuery(view.tiers, stepMs, start, now);
  const pts = await points(view, slices, tier, idSet(view, fields), start - stepMs, end);
  const out: Range[] = [];
  for (const f of fields) {
    const b = pts.get(view.ids.get(f) ?? -1);
    const values = b ? stepAverages(b, start, end, stepS) : [];
    if (values.length) out.push({ metric: { __name__: f }, values });
    if (slices.due) await slices.next();
  }
  return out;
}

/** The raw series of `fields` (each once, in request order) with points in `pts`. */
function rawSeries(view: ReadView, fields: string[], pts: Map<number, Buffered>): RawSeries[] {
  const out: RawSeries[] = [];
  for (const f of new Set(fields)) {
    const b = pts.get(view.ids.get(f) ?? -1);
    if (b?.t.length) out.push({ field: f, t: b.t, v: b.v });
  }
  return out;
}

/** Raw points of each field with data (the finest tier that reaches back to start). */
export async function rawOf(
  view: ReadView,
  fields: string[],
  start: number,
  end: number,
  now: number,
): Promise<RawSeries[]> {
  const tier = tierForQuery(view.tiers, 0, start, now);
  return rawSeries(view, fields, await points(view, new Slices(), tier, idSet(view, fields), start, end));
}

/**
 * rawOf in slices of about RAW_SLICE_POINTS, in time order: every point of a slice is before
 * every point of a later one. The points at a slice's last time wait for the next slice, which
 * may hold more at that time (written after a flush).
 */
export async function* rawSlicesOf(
  view: ReadView,
  fields: string[],
  start: number,
  end: number,
  now: number,
): AsyncGenerator<RawSeries[]> {
  const tier = tierForQuery(view.tiers, 0, start, now);
  let held = new Map<number, Buffered>();
  for await (const batch of pointBatches(view, new Slices(), tier, idSet(view, fields), start, end, RAW_SLICE_POINTS)) {
    append(held, batch);
    let last = Number.NEGATIVE_INFINITY;
    for (const b of held.values()) last = Math.max(last, b.t[b.t.length - 1]!);
    const ready = new Map<number, Buffered>();
    const later = new Map<number, Buffered>();
    for (const [id, b] of held) {
      const cut = b.t[b.t.length - 1] === last ? b.t.indexOf(last) : b.t.length;
      if (cut < b.t.length) {
        later.set(id, { t: b.t.slice(cut), v: b.v.slice(cut) });
        b.t.length = cut;
        b.v.length = cut;
      }
      if (cut > 0) ready.set(id, b);
    }
    held = later;
    const series = rawSeries(view, fields, ready);
    if (series.length) yield series;
  }
  const series = rawSeries(view, fields, held);
  if (series.length) yield series;
}

/** Bucket averages of one tier as stored (for tests and diagnostics). */
export function tierPointsOf(view: ReadView, tier: number, field: string, start: number, end: number): Buffered {
  const id = view.ids.get(field);
  if (id === undefined) return { t: [], v: [] };
  const out: Buffered = { t: [], v: [] };
  for (const record of view.stored(tier, start, end, new Set([id])))
    for (const s of record) {
      s.t.forEach((t, i) => {
        if (t >= start && t <= end) {
          out.t.push(t);
          out.v.push(s.v[i]!);
        }
      });
    }
  return out;
}
