// Swagger documentation of the timeseries API (validation is done by query.ts).
import { Type } from '@sinclair/typebox';

const instant = Type.Union([Type.String({ format: 'date-time' }), Type.Number({ description: 'Unix seconds (milliseconds above 10e10)' })]);
const duration = Type.Union([Type.String({ examples: ['1d', '2h30m', '90'] }), Type.Number({ description: 'seconds' })]);
const fields = Type.Array(Type.String(), { maxItems: 1000, examples: [['edge-one/sensor-1/value[degC]']] });

export const timeseriesSchemas = {
  pong: Type.Object({ ping: Type.Literal('pong') }),
  fieldsQuery: Type.Object({ duration: Type.Optional(duration) }, { additionalProperties: false }),
  fieldNames: Type.Array(Type.String(), { description: 'sorted field names with data within the duration' }),
  rangesQuery: Type.Object(
    { fields, start: Type.Optional(instant), end: Type.Optional(instant), duration: Type.Optional(duration) },
    { additionalProperties: false, description: 'At most two of start, end and duration. None: the last day; start: start..now; duration: now-duration..now; end: end-1d..end.' },
  ),
  ranges: Type.Array(
    Type.Object({
      metric: Type.Object({ __name__: Type.String() }),
      values: Type.Array(Type.Tuple([Type.Number({ description: 'Unix seconds' }), Type.String({ description: 'average over the step' })])),
    }),
  ),
  metricsQuery: Type.Object({ fields, duration: Type.Optional(duration) }, { additionalProperties: false }),
  metrics: Type.Array(Type.Object({ metric: Type.String(), value: Type.Number(), timestamp: Type.String({ format: 'date-time' }) })),
  csvQuery: Type.Object(
    { fields, precision: Type.Union([Type.Literal('ns'), Type.Literal('ms'), Type.Literal('s'), Type.Literal('ISO8601')]), start: Type.Optional(instant), end: Type.Optional(instant), duration: Type.Optional(duration) },
    { additionalProperties: false },
  ),
  csv: Type.String({ description: 'text/plain: a "time,<field>,..." header, then one line per timestamp (raw points)' }),
};
