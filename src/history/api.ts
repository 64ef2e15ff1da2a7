// The timeseries API under /history/timeseries (reference/datastore.md §7): ping, fields,
// ranges, metrics, csv, and the websocket stream. Queries go to the store; metrics come from
// the ingest's last-value cache; open-ended stream ranges push each new point as it arrives.
import type { FastifyPluginAsync } from 'fastify';
import { Readable } from 'node:stream';
import type { WebSocket } from 'ws';
import { HttpError } from '../api/errors.js';
import { readRoutes } from '../api/access.js';
import { websocketRoute } from '../api/upgrade-routes.js';
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';
import { parseJson, quoteAsSent, sentNumbersOf, sizeProblem, type SentNumber } from '../shared/json.js';
import { HISTORY_STREAM_COMMAND_BYTES, HISTORY_STREAM_QUERIES } from '../shared/limits.js';
import { CLOSE_GRACE_MS, type SlowClients } from '../shared/slow-clients.js';
import type { HistoryIngest } from './ingest.js';
import { NoBody, mayBeAbsent } from '../api/route-validation.js';
import {
  csvQueryOf,
  fieldsQueryOf,
  formatTime,
  metricsQueryOf,
  parseMetricsQuery,
  parseRangesQuery,
  rangesQueryOf,
  type CsvBody,
  type FieldsBody,
  type MetricsBody,
  type Precision,
  type RangesBody,
  type RangesQuery,
} from './query.js';
import { timeseriesSchemas as s } from './schemas.js';
import { csvLine } from './csv.js';
import { valueText, type HistoryStore, type Range, type RawSeries } from './store.js';
import { QueryError, parseDuration, selectTimeframe } from './timeframe.js';

export const STREAM_PATH = '/history/timeseries/stream';

function byteLength(data: Buffer | ArrayBuffer | Buffer[]): number {
  return Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
}

export interface TimeseriesDeps {
  store: HistoryStore;
  ingest: HistoryIngest;
  /** Wall clock, epoch ms. */
  now: () => number;
  log: Logger;
  metricsIntervalMs?: number;
  /** The stream websocket's per-client limit of bytes waiting to be read (slow-clients.ts). */
  slow?: SlowClients;
}

const NO_CACHE = {
  'cache-control': 'no-cache, no-store, must-revalidate, proxy-revalidate, max-age=0',
  pragma: 'no-cache',
  expires: '0',
};

/** What a query says when the store fails it: the database is unavailable (503, as ping), not an internal error. */
function unavailable(e: unknown): string {
  return `history database unavailable: ${(e as Error).message}`;
}

/** A store query: its failure is a 503 naming it. */
async function fromStore<T>(query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (e) {
    throw new HttpError(503, unavailable(e));
  }
}

function asHttp(e: unknown): never {
  if (e instanceof QueryError)
    throw new HttpError(e.status, e.message, e.field ? [{ path: e.field, message: e.message }] : undefined);
  throw e;
}

export function queryRanges(deps: TimeseriesDeps, q: RangesQuery, signal?: AbortSignal): Promise<Range[]> {
  const tf = selectTimeframe(q, deps.now());
  return fromStore(() => deps.store.ranges(q.fields, tf.start, tf.end ?? deps.now(), tf.step, signal));
}

/** Aborted when the client goes away before its answer is sent: a query still in line is then not done. */
function clientGone(reply: { raw: { writableFinished: boolean; once(e: 'close', f: () => void): unknown } }) {
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort(new Error('the client went away'));
  });
  return gone.signal;
}

