// Input decoding: typed objects (__objtype or __bloxtype), bare numbers in the user's unit,
// postfixed keys `name[unit]` and `name<>`, enums by name or number. Produces a partial tree
// in internal units, where RESET marks an explicit null (reset to default / remove sub-object).
import { ABSOLUTE_ZERO_C, defaultValue, type Field, type FieldSpec, type FieldTable } from './fields.js';
import { complete } from './apply.js';
import { isPlainObject, RESET, type Partial, type ValidationIssue } from './partial.js';
import { TOO_LARGE_FOR_JSON, TOO_LARGE_NUMBER, unholdable } from '../../drivers/json-number.js';
import { quotedText } from '../../drivers/quoted-text.js';
import {
  fromInternal,
  numberWithUnit,
  sameUnit,
  toInternal,
  UnitError,
  unitKind,
  unitSymbol,
  userUnit,
  type UnitKind,
  type UnitPrefs,
} from './units.js';

/** Largest magnitude of any number in block data (internal units): far beyond any real setting. */
export const MAX_MAGNITUDE = 1e9;

export interface DecodeContext {
  prefs: UnitPrefs;
  /** Returns an error message when `id` cannot be linked from the field at `path` of interface `iface`. */
  checkLink(id: string, iface: string, path: string): string | null;
  /**
   * Decoding the block's own record: read-only fields that are stored (what the block itself
   * keeps across a restart, such as a tuning's result) are read too. Clients never set them.
   */
  owned?: boolean;
}

const TYPE_KEYS = ['__objtype', '__bloxtype'] as const;

export function decodeData(
  fields: FieldTable,
  input: unknown,
  ctx: DecodeContext,
  path = 'data',
): { value: Partial; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const value = decodeObject(fields, input, ctx, path, issues);
  return { value, issues };
}

function decodeObject(
  fields: FieldTable,
  input: unknown,
  ctx: DecodeContext,
  path: string,
  issues: ValidationIssue[],
): Partial {
  const out: Partial = {};
  if (!isPlainObject(input)) {
    issues.push({ path, message: `must be an object, got ${describe(input)}` });
    return out;
  }
  for (const [rawKey, raw] of Object.entries(input)) {
    const { name, unit, link } = parseKey(rawKey);
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    const fieldPath = `${path}.${name}`;
    if (!field) {
      // The key cut short in the path too: a body may be a megabyte of one key.
      const named = quotedText(rawKey);
      issues.push({
        path: `${path}.${named}`,
        message: `unknown field '${named}'; known fields: ${Object.keys(fields).join(', ')}`,
        dropped: true,
      });
      continue;
    }
    if (field.readonly && !(ctx.owned && field.stored)) continue;
    if (unit !== undefined && field.spec.kind !== 'quantity') {
      issues.push({ path: fieldPath, message: `'${name}' is not a quantity and takes no unit` });
      continue;
    }
    if (link && field.spec.kind !== 'link') {
      issues.push({ path: fieldPath, message: `'${name}' is not a link` });
      continue;
    }
    if (raw === null) {
      out[name] = RESET;
      continue;
    }
    const v = decodeValue(field, raw, ctx, fieldPath, issues, { unit, link });
    if (v !== undefined) out[name] = v;
  }
  return out;
}

interface KeyHints {
  unit?: string;
  link?: boolean;
  /** An item of a list or a named map: it has no key of its own to carry a unit or a `<>`. */
  item?: boolean;
}

export function parseKey(key: string): { name: string } & KeyHints {
  const unit = /^([^[\]<>]+)\[([^\]]+)\]$/.exec(key);
  if (unit) return { name: unit[1]!, unit: unit[2]! };
  const link = /^([^[\]<>]+)<[^>]*>$/.exec(key);
  if (link) return { name: link[1]!, link: true };
  return { name: key };
}

