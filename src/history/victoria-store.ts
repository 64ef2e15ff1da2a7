// The VictoriaMetrics history store (--history-url): Influx line protocol to /write, queries
// through its Prometheus API. Run VictoriaMetrics with -influxMeasurementFieldSeparator=/ so a
// metric is named `<key>/<field>`, as in Brewblox.
//
// Writes are queued and sent once a second; control never waits on the database. While it is
// away the queue is bounded: when full, every other line is dropped (older data thins out
// first, as repeated halving hits it more often), and the rest goes out when it answers again.
// Full is a number of lines or of bytes: a line of long names may hold some 64 KiB.
// Every line dropped (thinned, refused) is counted by reason, the controller's own apart.
import { setMaxListeners } from 'node:events';
import type { Logger } from '../log.js';
import { HistoryDrops } from './drops.js';
import { INGEST_LIMITS, RAW_SLICE_POINTS } from './limits.js';
import { lineKeyProblem, toLines } from './line-protocol.js';
import type { HistoryStore, Range, RawSeries, StoreHealth } from './store.js';
import { Turns } from './turns.js';
import { promString, selectorForms, textUpTo } from './victoria-requests.js';

export interface VictoriaOptions {
  url: string;
  log: Logger;
  writeIntervalMs?: number;
  maxPendingLines?: number;
  timeoutMs?: number;
  /** Where dropped points are counted (shared with the ingest); one of its own by default. */
  drops?: HistoryDrops;
}

/**
 * Requests of queries to VictoriaMetrics in flight at once, for all queries together: a ranges
 * query asks once per field (up to MAX_QUERY_FIELDS), and a connection each would let one client
 * open thousands of sockets (file descriptors the service needs for its own files and clients),
 * each held for the time limit when VictoriaMetrics does not answer. The others wait their turn.
 */
export const VICTORIA_QUERY_REQUESTS = 4;

/**
 * The CSV export asks VictoriaMetrics for a window of time at a time, sized so that one answer
 * holds about RAW_SLICE_POINTS points: its first window is this long, each next one scaled by
 * how many points the last held (at most 4 times longer).
 */
export const VICTORIA_FIRST_WINDOW_MS = 600_000;
/**
 * The most bytes of one export answer read: a window that holds more (dense data after a sparse
 * stretch that widened the window) is cut off and asked again 16 times shorter, so an answer never
 * holds more than this in memory. Some 30 bytes a point: a few slices' worth.
 */
export const VICTORIA_SLICE_BYTES = RAW_SLICE_POINTS * 64;

/** The most line text queued (UTF-8 bytes, as sent) before every other line is dropped. */
export const VICTORIA_PENDING_BYTES = 16 * 1024 * 1024;

/** A queued line, with what a drop of it costs. */
interface Line {
  text: string;
  /** UTF-8 bytes of the text and its newline in a write. */
  bytes: number;
  points: number;
  own: boolean;
}

/** VictoriaMetrics' last time (2262-04-11T23:47:16.854Z, int64 nanoseconds): it refuses a later one. */
const VICTORIA_LAST_MS = 9_223_372_036_854;

export class VictoriaStore implements HistoryStore {
  readonly kind = 'victoria' as const;
  private readonly base: string;
  private pending: Line[] = [];
  /** UTF-8 bytes of the pending lines' text. */
  private pendingBytes = 0;
  private readonly drops: HistoryDrops;
  private sending: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastError: string | null = null;
  /** Monotonic time of the last logged problem (a wall clock set back must not silence the log). */
  private lastErrorLog = -Infinity;
  private sent = 0;
  private thinned = 0;
  /** Query requests in flight, and those waiting for a turn (VICTORIA_QUERY_REQUESTS). */
  private readonly turns = new Turns(VICTORIA_QUERY_REQUESTS, Number.POSITIVE_INFINITY, 'requests');

  constructor(private readonly o: VictoriaOptions) {
    this.base = o.url.replace(/\/+$/, '');
    this.drops = o.drops ?? new HistoryDrops(o.log, { intervalMs: INGEST_LIMITS.dropLogIntervalMs });
  }