/** The CSV text of raw slices (time-ordered, store.ts), one line per time, in chunks of some 32 KiB. */
async function* csvLines(
  q: RangesQuery & { precision: Precision },
  slices: AsyncIterator<RawSeries[]>,
  first: IteratorResult<RawSeries[]>,
): AsyncGenerator<string> {
  // The header is the only text (csv.ts keeps it from being a formula); each line after is numbers.
  yield csvLine(['time', ...q.fields]);
  // The columns of each field: one asked for twice has its values in both.
  const columns = new Map<string, number[]>();
  q.fields.forEach((f, i) => columns.set(f, [...(columns.get(f) ?? []), i]));
  let chunk = '';
  for (let slice = first; !slice.done; slice = await slices.next()) {
    const cols = slice.value.map((r) => ({ idxs: columns.get(r.field) ?? [], r, i: 0 }));
    for (;;) {
      let t = Infinity;
      for (const c of cols) if (c.i < c.r.t.length) t = Math.min(t, c.r.t[c.i]!);
      if (t === Infinity) break;
      const cells = new Array<string>(q.fields.length).fill('');
      for (const c of cols) {
        if (c.r.t[c.i] === t) {
          for (const idx of c.idxs) cells[idx] = valueText(c.r.v[c.i]!);
          c.i++;
        }
      }
      chunk += `${formatTime(t, q.precision)},${cells.join(',')}\n`;
      if (chunk.length >= 32_768) {
        yield chunk;
        chunk = '';
      }
    }
  }
  if (chunk) yield chunk;
}

export function timeseriesRoutes(deps: TimeseriesDeps): FastifyPluginAsync {
  return async (app) => {
    // Every timeseries route reads: a viewer may call them (src/api/access.ts).
    readRoutes(app);
    const doc = (summary: string, description: string, body: unknown, response: unknown) => ({
      schema: { tags: ['timeseries'], summary, description, ...(body ? { body } : {}), response: { 200: response } },
    });
    // The Brewblox UI always sends {duration}; a client that sends nothing gets the default.
    const fieldsQuery = mayBeAbsent(s.fieldsQuery);
    const ping = async (_req: unknown, reply: { headers(h: Record<string, string>): unknown }) => {
      await fromStore(() => deps.store.ping());
      reply.headers(NO_CACHE);
      return { ping: 'pong' };
    };
    app.get(
      '/timeseries/ping',
      doc(
        'Liveness of the history database',
        'Answers {"ping": "pong"} when the store answers, 503 otherwise.',
        null,
        s.pong,
      ),
      ping,
    );
    app.post('/timeseries/ping', doc('Liveness of the history database', 'Same as GET.', NoBody, s.pong), ping);

    app.post<{ Body: FieldsBody }>(
      '/timeseries/fields',
      doc(
        'Field names with data',
        'Sorted names of the fields with points within the duration (default 1d).',
        fieldsQuery,
        s.fieldNames,
      ),
      async (req) => {
        try {
          const q = fieldsQueryOf(req.body);
          const since = deps.now() - parseDuration(q.duration) * 1000;
          return await fromStore(() => deps.store.fields(since));
        } catch (e) {
          return asHttp(e);
        }
      },
    );

    app.post<{ Body: RangesBody }>(
      '/timeseries/ranges',
      doc(
        'Averaged values of fields over a period',
        'One entry per field with data, in request order; values are averages over steps of max(period / 1000, 10 s).',
        s.rangesQuery,
        s.ranges,
      ),
      async (req, reply) => {
        try {
          return await queryRanges(deps, rangesQueryOf(req.body), clientGone(reply));
        } catch (e) {
          return asHttp(e);
        }
      },
    );

    app.post<{ Body: MetricsBody }>(
      '/timeseries/metrics',
      doc(
        'Latest values of fields',
        'From the last received message; only fields updated within the duration (default 10m).',
        s.metricsQuery,
        s.metrics,
      ),
      async (req) => {
        try {
          const q = metricsQueryOf(req.body);
          return deps.ingest.metrics(q.fields, deps.now() - parseDuration(q.duration) * 1000);
        } catch (e) {
          return asHttp(e);
        }
      },
    );

    app.post<{ Body: CsvBody }>(
      '/timeseries/csv',
      doc(
        'Raw points as CSV',
        'Streamed text/plain: "time,<fields>" then one line per timestamp. A field name starting with =, +, -, @, tab or CR is written with a \' before it (so a spreadsheet takes it as text, not a formula).',
        s.csvQuery,
        s.csv,
      ),
      async (req, reply) => {
        let q: ReturnType<typeof csvQueryOf>;
        let tf: ReturnType<typeof selectTimeframe>;
        try {
          q = csvQueryOf(req.body);
          tf = selectTimeframe(q, deps.now());
        } catch (e) {
          return asHttp(e);
        }
        // The first slice is read before the answer begins, so a store that fails it is a 503,
        // not a cut-off 200. The rest is read as the client takes the answer: one that reads
        // slowly holds a few slices, not the whole export (one that stops is cut, answer-stall.ts).
        // A client gone ends a slice still waiting (for its turn, for VictoriaMetrics) at once.
        const slices = deps.store
          .rawSlices(q.fields, tf.start, tf.end ?? deps.now(), clientGone(reply))
          [Symbol.asyncIterator]();
        const first = await fromStore(() => slices.next());
        void reply.header('content-type', 'text/plain; charset=utf-8');
        const csv = Readable.from(csvLines(q, slices, first), { highWaterMark: 2 });
        // The answer closed (sent, or destroyed when the client went away): the store's iteration
        // ends with it. csvLines reads the slices by hand, so ending it would not end them, nor
        // would destroying a stream whose csvLines had not begun.
        csv.once('close', () => void slices.return?.()?.catch(() => undefined));
        return reply.send(csv);
      },
    );

    // Open sockets end with the app's close (the websocket server's preClose, src/api/server.ts).
    // A failed query or command is a bug or a store failure a client can repeat: one line a minute each.
    const failures = new WarningLimiter(deps.log, { level: 'error' });
    websocketRoute(app, '/timeseries/stream', {}, (ws) => serveStream(ws, deps, failures));
  };
}