function decodeValue(
  field: Field,
  raw: unknown,
  ctx: DecodeContext,
  path: string,
  issues: ValidationIssue[],
  hints: KeyHints,
): unknown {
  const s = field.spec;
  const fail = (message: string) => {
    issues.push({ path, message });
    return undefined;
  };
  if (unholdable(raw)) return fail(TOO_LARGE_FOR_JSON);
  switch (s.kind) {
    case 'bool':
      if (typeof raw === 'boolean') return raw;
      return fail(`must be true or false, got ${describe(raw)}`);
    case 'number': {
      if (typeof raw !== 'number') return fail(`must be a number, got ${describe(raw)}`);
      // takesValue decides (the one rule); the messages say which part of it failed.
      if (takesValue(s, raw)) return raw;
      if (!Number.isFinite(raw)) return fail(`must be a number, got ${describe(raw)}`);
      if (s.integer && !Number.isInteger(raw)) return fail(`must be a whole number, got ${raw}`);
      // The field's own range first: it is what the user can act on, the bound of all numbers only past it.
      if (s.min !== undefined && raw < s.min) return fail(`must be at least ${s.min}, got ${raw}`);
      if (s.max !== undefined && raw > s.max) return fail(`must be at most ${s.max}, got ${raw}`);
      return fail(`must be between -${MAX_MAGNITUDE} and ${MAX_MAGNITUDE}, got ${raw}`);
    }
    case 'quantity': {
      let value: unknown = raw;
      let unit = hints.unit;
      if (isPlainObject(raw)) {
        const marker = typeMarker(raw);
        if (marker !== undefined && marker !== 'Quantity')
          return fail(`expected a Quantity, got a ${quotedText(String(marker))}`);
        value = raw.value;
        if (raw.unit !== undefined && raw.unit !== null) {
          if (typeof raw.unit !== 'string') return fail(`unit must be a string, got ${describe(raw.unit)}`);
          unit = raw.unit;
        }
        if (value === null || value === undefined) return RESET;
        if (unholdable(value)) return fail(TOO_LARGE_FOR_JSON);
      }
      if (typeof value !== 'number' || !Number.isFinite(value))
        return fail(
          `must be a number or a Quantity, got ${describe(raw)}${writtenWithUnit(raw, path, s.unit, hints.item)}`,
        );
      try {
        const n = toInternal(value, s.unit, ctx.prefs, unit);
        if (takesValue(s, n)) return n;
        const got = `got ${value}${unit ? ` ${unit}` : ` ${unitSymbol(userUnit(s.unit, ctx.prefs))}`}`;
        // The field's own range first (a setpoint's -40..150 °C), the bound of all numbers only past it.
        const range = Number.isNaN(n) ? null : outOfRange(s, n, ctx.prefs);
        return fail(range ? `${range}, ${got}` : `is out of range, ${got}`);
      } catch (e) {
        // The unit as sent (a key's or a Quantity's) cut short, as every quoted name.
        if (e instanceof UnitError)
          return fail(unit ? e.message.split(`'${unit}'`).join(`'${quotedText(unit)}'`) : e.message);
        throw e;
      }
    }
    case 'enum': {
      if (typeof raw === 'string' && Object.hasOwn(s.values, raw)) return raw;
      if (typeof raw === 'string' && s.aliases && Object.hasOwn(s.aliases, raw)) return s.aliases[raw];
      if (typeof raw === 'number') {
        const name = Object.keys(s.values).find((k) => s.values[k] === raw);
        if (name) return name;
      }
      return fail(`must be one of ${Object.keys(s.values).join(', ')} (or their numbers), got ${describe(raw)}`);
    }
    case 'string':
      if (typeof raw !== 'string') return fail(`must be a string, got ${describe(raw)}`);
      if (raw.length > s.maxLength) return fail(`must be at most ${s.maxLength} characters, got ${raw.length}`);
      return raw;
    case 'address': {
      if (raw === '') return RESET; // "not yet bound", as Brewblox clients send it
      if (typeof raw !== 'string' || !/^[0-9a-fA-F]{1,16}$/.test(raw))
        return fail(`must be a hex address of up to 16 digits, got ${describe(raw)}`);
      return raw.toLowerCase().padEnd(16, '0');
    }
    case 'datetime':
      // 0 is no time, as Brewblox sends and shows it (its protobuf has no null).
      if (raw === 0 || raw === '') return RESET;
      return (
        decodeDatetime(raw) ?? fail(`must be an ISO-8601 date or epoch seconds/milliseconds, got ${describe(raw)}`)
      );
    case 'link': {
      let id: unknown = raw;
      if (isPlainObject(raw)) {
        const marker = typeMarker(raw);
        if (marker !== undefined && marker !== 'Link')
          return fail(`expected a Link, got a ${quotedText(String(marker))}`);
        id = raw.id;
        if (id === null || id === undefined || id === 0 || id === '') return RESET;
      } else if (!hints.link) {
        return fail(
          `a link takes {"__objtype":"Link","id":"<block id>"}${hints.item ? '' : ` or the key '${path.split('.').pop()}<>'`}`,
        );
      }
      // Brewblox clients send 0 (the old "no block" nid) or '' for an unset link.
      if (id === 0 || id === '') return RESET;
      if (typeof id === 'number' && Number.isInteger(id)) id = String(id);
      if (typeof id !== 'string' || id === '') return fail(`link id must be a block id string, got ${describe(id)}`);
      const problem = ctx.checkLink(id, s.iface, path);
      return problem ? fail(problem) : id;
    }
    case 'object':
      if (!isPlainObject(raw)) return fail(`must be an object, got ${describe(raw)}`);
      return decodeObject(s.fields, raw, ctx, path, issues);
    case 'array': {
      if (!Array.isArray(raw)) return fail(`must be an array, got ${describe(raw)}`);
      if (raw.length > s.maxItems) return fail(`must have at most ${s.maxItems} items, got ${raw.length}`);
      const items = raw.map((item, i) => {
        const itemPath = `${path}.${i}`;
        if (item === null) return issues.push({ path: itemPath, message: 'must not be null' }) && undefined;
        const v = decodeValue(s.of, item, ctx, itemPath, issues, { item: true, link: s.of.spec.kind === 'link' });
        // Refused (the issue names the item): nothing to complete.
        if (v === undefined) return undefined;
        return v === RESET
          ? defaultValue(s.of)
          : s.of.spec.kind === 'object'
            ? complete(s.of.spec.fields, v as Partial)
            : v;
      });
      return items;
    }
    case 'map': {
      if (!isPlainObject(raw)) return fail(`must be an object of named entries, got ${describe(raw)}`);
      const entries = Object.entries(raw);
      if (entries.length > s.maxItems) return fail(`must have at most ${s.maxItems} entries, got ${entries.length}`);
      const out: Record<string, unknown> = {};
      for (const [key, item] of entries) {
        const itemPath = `${path}.${key}`;
        if (!s.keyPattern.test(key)) {
          const named = quotedText(key);
          issues.push({ path: `${path}.${named}`, message: `invalid name '${named}': ${s.keyHint}` });
          continue;
        }
        if (item === null) {
          out[key] = RESET;
          continue;
        }
        const v = decodeValue(s.of, item, ctx, itemPath, issues, { item: true });
        if (v !== undefined)
          out[key] =
            v === RESET
              ? defaultValue(s.of)
              : s.of.spec.kind === 'object'
                ? complete(s.of.spec.fields, v as Partial)
                : v;
      }
      return out;
    }
    case 'variant': {
      if (!isPlainObject(raw))
        return fail(`must be an object with one of ${Object.keys(s.fields).join(', ')}, got ${describe(raw)}`);
      const keys = Object.keys(raw);
      if (keys.length !== 1)
        return fail(
          `must have exactly one of ${Object.keys(s.fields).join(', ')}, got ${keys.length ? keys.join(', ') : 'none'}`,
        );
      const v = decodeObject(s.fields, raw, ctx, path, issues);
      const k = keys[0]!;
      if (v[k] === RESET) return fail(`'${k}' must not be null`);
      return v[k] === undefined ? undefined : v;
    }
  }
}