  start(): void {
    this.timer ??= setInterval(() => void this.send(), this.o.writeIntervalMs ?? 1000);
    this.timer.unref();
  }

  write(key: string, fields: ReadonlyArray<readonly [string, number]>, t: number, reserved = false): void {
    if (!fields.length) return;
    const keyProblem = lineKeyProblem(key);
    if (keyProblem) return this.drops.dropPoints('key not storable', fields.length, reserved, keyProblem);
    const { lines, unwritable } = toLines(key, fields, t);
    if (unwritable.length)
      this.drops.dropPoints(
        'field name not writable in line protocol',
        unwritable.length,
        reserved,
        `a double quote in the last segment of ${JSON.stringify(unwritable[0]!.slice(0, 80))} (key ${JSON.stringify(key)})`,
      );
    for (const l of lines) {
      this.pending.push({ text: l.text, bytes: l.bytes, points: l.points, own: reserved });
      this.pendingBytes += l.bytes;
    }
    if (this.full()) {
      this.thin();
      this.problem(`VictoriaMetrics write queue full (${this.limits()}): kept every other line`);
    }
  }

  private full(): boolean {
    return this.pending.length >= (this.o.maxPendingLines ?? 5000) || this.pendingBytes > VICTORIA_PENDING_BYTES;
  }

  private readonly limits = () => `${this.o.maxPendingLines ?? 5000} lines or ${VICTORIA_PENDING_BYTES / 2 ** 20} MiB`;

  /** Every other queued line goes, counted. */
  private thin(): void {
    const gone = this.pending.filter((_, i) => i % 2 === 0);
    this.pending = this.pending.filter((_, i) => i % 2 === 1);
    this.pendingBytes = this.pending.reduce((n, l) => n + l.bytes, 0);
    this.thinned++;
    this.dropLines('thinned', gone, `VictoriaMetrics write queue full (${this.limits()}): every other line dropped`);
  }

  private dropLines(reason: string, lines: Line[], detail: string): void {
    const lost = { own: 0, other: 0 };
    for (const l of lines) lost[l.own ? 'own' : 'other'] += l.points;
    this.drops.dropPoints(reason, lost.other, false, detail);
    this.drops.dropPoints(reason, lost.own, true, detail);
  }

  private problem(message: string): void {
    this.lastError = message;
    if (performance.now() - this.lastErrorLog > 60_000) {
      this.lastErrorLog = performance.now();
      this.o.log.warn({ url: this.base }, `history: ${message}`);
    }
  }

