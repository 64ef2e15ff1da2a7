// The history message's rule for a block's logged data: numbers only. Booleans become 0/1; null,
// strings and non-finite numbers are left out at any depth. Arrays become objects keyed by item
// index ("0", "1", ...), the numeric path segments the history service would give list items
// when it flattens; containers left empty are dropped.
import { entriesOf, loggedKey, loggedValue } from './encode.js';
import type { FieldTable } from './fields.js';
import type { UnitPrefs } from './units.js';

export type NumericTree = { [key: string]: number | NumericTree };

export function numbersOnly(value: unknown): number | NumericTree | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === null || typeof value !== 'object') return undefined;
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value);
  const out: NumericTree = {};
  for (const [key, v] of entries) {
    const kept = numbersOnly(v);
    if (kept !== undefined) out[key] = kept;
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * `numbersOnly(encodeData(fields, data, 'logged', prefs))` read straight from the field table,
 * without the logged object on the way: the same fields, keys and values (a test holds the two equal for
 * every block type). Sub-objects are walked here; anything else goes through numbersOnly.
 */
export function loggedNumbers(
  fields: FieldTable,
  data: Record<string, unknown>,
  prefs: UnitPrefs,
): NumericTree | undefined {
  let out: NumericTree | undefined;
  for (const [name, field] of entriesOf(fields)) {
    const value = data[name];
    if (value === undefined) continue;
    const key = loggedKey(name, field, prefs);
    if (key === null) continue;
    const s = field.spec;
    const kept =
      s.kind === 'object' || s.kind === 'variant'
        ? loggedNumbers(s.fields, value as Record<string, unknown>, prefs)
        : numbersOnly(loggedValue(field, value, prefs));
    if (kept !== undefined) (out ??= {})[key] = kept;
  }
  return out;
}