/**
 * Whether an internal value is one a number or quantity field takes: finite, within MAX_MAGNITUDE
 * and the field's bounds, whole where it must be; what decoding holds every input to, for values
 * that do not come through it (a sequence's step writing a variable's value).
 */
export function takesValue(s: Extract<FieldSpec, { kind: 'number' | 'quantity' }>, n: number): boolean {
  return (
    Number.isFinite(n) &&
    Math.abs(n) <= MAX_MAGNITUDE &&
    !(s.kind === 'number' && s.integer && !Number.isInteger(n)) &&
    !(s.min !== undefined && n < s.min) &&
    !(s.max !== undefined && n > s.max)
  );
}

/** Why an internal value is outside the field's declared range, with the range in the user's unit. */
function outOfRange(s: { unit: UnitKind; min?: number; max?: number }, n: number, prefs: UnitPrefs): string | null {
  const below = s.min !== undefined && n < s.min;
  const above = s.max !== undefined && n > s.max;
  if (!below && !above) return null;
  const shown = (v: number) => `${fromInternal(v, s.unit, prefs)} ${unitSymbol(userUnit(s.unit, prefs))}`;
  if (s.min !== undefined && s.max !== undefined) return `must be between ${shown(s.min)} and ${shown(s.max)}`;
  if (below && s.unit === 'temp' && s.min === ABSOLUTE_ZERO_C)
    return `must not be below absolute zero (${shown(s.min)})`;
  if (below) return s.min === 0 ? 'must not be negative' : `must be at least ${shown(s.min!)}`;
  return `must be at most ${shown(s.max!)}`;
}

