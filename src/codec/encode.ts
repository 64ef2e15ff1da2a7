// Output encodings for the three read modes: default (typed objects), stored (only stored
// fields, enums as integers) and logged (only logged fields, quantities as postfixed keys).
import type { Field, FieldTable } from './fields.js';
import { fromInternal, userUnit, type UnitPrefs } from './units.js';

export type ReadMode = 'default' | 'stored' | 'logged';

export const OBJTYPE = '__objtype';
/** Brewblox clients (UI, history, automation) recognise typed objects only by this key, so both are written. */
export const BLOXTYPE = '__bloxtype';

export function encodeData(fields: FieldTable, data: Record<string, unknown>, mode: ReadMode, prefs: UnitPrefs): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (!included(field, mode)) continue;
    const value = data[name];
    if (value === undefined) continue; // an optional sub-object that is not set
    if (mode === 'logged') {
      if (field.spec.kind === 'link' || field.spec.kind === 'string' || field.spec.kind === 'address') continue;
      if (field.spec.kind === 'quantity') {
        out[`${name}[${userUnit(field.spec.unit, prefs)}]`] = value === null ? null : fromInternal(value as number, field.spec.unit, prefs);
        continue;
      }
    }
    out[name] = encodeValue(field, value, mode, prefs);
  }
  return out;
}

function included(field: Field, mode: ReadMode): boolean {
  if (mode === 'stored') return !!field.stored;
  if (mode === 'logged') return !!field.logged;
  return true;
}

function encodeValue(field: Field, value: unknown, mode: ReadMode, prefs: UnitPrefs): unknown {
  const s = field.spec;
  switch (s.kind) {
    case 'quantity': {
      const q: Record<string, unknown> = {
        [OBJTYPE]: 'Quantity',
        [BLOXTYPE]: 'Quantity',
        unit: userUnit(s.unit, prefs),
        value: value === null ? null : fromInternal(value as number, s.unit, prefs),
      };
      if (field.readonly) q.readonly = true;
      return q;
    }
    case 'link': {
      const l: Record<string, unknown> = { [OBJTYPE]: 'Link', [BLOXTYPE]: 'Link', type: s.iface, id: value ?? null };
      if (field.readonly) l.readonly = true;
      return l;
    }
    case 'enum':
      if (value === null) return null;
      return mode === 'default' ? value : s.values[value as string];
    case 'datetime':
      if (value === null) return null;
      return mode === 'logged' ? Math.floor(value as number) : isoSeconds(value as number);
    case 'object':
      return encodeData(s.fields, value as Record<string, unknown>, mode, prefs);
    case 'array':
      return (value as unknown[])
        .map((item) => (s.of.spec.kind === 'object' ? encodeData(s.of.spec.fields, item as Record<string, unknown>, mode, prefs) : encodeValue(s.of, item, mode, prefs)));
    case 'variant':
      return encodeData(s.fields, value as Record<string, unknown>, mode, prefs);
    case 'map':
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, item]) => [k, encodeValue(s.of, item, mode, prefs)]));
    default:
      return value;
  }
}

/** ISO-8601 UTC to the second with a Z suffix, from epoch seconds. */
export function isoSeconds(epochSeconds: number): string {
  return new Date(Math.floor(epochSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
