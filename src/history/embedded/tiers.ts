// Downsampled tiers of the embedded store. Tier 0 holds the raw points; each coarser tier holds
// one average per field per bucket. A graph reads from the coarsest tier whose bucket fits in
// its step, so a 30-day graph reads 10-minute averages, not half a million raw points.
//
//   tier 0  raw (every 5 s)   kept 2 days      ~ 35 k points per field
//   tier 1  1-minute average  kept 60 days     ~ 86 k points per field
//   tier 2  10-minute average kept 1 year      ~ 53 k points per field
//
// Tier 1 writes a row per hour, tier 2 per 6 hours; completed buckets wait in memory until
// then and are rebuilt from the raw rows after a crash. Each is capped by historyRetention. A tier row holds the buckets completed at one flush. A
// bucket is the half-open interval (end - length, end], labelled by its end, like the step
// windows of a range query, so a step made of whole buckets averages exactly what the raw
// points would give (for evenly spaced points).
export interface Tier {
  index: number;
  /** Bucket length in ms; 0 for raw points. */
  bucketMs: number;
  keepMs: number;
  /** A coarse tier collects this much before it writes a row (rebuilt from raw rows after a crash). */
  rowSpanMs: number;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;

export function tiersFor(retentionMs: number): Tier[] {
  return [
    { index: 0, bucketMs: 0, keepMs: Math.min(2 * DAY, retentionMs), rowSpanMs: 0 },
    { index: 1, bucketMs: 60_000, keepMs: Math.min(60 * DAY, retentionMs), rowSpanMs: HOUR },
    { index: 2, bucketMs: 600_000, keepMs: Math.min(365 * DAY, retentionMs), rowSpanMs: 6 * HOUR },
  ];
}

/** Before this time no tier holds a point, with a day to spare (a bucket's end comes after its points). */
export function nothingKeptBefore(tiers: Tier[], now: number): number {
  return now - Math.max(...tiers.map((t) => t.keepMs)) - DAY;
}

/** The tier a query with this step and start reads: the coarsest bucket within the step, coarser still when the finer one no longer reaches back to start. */
export function tierForQuery(tiers: Tier[], stepMs: number, start: number, now: number): Tier {
  let k = 0;
  for (const t of tiers) if (t.bucketMs <= stepMs) k = t.index;
  while (k < tiers.length - 1 && start < now - tiers[k]!.keepMs) k++;
  return tiers[k]!;
}

/** Running averages of one tier; completed buckets are collected for the next flush. */
export class BucketAccumulator {
  private readonly open = new Map<number, { b: number; s: number; n: number }>();
  private done = new Map<number, { t: number[]; v: number[] }>();

  constructor(readonly bucketMs: number) {}

  add(id: number, t: number, v: number): void {
    this.addTo(id, this.bucketOf(t), v);
  }

  /** The end of the bucket holding time `t`. */
  bucketOf(t: number): number {
    return Math.ceil(t / this.bucketMs) * this.bucketMs;
  }

  /** `add` with the bucket already worked out (one per message, not per point). */
  addTo(id: number, b: number, v: number): void {
    const acc = this.open.get(id);
    if (acc && acc.b === b) {
      acc.s += v;
      acc.n++;
      return;
    }
    if (acc) this.complete(id, acc);
    this.open.set(id, { b, s: v, n: 1 });
  }

  /** Close buckets that ended at or before `now`, and hand over everything completed. */
  take(now: number): Map<number, { t: number[]; v: number[] }> {
    for (const [id, acc] of this.open) {
      if (acc.b <= now) {
        this.complete(id, acc);
        this.open.delete(id);
      }
    }
    const out = this.done;
    this.done = new Map();
    return out;
  }

  private complete(id: number, acc: { b: number; s: number; n: number }) {
    let d = this.done.get(id);
    if (!d) this.done.set(id, (d = { t: [], v: [] }));
    d.t.push(acc.b);
    d.v.push(acc.s / acc.n);
  }
}
