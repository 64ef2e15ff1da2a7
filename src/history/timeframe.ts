// Durations, instants and the query window of Brewblox's timeseries API (reference §6.4, §7):
// a bare number of seconds or `<number><unit>` parts; start/end as ISO-8601 or Unix seconds
// (milliseconds above 10e10); at most two of start, end, duration; step = window / 1000, at
// least 10 s.

export class QueryError extends Error {
  constructor(
    message: string,
    readonly status = 422,
  ) {
    super(message);
  }
}

const UNIT_SECONDS: Record<string, number> = {
  s: 1, sec: 1, secs: 1, second: 1, seconds: 1,
  m: 60, min: 60, mins: 60, minute: 60, minutes: 60,
  h: 3600, hr: 3600, hrs: 3600, hour: 3600, hours: 3600,
  d: 86400, day: 86400, days: 86400,
  w: 604800, wk: 604800, wks: 604800, week: 604800, weeks: 604800,
};
const PART = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-z]+)\s*,?/i;

/** Seconds of a duration text; throws QueryError naming the text when it is not one. */
export function parseDuration(text: unknown, what = 'duration'): number {
  if (typeof text === 'number' && Number.isFinite(text) && text >= 0) return text;
  if (typeof text !== 'string') throw new QueryError(`${what} must be a string like "1d" or "2h30m", got ${JSON.stringify(text)}`);
  const bare = text.trim();
  if (/^\d+(\.\d+)?$/.test(bare)) return Number(bare);
  let rest = bare;
  let total = 0;
  let parts = 0;
  while (rest.length) {
    const m = PART.exec(rest);
    const unit = m ? UNIT_SECONDS[m[2]!.toLowerCase()] : undefined;
    if (!m || unit === undefined) throw new QueryError(`${what} ${JSON.stringify(text)} is not a duration: use numbers with s, m, h, d or w (e.g. "1d", "2h30m", "90")`);
    total += Number(m[1]) * unit;
    rest = rest.slice(m[0].length).trimStart();
    parts++;
  }
  if (!parts) throw new QueryError(`${what} is empty`);
  if (total > 20 * 365 * 86400) throw new QueryError(`${what} ${JSON.stringify(text)} is longer than 20 years`);
  return total;
}

/** Epoch milliseconds of an instant given as ISO-8601 text or Unix seconds (milliseconds above 10e10). */
export function parseInstant(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value > 10e10 ? value : value * 1000;
  if (typeof value === 'string' && value.trim() !== '') {
    const text = value.trim();
    const t = /^\d+(\.\d+)?$/.test(text) ? parseInstant(Number(text), what) : Date.parse(text);
    if (Number.isFinite(t)) return t;
  }
  throw new QueryError(`${what} must be an ISO-8601 date or Unix seconds, got ${JSON.stringify(value)}`);
}

export interface Timeframe {
  start: number;
  /** Epoch ms; null when open-ended (up to now). */
  end: number | null;
  /** Seconds. */
  step: number;
  openEnded: boolean;
}

export const DEFAULT_WINDOW_S = 86400;
export const DESIRED_POINTS = 1000;
export const MIN_STEP_S = 10;

const given = (v: unknown) => v !== undefined && v !== null && v !== '';

export function selectTimeframe(q: { start?: unknown; end?: unknown; duration?: unknown }, now: number, minStep = MIN_STEP_S): Timeframe {
  const [s, d, e] = [given(q.start), given(q.duration), given(q.end)];
  if (s && d && e) throw new QueryError('At most two out of three timeframe arguments can be provided');
  const dur = () => parseDuration(q.duration) * 1000;
  let start: number;
  let end: number | null = null;
  if (s && d) {
    start = parseInstant(q.start, 'start');
    end = start + dur();
  } else if (s && e) {
    start = parseInstant(q.start, 'start');
    end = parseInstant(q.end, 'end');
  } else if (d && e) {
    end = parseInstant(q.end, 'end');
    start = end - dur();
  } else if (s) start = parseInstant(q.start, 'start');
  else if (d) start = now - dur();
  else if (e) {
    end = parseInstant(q.end, 'end');
    start = end - DEFAULT_WINDOW_S * 1000;
  } else start = now - DEFAULT_WINDOW_S * 1000;
  if (end !== null && start > end) throw new QueryError(`start (${new Date(start).toISOString()}) is after end (${new Date(end).toISOString()})`);
  const window = ((end ?? now) - start) / 1000;
  const step = Math.max(Math.floor(window / DESIRED_POINTS), minStep);
  return { start, end, step, openEnded: end === null };
}