/** Latest date accepted: 9999-12-31T23:59:59Z, in epoch seconds. */
const MAX_EPOCH_SECONDS = 253402300799;

/**
 * Epoch seconds of an ISO-8601 date or epoch seconds/milliseconds (above 1e11, as Brewblox sends
 * them) up to MAX_EPOCH_SECONDS; undefined when it is none. A date-time that names no zone is UTC.
 */
export function decodeDatetime(raw: unknown): number | undefined {
  let seconds: number | undefined;
  if (typeof raw === 'number' && Number.isFinite(raw) && raw >= 0)
    seconds = raw > 1e11 ? Math.floor(raw / 1000) : Math.floor(raw);
  else if (typeof raw === 'string') seconds = isoSeconds(raw);
  return seconds !== undefined && seconds >= 0 && seconds <= MAX_EPOCH_SECONDS ? seconds : undefined;
}

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Epoch seconds (whole) of `2026-12-01`, `2026-12-01T10:00[:00[.000]]` (or a space for the T) with
 * `Z`, an offset or no zone, which is UTC: the same date on a controller in any time zone, as
 * Date.parse would not (local time for a date-time, UTC for a date alone; and it takes forms such
 * as 'Dec 1 2026' or '1 2 3', and 30 February as 2 March). Undefined for anything else.
 */
function isoSeconds(raw: string): number | undefined {
  const m = ISO_DATE.exec(raw.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const at = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  // A day, hour, minute or second out of its range rolls over: that is not the date written.
  const same = [
    at.getUTCFullYear(),
    at.getUTCMonth() + 1,
    at.getUTCDate(),
    at.getUTCHours(),
    at.getUTCMinutes(),
    at.getUTCSeconds(),
  ];
  if (same.some((v, i) => v !== [y, mo, d, h, mi, s][i])) return undefined;
  const zone = m[7]?.toUpperCase();
  let offset = 0;
  if (zone && zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const [oh, om] = [Number(digits.slice(0, 2)), Number(digits.slice(2) || 0)];
    if (oh > 23 || om > 59) return undefined;
    offset = (zone.startsWith('-') ? -1 : 1) * (oh * 60 + om) * 60;
  }
  return at.getTime() / 1000 - offset;
}

function typeMarker(o: Record<string, unknown>): unknown {
  for (const k of TYPE_KEYS) if (k in o) return o[k];
  return undefined;
}

/**
 * For a quantity sent as text with its unit ("20 C", "68F"), how to send it: the unit in the
 * key or in a Quantity, named as the API names it; an item of a list or map (`item`), which has
 * no key of its own, in a Quantity only. Empty for any other value.
 */
function writtenWithUnit(raw: unknown, path: string, kind: UnitKind, item = false): string {
  const written = typeof raw === 'string' ? numberWithUnit(raw) : null;
  if (!written) return '';
  if (unitKind(written.unit) !== kind) return `; ${unitMismatch(written.unit, kind)}`;
  const unit =
    (['degC', 'degF'] as const).map((t) => userUnit(kind, { temperature: t })).find((u) => sameUnit(u, written.unit)) ??
    written.unit;
  const n = Number(written.number.replace(',', '.'));
  // E notation past a double ("1e400 C"): no body can carry it, so no body is offered.
  if (unholdable(n)) return `; its number ${TOO_LARGE_FOR_JSON}`;
  if (item) return `; send it as a Quantity, {"value": ${n}, "unit": "${unit}"}`;
  const key = path.split('.').pop();
  return `; put the unit in the key, "${key}[${unit}]": ${n}, or send {"value": ${n}, "unit": "${unit}"}`;
}

function unitMismatch(unit: string, kind: UnitKind): string {
  try {
    toInternal(0, kind, { temperature: 'degC' }, unit);
    return '';
  } catch (e) {
    if (e instanceof UnitError) return e.message;
    throw e;
  }
}

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(quotedText(v, 40))}`;
  if (typeof v === 'object') return 'an object';
  if (unholdable(v)) return TOO_LARGE_NUMBER;
  return `${typeof v} ${String(v)}`;
}
