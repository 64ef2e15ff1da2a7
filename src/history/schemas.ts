// Schemas of the timeseries API: the route schemas in Swagger and the checks of query.ts.
import { Type } from '@sinclair/typebox';
import { DEFAULT_LIMITS } from './limits.js';

export const MAX_QUERY_FIELDS = 1000;
/** A stored field name is `<key>/<path>`, each at most maxNameLength: every one can be asked for. */
const MAX_FIELD_LENGTH = 2 * DEFAULT_LIMITS.maxNameLength + 1;

// The text of an instant or duration is parsed after the check (timeframe.ts); null counts as absent.
const instant = Type.Union(
  [
    Type.String({ description: 'ISO-8601 date-time (or Unix seconds as text)', examples: ['2024-05-01T12:00:00Z'] }),
    Type.Number({ description: 'Unix seconds (milliseconds above 10e10)' }),
    Type.Null(),
  ],
  {
    errorMessage: 'must be an ISO-8601 date or Unix seconds',
  },
);
const duration = Type.Union(
  [Type.String({ examples: ['1d', '2h30m', '90'] }), Type.Number({ description: 'seconds' }), Type.Null()],
  {
    errorMessage: 'must be a duration: text such as "1d" or "2h30m", or seconds',
  },
);
/**
 * Text without half of a surrogate pair (an emoji cut in two): no stored field has one (history
 * leaves such names out, flatten.ts), and VictoriaMetrics' URL form cannot spell one.
 */
const WHOLE_CHARACTERS = '^(?:[^\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$';
const fieldName = Type.String({
  minLength: 1,
  maxLength: MAX_FIELD_LENGTH,
  pattern: WHOLE_CHARACTERS,
  description: 'a field name',
  errorMessage: 'must be a non-empty string without half of a surrogate pair (an emoji cut in two; no field has one)',
});
const fields = Type.Array(fieldName, {
  maxItems: MAX_QUERY_FIELDS,
  examples: [['edge-one/sensor-1/value[degC]']],
});

export const timeseriesSchemas = {
  pong: Type.Object({ ping: Type.Literal('pong') }),
  fieldsQuery: Type.Object({ duration: Type.Optional(duration) }, { additionalProperties: false }),
  fieldNames: Type.Array(Type.String(), { description: 'sorted field names with data within the duration' }),
  rangesQuery: Type.Object(
    { fields, start: Type.Optional(instant), end: Type.Optional(instant), duration: Type.Optional(duration) },
    {
      additionalProperties: false,
      description:
        'At most two of start, end and duration. None: the last day; start: start..now; duration: now-duration..now; end: end-1d..end.',
    },
  ),
  ranges: Type.Array(
    Type.Object({
      metric: Type.Object({ __name__: Type.String() }),
      values: Type.Array(
        Type.Tuple([
          Type.Number({ description: 'Unix seconds' }),
          Type.String({ description: 'average over the step' }),
        ]),
      ),
    }),
  ),
  metricsQuery: Type.Object({ fields, duration: Type.Optional(duration) }, { additionalProperties: false }),
  metrics: Type.Array(
    Type.Object({ metric: Type.String(), value: Type.Number(), timestamp: Type.String({ format: 'date-time' }) }),
  ),
  csvQuery: Type.Object(
    {
      fields,
      precision: Type.Union([Type.Literal('ns'), Type.Literal('ms'), Type.Literal('s'), Type.Literal('ISO8601')]),
      start: Type.Optional(instant),
      end: Type.Optional(instant),
      duration: Type.Optional(duration),
    },
    { additionalProperties: false },
  ),
  csv: Type.String({
    description: 'text/plain: a "time,<field>,..." header, then one line per timestamp (raw points)',
  }),
};
