// Checking timeseries query bodies against the route schemas of src/history/schemas.ts (Fastify's
// validator is off, as elsewhere in the API), worded by drivers/schema-check.ts: the first
// problem is a 422 naming it. What a schema cannot say (a duration's text) is parsed after.
import type { Static, TSchema } from '@sinclair/typebox';
import { checkAgainst } from '../../drivers/schema-check.js';
import { QueryError, parseDuration } from './timeframe.js';
import { MAX_QUERY_FIELDS, timeseriesSchemas as s } from './schemas.js';

export { MAX_QUERY_FIELDS };

export interface RangesQuery {
  fields: string[];
  start?: string | number;
  end?: string | number;
  duration?: string | number;
}

function checked<S extends TSchema>(schema: S, body: unknown, what: string): Static<S> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new QueryError(`${what} must be a JSON object`);
  const result = checkAgainst<Static<S>>(schema, body);
  if (!result.issue) return result.value;
  const { path, message, unknownKey } = result.issue;
  throw new QueryError(unknownKey ? `unknown member ${JSON.stringify(path)} (${message})` : `${path} ${message}`);
}

/** An optional duration (null counts as absent), its text checked. */
function duration(value: string | number | null | undefined): string | number | undefined {
  if (value === undefined || value === null) return undefined;
  parseDuration(value);
  return value;
}

export function parseFieldsQuery(body: unknown): { duration: string | number } {
  const b = checked(s.fieldsQuery, body ?? {}, 'the body');
  return { duration: duration(b.duration) ?? '1d' };
}

function rangesOf(b: Static<typeof s.rangesQuery>): RangesQuery {
  return { fields: b.fields, start: b.start ?? undefined, end: b.end ?? undefined, duration: duration(b.duration) };
}

export function parseRangesQuery(body: unknown): RangesQuery {
  return rangesOf(checked(s.rangesQuery, body, 'the query'));
}

export type Precision = Static<typeof s.csvQuery>['precision'];

export function parseCsvQuery(body: unknown): RangesQuery & { precision: Precision } {
  const b = checked(s.csvQuery, body, 'the query');
  return { ...rangesOf(b), precision: b.precision };
}

export function parseMetricsQuery(body: unknown): { fields: string[]; duration: string | number } {
  const b = checked(s.metricsQuery, body, 'the query');
  return { fields: b.fields, duration: duration(b.duration) ?? '10m' };
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