function serveStream(ws: WebSocket, deps: TimeseriesDeps, failures: WarningLimiter): void {
  const streams = new Map<string, () => void>();
  let queries = 0;
  const send = (msg: unknown) => {
    if (ws.readyState !== ws.OPEN) return;
    const slow = deps.slow?.check(ws.bufferedAmount);
    if (!slow) return void ws.send(JSON.stringify(msg));
    // A client that does not read: closed with the reason, cut if it does not take the close frame.
    for (const id of [...streams.keys()]) stop(id);
    ws.close(1008, 'too slow: the client did not read what was sent');
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  };
  const stop = (id: string) => {
    streams.get(id)?.();
    streams.delete(id);
  };

  const startRanges = (id: string, q: RangesQuery) => {
    const tf = selectTimeframe(q, deps.now());
    let stopped = false;
    const wanted = new Set(q.fields);
    let unsubscribe: () => void = () => undefined;
    // Points arriving while the initial query runs are held back, then sent after it.
    let held: Array<{ field: string; t: number; v: number }> | null = [];
    const push = (points: ReadonlyArray<{ field: string; t: number; v: number }>) => {
      const byField = new Map<string, Array<[number, string]>>();
      // Only points in the window: one from before a start still ahead (a client's clock ahead of ours) is not in it.
      for (const p of points)
        if (wanted.has(p.field) && p.t >= tf.start)
          (byField.get(p.field) ?? byField.set(p.field, []).get(p.field)!).push([p.t / 1000, valueText(p.v)]);
      if (!byField.size) return;
      const ranges = q.fields
        .filter((f) => byField.has(f))
        .map((f) => ({ metric: { __name__: f }, values: byField.get(f)! }));
      send({ id, data: { initial: false, ranges } });
    };
    // Held: only the stream's own fields (its query may wait its turn behind others' while every
    // field of the controller and its peers comes in).
    const hold = (points: ReadonlyArray<{ field: string; t: number; v: number }>) => {
      for (const p of points) if (wanted.has(p.field)) held!.push(p);
    };
    if (tf.openEnded) unsubscribe = deps.ingest.onPoints((points) => (held ? hold(points) : push(points)));
    // A stream stopped (or its socket closed) before its query's turn came: the query is not done.
    const gone = new AbortController();
    streams.set(id, () => {
      stopped = true;
      unsubscribe();
      gone.abort(new Error('the stream was stopped'));
    });
    const queryEnd = tf.end ?? deps.now();
    queries++;
    deps.store
      .ranges(q.fields, tf.start, queryEnd, tf.step, gone.signal)
      .finally(() => queries--)
      .then(
        (ranges) => {
          if (stopped) return;
          send({ id, data: { initial: true, ranges } });
          const later = (held ?? []).filter((p) => p.t > queryEnd);
          held = null;
          if (later.length) push(later);
        },
        (e) => {
          // The store failed it: the client is told, as REST answers 503 (it would wait for ever).
          if (stopped) return;
          stop(id);
          send({ id, error: unavailable(e) });
        },
      )
      .catch((e) => failures.warn('ranges', { err: e }, 'history stream ranges query failed'));
  };

  const startMetrics = (id: string, q: { fields: string[]; duration: string | number }) => {
    const tick = () =>
      send({ id, data: { metrics: deps.ingest.metrics(q.fields, deps.now() - parseDuration(q.duration) * 1000) } });
    tick();
    const timer = setInterval(tick, deps.metricsIntervalMs ?? 10_000);
    streams.set(id, () => clearInterval(timer));
  };

  ws.on('message', (data, isBinary) => {
    // The app's websocket server takes frames up to the eventbus's limit; a command is small.
    const tooLarge = sizeProblem('the command', byteLength(data), HISTORY_STREAM_COMMAND_BYTES);
    if (tooLarge) return void ws.close(1009, tooLarge);
    const text = isBinary ? '' : data.toString();
    let sent: readonly SentNumber[] = [];
    try {
      const parsed = parseJson(text, { maxBytes: HISTORY_STREAM_COMMAND_BYTES, what: 'the command', sent: true });
      if (!parsed.ok) throw new QueryError(parsed.problem === 'not JSON' ? 'the command is not JSON' : parsed.reason);
      const msg = parsed.value;
      sent = sentNumbersOf(msg);
      if (msg === null || typeof msg !== 'object' || Array.isArray(msg))
        throw new QueryError('the command must be a JSON object {id, command, query}');
      const { id, command, query } = msg as Record<string, unknown>;
      const extra = Object.keys(msg).filter((k) => !['id', 'command', 'query'].includes(k));
      if (extra.length) throw new QueryError(`unknown member ${JSON.stringify(extra[0])}; allowed: id, command, query`);
      if (typeof id !== 'string' || id === '' || id.length > 200) throw new QueryError('id must be a non-empty string');
      if (command !== 'stop' && !streams.has(id) && streams.size >= 100)
        throw new QueryError('at most 100 streams on one socket; stop one first');
      if (command === 'ranges') {
        if (queries >= HISTORY_STREAM_QUERIES)
          throw new QueryError(`${queries} queries of this socket are running; wait for their answers`);
        const q = parseRangesQuery(query);
        selectTimeframe(q, deps.now());
        stop(id);
        startRanges(id, q);
      } else if (command === 'metrics') {
        const q = parseMetricsQuery(query);
        stop(id);
        startMetrics(id, q);
      } else if (command === 'stop') {
        stop(id);
      } else throw new QueryError(`command must be ranges, metrics or stop, got ${JSON.stringify(command)}`);
    } catch (e) {
      if (!(e instanceof QueryError)) failures.warn('command', { err: e }, 'history stream command failed');
      // A number JSON.parse rounded is quoted as the client sent it, as the routes' 422 does (api/errors.ts).
      const said = (e as Error).message;
      const path = e instanceof QueryError && e.field ? `query.${e.field}` : '';
      send({ error: quoteAsSent(said, [{ path, message: said }], sent).message, message: text });
    }
  });
  ws.on('close', () => {
    for (const id of [...streams.keys()]) stop(id);
  });
}