  /**
   * One query request, its answer read by `read` within its turn. `signal` ends it (and its wait
   * for a turn): one per query (querySignal), so a query takes at most the time limit however many
   * fields it has, and ends at once when its client goes away.
   */
  private async request<T>(
    path: string,
    body: string | undefined,
    read: (res: Response) => Promise<T>,
    signal = this.querySignal(),
  ): Promise<T> {
    // The time limit is named; the client's going away (or the query's failure) ends it with its own reason.
    const ended = () =>
      (signal.reason as Error | undefined)?.name === 'TimeoutError'
        ? new Error(`VictoriaMetrics did not answer within ${this.o.timeoutMs ?? 10_000} ms`)
        : signal.reason;
    try {
      await this.turns.take(signal);
    } catch (e) {
      throw signal.aborted ? ended() : e;
    }
    try {
      const res = await fetch(`${this.base}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        signal,
      });
      if (!res.ok) throw new Error(`${path} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
      return await read(res);
    } catch (e) {
      if (signal.aborted) throw ended();
      throw e;
    } finally {
      this.turns.release();
    }
  }

  /** A query's signal: its time limit, or `client` (the client went away), whichever comes first. */
  private querySignal(client?: AbortSignal): AbortSignal {
    const limit = AbortSignal.timeout(this.o.timeoutMs ?? 10_000);
    const signal = client ? AbortSignal.any([limit, client]) : limit;
    // Every request of a query waiting for its turn listens to it: as many as the query has fields.
    setMaxListeners(0, signal);
    return signal;
  }

  private send(): Promise<void> {
    if (this.sending) return this.sending;
    if (!this.pending.length) return Promise.resolve();
    const lines = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.sending = (async () => {
      try {
        const res = await fetch(`${this.base}/write`, {
          method: 'POST',
          body: lines.map((l) => l.text).join('\n'),
          signal: AbortSignal.timeout(this.o.timeoutMs ?? 10_000),
        });
        if (res.status >= 500) throw new Error(`/write answered ${res.status}`);
        if (!res.ok) {
          const why = `/write refused ${lines.length} lines: ${res.status} ${(await res.text()).slice(0, 200)}`;
          this.problem(why);
          this.dropLines('refused by VictoriaMetrics', lines, why);
        } else this.sent += lines.length;
        if (res.ok && this.lastError) {
          this.o.log.info({ url: this.base }, 'history: VictoriaMetrics answers again');
          this.lastError = null;
        }
      } catch (e) {
        this.pending = lines.concat(this.pending);
        this.pendingBytes = this.pending.reduce((n, l) => n + l.bytes, 0);
        while (this.full()) this.thin();
        this.problem(`cannot write to VictoriaMetrics (${(e as Error).message}); ${this.pending.length} lines queued`);
      } finally {
        this.sending = null;
      }
    })();
    return this.sending;
  }

  async flush(): Promise<void> {
    await this.sending;
    await this.send();
    await this.request('/internal/force_flush', undefined, (res) => res.text()).catch(() => undefined);
  }

  async fields(since: number): Promise<string[]> {
    const body = await this.request(
      '/api/v1/series',
      `match[]=${encodeURIComponent('{__name__!=""}')}&start=${since / 1000}`,
      (res) => res.json() as Promise<{ data: Array<{ __name__: string }> }>,
    );
    return [...new Set(body.data.map((m) => m.__name__))].sort();
  }

  async ranges(fields: string[], from: number, to: number, stepS: number, client?: AbortSignal): Promise<Range[]> {
    // Within the times VictoriaMetrics takes (it holds nothing before 1970, refuses after 2262).
    const start = Math.min(Math.max(from, 0), VICTORIA_LAST_MS);
    const end = Math.min(Math.max(to, 0), VICTORIA_LAST_MS);
    // The query's time limit, its client gone, or its first failure: its requests still waiting
    // for a turn (or under way) are of no use then, and would hold the turns every later query waits for.
    const limit = this.querySignal(client);
    const failed = new AbortController();
    setMaxListeners(0, failed.signal);
    const onLimit = () => failed.abort(limit.reason);
    limit.addEventListener('abort', onLimit, { once: true });
    const signal = failed.signal;
    const results = await Promise.all(
      fields.map(async (f) => {
        const query = `avg_over_time({__name__=${promString(f)}}[${stepS}s])`;
        const body = await this.request(
          '/api/v1/query_range',
          `query=${encodeURIComponent(query)}&start=${start / 1000}&end=${end / 1000}&step=${stepS}s`,
          (res) => res.json() as Promise<{ data: { result: Array<{ values: Array<[number, string]> }> } }>,
          signal,
        );
        const first = body.data.result[0];
        return first && first.values.length ? { metric: { __name__: f }, values: first.values } : null;
      }),
    )
      .catch((e: unknown) => {
        failed.abort();
        throw e;
      })
      .finally(() => limit.removeEventListener('abort', onLimit));
    return results.filter((r): r is Range => r !== null);
  }

  async raw(fields: string[], start: number, end: number, client?: AbortSignal): Promise<RawSeries[]> {
    if (!fields.length) return [];
    return (await this.export(fields, start, end, Infinity, client)) ?? [];
  }

  /**
   * Raw points of `fields` from `from` to `to` (ms, both included), each field once, in request
   * order; null when the answer is over `maxBytes` (it is not read further). VictoriaMetrics is
   * asked for a millisecond more each side and the points outside are left out here: it reads a
   * time with a fraction of a second through a float, which can move a bound by a millisecond
   * and lose the point on it, and it answers a span whose start is not before its end with five
   * minutes from the start.
   */
  private async export(
    fields: string[],
    from: number,
    to: number,
    maxBytes: number,
    client?: AbortSignal,
  ): Promise<RawSeries[] | null> {
    const iso = (ms: number) => new Date(Math.min(Math.max(ms, 0), VICTORIA_LAST_MS)).toISOString();
    const span = `start=${iso(Math.floor(from) - 1)}&end=${iso(Math.ceil(to) + 1)}`;
    const signal = this.querySignal(client);
    const texts: string[] = [];
    let left = maxBytes;
    for (const matches of selectorForms([...new Set(fields)])) {
      const text = await this.request(
        '/api/v1/export',
        `${matches}&${span}`,
        (res) => (left === Infinity ? res.text() : textUpTo(res, left)),
        signal,
      );
      if (text === null) return null;
      texts.push(text);
      left -= Buffer.byteLength(text);
    }
    const byField = new Map<string, Array<[number, number]>>();
    for (const line of texts.join('\n').split('\n')) {
      if (!line.trim()) continue;
      const m = JSON.parse(line) as { metric: { __name__: string }; values: number[]; timestamps: number[] };
      const list = byField.get(m.metric.__name__) ?? byField.set(m.metric.__name__, []).get(m.metric.__name__)!;
      m.timestamps.forEach((t, i) => {
        if (t >= from && t <= to) list.push([t, m.values[i]!]);
      });
    }
    const out: RawSeries[] = [];
    for (const f of new Set(fields)) {
      const list = byField.get(f);
      if (!list?.length) continue;
      list.sort((a, b) => a[0] - b[0]);
      out.push({ field: f, t: list.map((p) => p[0]), v: list.map((p) => p[1]) });
    }
    return out;
  }

  /**
   * The points a window of time at a time (VICTORIA_FIRST_WINDOW_MS, VICTORIA_SLICE_BYTES), each
   * window an export of its own with its own time limit: an export of months holds a slice in
   * memory, not every point, and parses it without holding up the control loop's ticks. Windows
   * are whole milliseconds (VictoriaMetrics' times), both ends included (see export).
   */
  async *rawSlices(fields: string[], start: number, end: number, client?: AbortSignal): AsyncIterable<RawSeries[]> {
    if (!fields.length) return;
    // VictoriaMetrics holds nothing before 1970, and refuses a time after its last one.
    const last = Math.min(Math.floor(end), VICTORIA_LAST_MS);
    let from = Math.max(Math.ceil(start), 0);
    let window = VICTORIA_FIRST_WINDOW_MS;
    while (from <= last) {
      const to = Math.min(last, from + window - 1);
      // A window of one millisecond is read whole, whatever its size: the export goes on.
      const slice = await this.export(fields, from, to, window > 1 ? VICTORIA_SLICE_BYTES : Infinity, client);
      if (slice === null) {
        window = Math.max(1, Math.floor(window / 16));
        continue;
      }
      const points = slice.reduce((n, r) => n + r.t.length, 0);
      if (slice.length) yield slice;
      from = to + 1;
      window = Math.max(1, Math.round(window * Math.min(4, RAW_SLICE_POINTS / Math.max(points, 1))));
    }
  }

  async ping(): Promise<void> {
    const text = await this.request('/health', undefined, (res) => res.text());
    if (text.trim() !== 'OK') throw new Error(`VictoriaMetrics health answered ${JSON.stringify(text.slice(0, 100))}`);
  }

  health(): StoreHealth {
    return { ok: this.lastError === null, error: this.lastError };
  }

  status(): Record<string, unknown> {
    return {
      store: 'victoria',
      url: this.base,
      ...this.health(),
      pendingLines: this.pending.length,
      pendingBytes: this.pendingBytes,
      linesSent: this.sent,
      thinned: this.thinned,
    };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.send().catch(() => undefined);
  }
}
