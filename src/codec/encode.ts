// Output encodings for the three read modes: default (typed objects), stored (only stored
// fields, enums as integers) and logged (only logged fields, quantities as postfixed keys).
import type { Field, FieldTable } from './fields.js';
import { fromInternal, userUnit, type UnitPrefs } from './units.js';

export type ReadMode = 'default' | 'stored' | 'logged';

export const OBJTYPE = '__objtype';
/** Brewblox clients (UI, history, automation) recognise typed objects only by this key, so both are written. */
export const BLOXTYPE = '__bloxtype';

export function encodeData(
  fields: FieldTable,
  data: Record<string, unknown>,
  mode: ReadMode,
  prefs: UnitPrefs,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of entriesOf(fields)) {
    if (!included(field, mode)) continue;
    const value = data[name];
    if (value === undefined) continue; // an optional sub-object that is not set
    if (mode === 'logged') {
      const key = loggedKey(name, field, prefs);
      if (key !== null) out[key] = loggedValue(field, value, prefs);
      continue;
    }
    out[name] = encodeValue(field, value, mode, prefs);
  }
  return out;
}

/** A field table's entries in order, each with its JSON key text as the first member and as a later one. */
type Entries = ReadonlyArray<readonly [name: string, field: Field, firstKey: string, laterKey: string]>;
const ENTRIES = new WeakMap<FieldTable, Entries>();

/** A table's fields in order, listed once per table (every read of every block walks them). */
export function entriesOf(fields: FieldTable): Entries {
  let entries = ENTRIES.get(fields);
  if (!entries)
    ENTRIES.set(
      fields,
      (entries = Object.entries(fields).map(
        ([name, field]) => [name, field, `${JSON.stringify(name)}:`, `,${JSON.stringify(name)}:`] as const,
      )),
    );
  return entries;
}

/** A field's key in logged mode (a quantity's carries its unit: `value[degC]`); null for a field the logged mode leaves out (not logged, links, text). */
export function loggedKey(name: string, field: Field, prefs: UnitPrefs): string | null {
  const kind = field.spec.kind;
  if (!included(field, 'logged') || kind === 'link' || kind === 'string' || kind === 'address') return null;
  return kind === 'quantity' ? `${name}[${userUnit(field.spec.unit, prefs)}]` : name;
}

/** A logged field's value: a quantity is its bare number in the user's unit. */
export function loggedValue(field: Field, value: unknown, prefs: UnitPrefs): unknown {
  const s = field.spec;
  if (s.kind !== 'quantity') return encodeValue(field, value, 'logged', prefs);
  return value === null ? null : fromInternal(value as number, s.unit, prefs);
}

/**
 * The default mode's JSON text written straight from the field table: the same text as
 * `JSON.stringify(encodeData(fields, data, 'default', prefs))` (a test holds the two equal for
 * every block type), without an object for every quantity and link on the way. Every block read
 * and the state message are made of it. The pieces are collected and joined once: a string
 * grown piece by piece costs more garbage than the objects it replaces.
 */
export function dataText(fields: FieldTable, data: Record<string, unknown>, prefs: UnitPrefs): string {
  const parts: string[] = [];
  writeData(parts, fields, data, prefs);
  return parts.join('');
}

/** Appends the default mode's JSON text of `data` to `parts` (see dataText). */
export function writeData(parts: string[], fields: FieldTable, data: Record<string, unknown>, prefs: UnitPrefs): void {
  let first = true;
  parts.push('{');
  for (const [name, field, firstKey, laterKey] of entriesOf(fields)) {
    const value = data[name];
    if (value === undefined) continue;
    parts.push(first ? firstKey : laterKey);
    first = false;
    writeValue(parts, field, value, prefs);
  }
  parts.push('}');
}

const QUANTITY_HEADS = new Map<string, string>();
const LINK_HEADS = new Map<string, string>();

function writeValue(parts: string[], field: Field, value: unknown, prefs: UnitPrefs): void {
  const s = field.spec;
  switch (s.kind) {
    case 'quantity': {
      const unit = userUnit(s.unit, prefs);
      let head = QUANTITY_HEADS.get(unit);
      if (head === undefined)
        QUANTITY_HEADS.set(
          unit,
          (head = `{"${OBJTYPE}":"Quantity","${BLOXTYPE}":"Quantity","unit":${JSON.stringify(unit)},"value":`),
        );
      parts.push(
        head,
        value === null || value === undefined ? 'null' : numberText(fromInternal(value as number, s.unit, prefs)),
        field.readonly ? ',"readonly":true}' : '}',
      );
      return;
    }
    case 'link': {
      let head = LINK_HEADS.get(s.iface);
      if (head === undefined)
        LINK_HEADS.set(
          s.iface,
          (head = `{"${OBJTYPE}":"Link","${BLOXTYPE}":"Link","type":${JSON.stringify(s.iface)},"id":`),
        );
      parts.push(
        head,
        value === null || value === undefined ? 'null' : JSON.stringify(value),
        field.readonly ? ',"readonly":true}' : '}',
      );
      return;
    }
    case 'object':
    case 'variant':
      writeData(parts, s.fields, value as Record<string, unknown>, prefs);
      return;
    case 'array': {
      const items = value as unknown[];
      parts.push('[');
      for (let i = 0; i < items.length; i++) {
        if (i) parts.push(',');
        if (items[i] === undefined) parts.push('null');
        else writeValue(parts, s.of, items[i], prefs);
      }
      parts.push(']');
      return;
    }
    case 'map':
    case 'datetime':
      parts.push(JSON.stringify(encodeValue(field, value, 'default', prefs)) ?? 'null');
      return;
    case 'bool':
      parts.push(value === true ? 'true' : value === false ? 'false' : (JSON.stringify(value) ?? 'null'));
      return;
    case 'string':
      parts.push(JSON.stringify(clipped(value, s.maxLength)) ?? 'null');
      return;
    default:
      parts.push(JSON.stringify(value) ?? 'null');
  }
}

function numberText(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
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
      return (value as unknown[]).map((item) =>
        s.of.spec.kind === 'object'
          ? encodeData(s.of.spec.fields, item as Record<string, unknown>, mode, prefs)
          : encodeValue(s.of, item, mode, prefs),
      );
    case 'variant':
      return encodeData(s.fields, value as Record<string, unknown>, mode, prefs);
    case 'map':
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, item]) => [k, encodeValue(s.of, item, mode, prefs)]),
      );
    case 'string':
      return clipped(value, s.maxLength);
    default:
      return value;
  }
}

/** ISO-8601 UTC to the second with a Z suffix, from epoch seconds. */
export function isoSeconds(epochSeconds: number): string {
  return new Date(Math.floor(epochSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * A text the runtime wrote itself (a message naming blocks, say) can outgrow its field; what is
 * encoded never does, so a stored record always decodes again at the next start and a read
 * always matches its schema. Input is checked against the same limit when it is decoded.
 */
function clipped(value: unknown, maxLength: number): unknown {
  if (typeof value !== 'string' || value.length <= maxLength) return value;
  let end = maxLength - 1;
  // Not between the two halves of a character outside the BMP.
  if (/[\uD800-\uDBFF]/.test(value[end - 1] ?? '')) end--;
  return `${value.slice(0, end)}\u2026`;
}
