// Timeseries query bodies after their check against the route schemas of src/history/schemas.ts
// (fastify checks the routes' bodies; the websocket's commands go through the same check here):
// nulls count as absent, and what a schema cannot say (a duration's text) is parsed here.
import type { Static, TSchema } from '@sinclair/typebox';
import { inputIssues } from '../api/route-validation.js';
import { issuesText } from '../shared/json.js';
import { QueryError, parseDuration } from './timeframe.js';
import { MAX_QUERY_FIELDS, timeseriesSchemas as s } from './schemas.js';

export { MAX_QUERY_FIELDS };

export interface RangesQuery {
  fields: string[];
  start?: string | number;
  end?: string | number;
  duration?: string | number;
}

export type FieldsBody = Static<typeof s.fieldsQuery>;
export type RangesBody = Static<typeof s.rangesQuery>;
export type CsvBody = Static<typeof s.csvQuery>;
export type MetricsBody = Static<typeof s.metricsQuery>;

/** An optional duration (null counts as absent), its text checked. */
function duration(value: string | number | null | undefined): string | number | undefined {
  if (value === undefined || value === null) return undefined;
  parseDuration(value);
  return value;
}

export function fieldsQueryOf(b: FieldsBody): { duration: string | number } {
  return { duration: duration(b.duration) ?? '1d' };
}

export function rangesQueryOf(b: RangesBody): RangesQuery {
  return { fields: b.fields, start: b.start ?? undefined, end: b.end ?? undefined, duration: duration(b.duration) };
}

export type Precision = CsvBody['precision'];

export function csvQueryOf(b: CsvBody): RangesQuery & { precision: Precision } {
  return { ...rangesQueryOf(b), precision: b.precision };
}

export function metricsQueryOf(b: MetricsBody): { fields: string[]; duration: string | number } {
  return { fields: b.fields, duration: duration(b.duration) ?? '10m' };
}

/** A websocket command's query, checked as the route of the same name checks its body. */
function checked<S extends TSchema>(schema: S, query: unknown): Static<S> {
  const issues = inputIssues(schema, query);
  if (issues.length) throw new QueryError(`invalid query: ${issuesText(issues)}`);
  return query as Static<S>;
}

export const parseRangesQuery = (query: unknown): RangesQuery => rangesQueryOf(checked(s.rangesQuery, query));
export const parseMetricsQuery = (query: unknown) => metricsQueryOf(checked(s.metricsQuery, query));

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
