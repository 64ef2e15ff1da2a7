// The interface both history stores (embedded SQLite chunks, VictoriaMetrics) implement; one
// contract test suite (test/history/contract.ts) holds them to it.

/** One measurement: field name `<key>/<path>`, epoch ms, value. */
export interface Point {
  field: string;
  t: number;
  v: number;
}

/** Prometheus-style range of one field: [unix seconds, value as text]. */
export interface Range {
  metric: { __name__: string };
  values: Array<[number, string]>;
}

/** Raw points of one field, time-ordered (for CSV export). */
export interface RawSeries {
  field: string;
  t: number[];
  v: number[];
}

export interface HistoryStore {
  readonly kind: 'embedded' | 'victoria';
  /** Queue points of one message (all stamped `t`). Never blocks, never throws. `reserved`: the controller's own, kept over the pending bound. */
  write(key: string, fields: ReadonlyArray<readonly [string, number]>, t: number, reserved?: boolean): void;
  /** Sorted names of fields with data at or after `since` (epoch ms). */
  fields(since: number): Promise<string[]>;
  /**
   * Step averages of each field with data in [start, end], in request order; fields without data
   * are left out. `signal`: the client went away; a query still waiting for its turn then ends
   * (rejects) without being done.
   */
  ranges(fields: string[], start: number, end: number, stepS: number, signal?: AbortSignal): Promise<Range[]>;
  /** Raw points of each field with data in [start, end]; `signal` as for ranges. */
  raw(fields: string[], start: number, end: number, signal?: AbortSignal): Promise<RawSeries[]>;
  /**
   * The same points in slices, read as the consumer asks for the next (the CSV export streams
   * them): every point of a slice is before every point of a later one. `signal` as for ranges:
   * a slice still waiting for its turn (or for VictoriaMetrics' answer) then ends the iteration.
   */
  rawSlices(fields: string[], start: number, end: number, signal?: AbortSignal): AsyncIterable<RawSeries[]>;
  /** Write everything queued now (tests, shutdown). */
  flush(): Promise<void>;
  /** Throws when the store cannot answer. */
  ping(): Promise<void>;
  status(): Record<string, unknown>;
  /** Whether the store works, without the figures of status() (alerts ask every second). */
  health(): StoreHealth;
  close(): Promise<void>;
}

export interface StoreHealth {
  ok: boolean;
  error: string | null;
  /** It fails because the data dir's disk is full (the disk-full alert says so; no second alert). */
  diskFull?: boolean;
}

/** The drop reason of points that waited for a flush a full disk kept failing. */
export const DISK_FULL_DROP = 'disk full';

/** Shortest round-trip text of a number, as graphs receive it. */
export const valueText = (v: number): string => String(v);

/**
 * Average points into steps as Prometheus' avg_over_time does on a step-aligned grid: the
 * value at grid time g averages the points in (g - step, g]. Grid times run from start rounded
 * down to a multiple of the step to end; the window still open at end ends there.
 */
export function stepAverages(
  points: { t: number[]; v: number[] },
  start: number,
  end: number,
  stepS: number,
): Array<[number, string]> {
  const stepMs = stepS * 1000;
  const first = Math.floor(start / stepMs) * stepMs;
  const sums = new Map<number, { s: number; n: number }>();
  for (let i = 0; i < points.t.length; i++) {
    const t = points.t[i]!;
    // The window still open at `end` is labelled `end` (a partial step), so a graph shows its newest points.
    const slot = Math.min(Math.ceil(t / stepMs) * stepMs, end);
    if (slot < first || t > end || t <= first - stepMs) continue;
    const acc = sums.get(slot);
    if (acc) {
      acc.s += points.v[i]!;
      acc.n++;
    } else sums.set(slot, { s: points.v[i]!, n: 1 });
  }
  return [...sums.entries()].sort((a, b) => a[0] - b[0]).map(([slot, { s, n }]) => [slot / 1000, valueText(s / n)]);
}
