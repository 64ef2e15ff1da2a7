// Durations, instants and the query window of Brewblox's timeseries API (reference §6.4, §7):
// a bare number of seconds or `<number><unit>` parts; start/end as ISO-8601 or Unix seconds
// (milliseconds above 10e10); at most two of start, end, duration; step = window / 1000, at
// least 10 s.

import { durationSeconds } from '../shared/duration.js';

export class QueryError extends Error {
  constructor(
    message: string,
    readonly status = 422,
    /** The member of the query at fault, when it is one. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Seconds of a duration text (src/shared/duration.ts); throws QueryError naming the text when it is not one. */
export function parseDuration(text: unknown, what = 'duration'): number {
  const d = durationSeconds(text);
  if (d.error !== undefined) throw new QueryError(`${what} ${d.error}`, 422, what);
  return d.seconds;
}

/** The instants a query may name, epoch ms: years 1 to 9999, as ISO-8601 dates (and Brewblox's, Python's datetime) have them. */
export const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
export const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** `t` (epoch ms), or a QueryError naming `what` when it is outside years 1 to 9999 (a Date cannot print it, a store cannot take it). */
function inRange(t: number, what: string, value: unknown, field = what): number {
  if (t >= FIRST_INSTANT && t <= LAST_INSTANT) return t;
  throw new QueryError(`${what} must be a date in the years 1 to 9999, got ${JSON.stringify(value)}`, 422, field);
}

/** Epoch milliseconds of an instant given as ISO-8601 text or Unix seconds (milliseconds above 10e10). */
export function parseInstant(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isFinite(value))
    return inRange(value > 10e10 ? value : value * 1000, what, value);
  if (typeof value === 'string' && value.trim() !== '') {
    const text = value.trim();
    const t = /^\d+(\.\d+)?$/.test(text) ? parseInstant(Number(text), what) : Date.parse(text);
    if (Number.isFinite(t)) return inRange(t, what, value);
  }
  throw new QueryError(`${what} must be an ISO-8601 date or Unix seconds, got ${JSON.stringify(value)}`, 422, what);
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

export function selectTimeframe(
  q: { start?: unknown; end?: unknown; duration?: unknown },
  now: number,
  minStep = MIN_STEP_S,
): Timeframe {
  const [s, d, e] = [given(q.start), given(q.duration), given(q.end)];
  if (s && d && e) throw new QueryError('At most two out of three timeframe arguments can be provided');
  const dur = () => parseDuration(q.duration) * 1000;
  let start: number;
  let end: number | null = null;
  if (s && d) {
    start = parseInstant(q.start, 'start');
    end = inRange(start + dur(), 'start + duration', `${q.start} + ${q.duration}`, 'duration');
  } else if (s && e) {
    start = parseInstant(q.start, 'start');
    end = parseInstant(q.end, 'end');
  } else if (d && e) {
    end = parseInstant(q.end, 'end');
    start = inRange(end - dur(), 'end - duration', `${q.end} - ${q.duration}`, 'duration');
  } else if (s) start = parseInstant(q.start, 'start');
  else if (d) start = now - dur();
  else if (e) {
    end = parseInstant(q.end, 'end');
    start = end - DEFAULT_WINDOW_S * 1000;
  } else start = now - DEFAULT_WINDOW_S * 1000;
  if (end !== null && start > end)
    throw new QueryError(`start (${new Date(start).toISOString()}) is after end (${new Date(end).toISOString()})`);
  const window = ((end ?? now) - start) / 1000;
  const step = Math.max(Math.floor(window / DESIRED_POINTS), minStep);
  return { start, end, step, openEnded: end === null };
}
