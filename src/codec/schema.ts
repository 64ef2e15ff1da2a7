// JSON schemas (TypeBox) derived from the field tables, for the Swagger documentation.
import { Type, type TSchema } from '@sinclair/typebox';
import type { Field, FieldTable } from './fields.js';
import type { LegacyTable } from './legacy.js';
import { userUnit, DEFAULT_UNITS } from './units.js';

/** `range`: the field's minimum and maximum in the controller's units (°C, seconds). */
const quantityOut = (unit: string, range: { minimum?: number; maximum?: number } = {}) =>
  Type.Object({
    __objtype: Type.Literal('Quantity'),
    __bloxtype: Type.Literal('Quantity'),
    unit: Type.String({ examples: [unit] }),
    value: Type.Union([Type.Number(range), Type.Null()]),
    readonly: Type.Optional(Type.Boolean()),
  });

/**
 * What a client may rely on without reading the description: `readOnly` (computed, ignored on
 * input) and `x-unit` (a quantity's unit in the default unit preferences).
 */
function annotations(field: Field): { readOnly?: true; 'x-unit'?: string } {
  return {
    ...(field.readonly ? { readOnly: true as const } : {}),
    ...(field.spec.kind === 'quantity' ? { 'x-unit': userUnit(field.spec.unit, DEFAULT_UNITS) } : {}),
  };
}

function fieldSchema(field: Field): TSchema {
  const s = field.spec;
  const meta = { description: describeFlags(field), ...annotations(field) };
  switch (s.kind) {
    case 'bool':
      return Type.Union([Type.Boolean(), Type.Null()], meta);
    case 'number':
      return Type.Union([s.integer ? Type.Integer() : Type.Number(), Type.Null()], meta);
    case 'quantity': {
      const range = {
        ...(s.min !== undefined ? { minimum: s.min } : {}),
        ...(s.max !== undefined ? { maximum: s.max } : {}),
      };
      return Type.Union([quantityOut(userUnit(s.unit, DEFAULT_UNITS), range), Type.Number(range)], meta);
    }
    case 'enum':
      return Type.Union(
        [Type.Union(Object.keys(s.values).map((k) => Type.Literal(k))), Type.Integer(), Type.Null()],
        meta,
      );
    case 'string':
      return Type.String({ ...meta, maxLength: s.maxLength });
    case 'address':
      return Type.String({ ...meta, pattern: '^[0-9a-f]{16}$' });
    case 'datetime':
      return Type.Union([Type.String({ format: 'date-time' }), Type.Integer(), Type.Null()], meta);
    case 'link':
      return Type.Object(
        {
          __objtype: Type.Literal('Link'),
          __bloxtype: Type.Literal('Link'),
          type: Type.Literal(s.iface),
          id: Type.Union([Type.String(), Type.Null()]),
        },
        meta,
      );
    case 'object':
      return dataSchema(s.fields, meta);
    case 'array':
      return Type.Array(fieldSchema(s.of), { ...meta, maxItems: s.maxItems });
    case 'map':
      return Type.Record(Type.String({ pattern: s.keyPattern.source }), fieldSchema(s.of), {
        ...meta,
        maxProperties: s.maxItems,
      });
    case 'variant':
      return dataSchema(s.fields, meta);
  }
}

function describeFlags(field: Field): string {
  const flags = [field.readonly && 'read-only', field.logged && 'logged', field.stored && 'stored']
    .filter(Boolean)
    .join(', ');
  const unit = field.spec.kind === 'quantity' ? `unit: ${userUnit(field.spec.unit, DEFAULT_UNITS)}` : '';
  const link = field.spec.kind === 'link' ? `link to ${field.spec.iface}` : '';
  return [field.description, unit, link, flags].filter(Boolean).join('; ');
}

export function dataSchema(
  fields: FieldTable,
  options: { description?: string; readOnly?: true } = {},
  legacy?: LegacyTable,
): TSchema {
  const props: Record<string, TSchema> = {};
  for (const [name, field] of Object.entries(fields)) props[name] = Type.Optional(fieldSchema(field));
  for (const [name, rule] of Object.entries(legacy ?? {})) {
    if (name in props) continue;
    const what =
      rule.kind === 'unsupported'
        ? 'not supported here; only its neutral value (false, 0, null) is accepted'
        : `legacy, ${rule.kind === 'ignore' ? 'accepted and ignored' : 'accepted'}`;
    props[name] = Type.Optional(Type.Unknown({ deprecated: true, description: `${what}: ${rule.note}` }));
  }
  return Type.Object(props, { ...options, additionalProperties: true });
}
