// Checking timeseries query bodies (route schemas are documentation only, as elsewhere in the
// API): each problem is a 422 naming it.
import { QueryError, parseDuration } from './timeframe.js';

export const MAX_QUERY_FIELDS = 1000;
const MAX_FIELD_LENGTH = 500;

export interface RangesQuery {
  fields: string[];
  start?: string | number;
  end?: string | number;
  duration?: string | number;
}

function objectBody(body: unknown, what: string): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new QueryError(`${what} must be a JSON object`);
  return body as Record<string, unknown>;
}

function onlyKnown(body: Record<string, unknown>, known: string[]): void {
  const unknown = Object.keys(body).filter((k) => !known.includes(k));
  if (unknown.length) throw new QueryError(`unknown member${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')}; allowed: ${known.join(', ')}`);
}

function fieldList(value: unknown): string[] {
  if (value === undefined) throw new QueryError('fields is required: a list of field names');
  if (!Array.isArray(value)) throw new QueryError('fields must be a list of field names');
  if (value.length > MAX_QUERY_FIELDS) throw new QueryError(`fields lists ${value.length} names; at most ${MAX_QUERY_FIELDS} per query`);
  value.forEach((f, i) => {
    if (typeof f !== 'string' || f === '' || f.length > MAX_FIELD_LENGTH) throw new QueryError(`fields[${i}] must be a field name (1-${MAX_FIELD_LENGTH} characters)`);
  });
  return value as string[];
}

function instant(value: unknown, what: string): string | number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') throw new QueryError(`${what} must be an ISO-8601 date or Unix seconds`);
  return value;
}

function duration(value: unknown): string | number | undefined {
  if (value === undefined || value === null) return undefined;
  parseDuration(value);
  return value as string | number;
}

export function parseFieldsQuery(body: unknown): { duration: string | number } {
  const b = body === undefined ? {} : objectBody(body, 'the body');
  onlyKnown(b, ['duration']);
  return { duration: duration(b.duration) ?? '1d' };
}

export function parseRangesQuery(body: unknown, extra: string[] = []): RangesQuery {
  const b = objectBody(body, 'the query');
  onlyKnown(b, ['fields', 'start', 'end', 'duration', ...extra]);
  return { fields: fieldList(b.fields), start: instant(b.start, 'start'), end: instant(b.end, 'end'), duration: duration(b.duration) };
}

export type Precision = 'ns' | 'ms' | 's' | 'ISO8601';

export function parseCsvQuery(body: unknown): RangesQuery & { precision: Precision } {
  const q = parseRangesQuery(body, ['precision']);
  const precision = (body as Record<string, unknown>).precision;
  if (precision !== 'ns' && precision !== 'ms' && precision !== 's' && precision !== 'ISO8601') throw new QueryError(`precision must be one of ns, ms, s, ISO8601, got ${JSON.stringify(precision)}`);
  return { ...q, precision };
}

export function parseMetricsQuery(body: unknown): { fields: string[]; duration: string | number } {
  const b = objectBody(body, 'the query');
  onlyKnown(b, ['fields', 'duration']);
  return { fields: fieldList(b.fields), duration: duration(b.duration) ?? '10m' };
}

export function formatTime(t: number, precision: Precision): string {
  switch (precision) {
    case 'ns':
      return `${Math.round(t)}000000`;
    case 'ms':
      return String(Math.round(t));
    case 's':
      return String(Math.floor(t / 1000));
    case 'ISO8601': {
      const iso = new Date(t).toISOString();
      const ms = Math.round(t) % 1000;
      return ms === 0 ? iso.replace(/\.\d{3}Z$/, 'Z') : iso.replace(/\.(\d{3})Z$/, '.$1000Z');
    }
  }
}
