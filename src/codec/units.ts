// The units of quantity fields: the conversion table (unit-conversion.ts, shared with the
// dashboard) and the schemas of the user's preference.
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { TempUnit } from './unit-conversion.js';

export * from './unit-conversion.js';

/** The temperature units of TempUnit (unit-conversion.ts), as a schema. */
export const TempUnitSchema = Type.Union([Type.Literal('degC'), Type.Literal('degF')], {
  description: 'temperatures in degC or degF',
});

/** The units document ({namespace: <service id> or brewblox-global, id: "units", temperature}). */
export const UnitsDocumentSchema = Type.Object({ temperature: Type.Optional(TempUnitSchema) });

export function isTempUnit(v: unknown): v is TempUnit {
  return Value.Check(TempUnitSchema, v);
}
