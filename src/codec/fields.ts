// The declarative field table. Every block type describes its data with these builders; the
// codecs, validation, Swagger schemas and the logged/stored projections are all derived from it.
import type { UnitKind } from './units.js';

export interface FieldFlags {
  /** Computed by the block; ignored on input. */
  readonly?: boolean;
  /** Included in history (read/logged). */
  logged?: boolean;
  /** Persisted and included in read/stored and backups. */
  stored?: boolean;
  /** No two blocks may hold the same non-default value (e.g. a hardware address). Top-level fields only. */
  unique?: boolean;
  description?: string;
}

export type EnumTable = Readonly<Record<string, number>>;

export type FieldSpec =
  | { kind: 'bool'; default: boolean | null }
  | { kind: 'number'; integer: boolean; min?: number; max?: number; default: number | null }
  /** `min`/`max` in internal units (degC, seconds); checked on every input (decode.ts) and shown in Swagger. */
  | { kind: 'quantity'; unit: UnitKind; min?: number; max?: number; default: number | null }
  | { kind: 'enum'; values: EnumTable; default: string | null; aliases?: Readonly<Record<string, string>> }
  | { kind: 'string'; maxLength: number; default: string }
  | { kind: 'address'; default: string }
  | { kind: 'datetime'; default: number | null }
  | { kind: 'link'; iface: string; drives: boolean }
  | { kind: 'object'; fields: FieldTable; optional: boolean }
  | { kind: 'array'; of: Field; maxItems: number }
  /** Named entries (`{name: value}`); a patch merges by name. */
  | { kind: 'map'; of: Field; maxItems: number; keyPattern: RegExp; keyHint: string }
  /** An object of which exactly one member is given (a tagged union such as a variable value). */
  | { kind: 'variant'; fields: FieldTable };

/** `T` is the internal (canonical) type of the value; used only for typing block code. */
export interface Field<T = unknown> extends FieldFlags {
  spec: FieldSpec;
  readonly __type?: T;
}

export type FieldTable = Readonly<Record<string, Field>>;

/** No temperature is below this (°C). */
export const ABSOLUTE_ZERO_C = -273.15;

/**
 * Setpoints a brewery asks for, in °C: down to -40 (glycol chillers, freezers, cold crashes) and
 * up to 150 (a boil is 100, a pressure or steam step about 121, HERMS and mash below 100; the
 * rest is headroom for a kettle or element thermocouple). A typo of 200 for 20.0, which would
 * drive a heating PID to full output, is refused. Sensor readings are not bound by it.
 */
export const SETPOINT_RANGE_C = { min: -40, max: 150 } as const;

export type DataOf<F extends FieldTable> = { -readonly [K in keyof F]: F[K] extends Field<infer T> ? T : never };

type Opts<D> = FieldFlags & { default?: D };

const make = <T>(spec: FieldSpec, flags: FieldFlags): Field<T> => {
  const { readonly, logged, stored, unique, description } = flags;
  return { spec, readonly, logged, stored, unique, description };
};

export const f = {
  bool: (o: Opts<boolean> = {}) => make<boolean>({ kind: 'bool', default: o.default ?? false }, o),
  /** A nullable boolean (computed values that may be unknown). */
  boolOrNull: (o: FieldFlags = {}) => make<boolean | null>({ kind: 'bool', default: null }, o),
  number: (o: Opts<number | null> & { integer?: boolean; min?: number; max?: number } = {}) =>
    make<number | null>(
      { kind: 'number', integer: o.integer ?? false, min: o.min, max: o.max, default: initial(o) },
      o,
    ),
  quantity: (unit: UnitKind, o: Opts<number | null> & { min?: number; max?: number } = {}) =>
    make<number | null>({ kind: 'quantity', unit, min: o.min, max: o.max, default: initial(o) }, o),
  /** An absolute temperature: never below absolute zero. */
  temp: (o: Opts<number | null> & { min?: number; max?: number } = {}) =>
    f.quantity('temp', { min: ABSOLUTE_ZERO_C, ...o }),
  /** A temperature a controller is asked to reach (SETPOINT_RANGE_C). */
  setpointTemp: (o: Opts<number | null> = {}) => f.temp({ ...SETPOINT_RANGE_C, ...o }),
  deltaTemp: (o: Opts<number | null> = {}) => f.quantity('deltaTemp', o),
  duration: (o: Opts<number | null> = {}) => f.quantity('duration', { min: 0, ...o }),
  /** `aliases`: other names accepted on input (older or newer Brewblox spellings) -> the name stored. */
  enum: <E extends EnumTable>(
    values: E,
    o: Opts<keyof E & string> & { aliases?: Readonly<Record<string, keyof E & string>> } = {},
  ) => make<keyof E & string>({ kind: 'enum', values, default: o.default ?? firstName(values), aliases: o.aliases }, o),
  enumOrNull: <E extends EnumTable>(
    values: E,
    o: FieldFlags & { aliases?: Readonly<Record<string, keyof E & string>> } = {},
  ) => make<(keyof E & string) | null>({ kind: 'enum', values, default: null, aliases: o.aliases }, o),
  string: (o: Opts<string> & { maxLength?: number } = {}) =>
    make<string>({ kind: 'string', maxLength: o.maxLength ?? 200, default: o.default ?? '' }, o),
  address: (o: FieldFlags = {}) => make<string>({ kind: 'address', default: '0000000000000000' }, o),
  datetime: (o: FieldFlags = {}) => make<number | null>({ kind: 'datetime', default: null }, o),
  link: (iface: string, o: FieldFlags & { drives?: boolean } = {}) =>
    make<string | null>({ kind: 'link', iface, drives: o.drives ?? false }, o),
  object: <F extends FieldTable>(fields: F, o: FieldFlags = {}) =>
    make<DataOf<F>>({ kind: 'object', fields, optional: false }, o),
  optionalObject: <F extends FieldTable>(fields: F, o: FieldFlags = {}) =>
    make<DataOf<F> | undefined>({ kind: 'object', fields, optional: true }, o),
  array: <T>(of: Field<T>, o: FieldFlags & { maxItems?: number } = {}) =>
    make<T[]>({ kind: 'array', of, maxItems: o.maxItems ?? 64 }, o),
  map: <T>(of: Field<T>, o: FieldFlags & { maxItems?: number; keyPattern: RegExp; keyHint: string }) =>
    make<Record<string, T>>(
      { kind: 'map', of, maxItems: o.maxItems ?? 64, keyPattern: o.keyPattern, keyHint: o.keyHint },
      o,
    ),
  variant: <F extends FieldTable>(fields: F, o: FieldFlags = {}) =>
    make<Partial<DataOf<F>>>({ kind: 'variant', fields }, o),
};

/** Writable numbers default to 0; computed ones start out unknown (null). */
function initial(o: Opts<number | null>): number | null {
  if (o.default !== undefined) return o.default;
  return o.readonly ? null : 0;
}

function firstName(values: EnumTable): string {
  const entries = Object.entries(values).sort((a, b) => a[1] - b[1]);
  return entries[0]![0];
}

/** Default internal value of a field (what a write that omits it stores). */
export function defaultValue(field: Field): unknown {
  const s = field.spec;
  switch (s.kind) {
    case 'link':
      return null;
    case 'object':
      return s.optional ? undefined : defaults(s.fields);
    case 'array':
      return [];
    case 'map':
      return {};
    case 'variant':
      return undefined;
    default:
      return s.default;
  }
}

export function defaults(fields: FieldTable): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    const v = defaultValue(field);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

export function enumName(values: EnumTable, n: number): string | undefined {
  return Object.entries(values).find(([, v]) => v === n)?.[0];
}

/** Walk every link in `data` (any depth), calling `visit` with its path, value and spec. */
export function forEachLink(
  fields: FieldTable,
  data: Record<string, unknown> | undefined,
  visit: (path: string[], id: string | null, field: Field & { spec: { kind: 'link' } }) => void,
  path: string[] = [],
): void {
  if (!data) return;
  for (const name in fields) {
    const field = fields[name]!;
    // Most fields hold no link at any depth: no path is built for them (the state emission walks every block).
    if (mayHoldLink(field)) walkLink(field, data[name], [...path, name], visit);
  }
}

const holdsLink = new WeakMap<Field, boolean>();

/** Whether a link can sit in this field or anywhere under it (a property of the type, so remembered). */
function mayHoldLink(field: Field): boolean {
  let known = holdsLink.get(field);
  if (known !== undefined) return known;
  holdsLink.set(field, true); // a type that contains itself: assume a link until worked out
  const s = field.spec;
  if (s.kind === 'link') known = true;
  else if (s.kind === 'object' || s.kind === 'variant') known = Object.values(s.fields).some(mayHoldLink);
  else if (s.kind === 'array' || s.kind === 'map') known = mayHoldLink(s.of);
  else known = false;
  holdsLink.set(field, known);
  return known;
}

function walkLink(field: Field, value: unknown, path: string[], visit: Parameters<typeof forEachLink>[2]): void {
  const s = field.spec;
  if (s.kind === 'link') visit(path, (value as string | null) ?? null, field as Field & { spec: { kind: 'link' } });
  else if (s.kind === 'object' && value && typeof value === 'object')
    forEachLink(s.fields, value as Record<string, unknown>, visit, path);
  else if (s.kind === 'array' && Array.isArray(value))
    value.forEach((item, i) => walkLink(s.of, item, [...path, String(i)], visit));
  else if (s.kind === 'variant' && value && typeof value === 'object')
    forEachLink(s.fields, value as Record<string, unknown>, visit, path);
  else if (s.kind === 'map' && value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) walkLink(s.of, v, [...path, k], visit);
}

/**
 * Where an issue's path (`data.a.b`, array items and map entries as `.3`, `.name`) lies in a value
 * the block writes itself and keeps across a restart (a read-only stored field): the path of the
 * outermost such field, or null when the path is outside all of them. No client ever set such a
 * value, so a record whose only problems are in them can load without them, each left out whole
 * (a result without one of its gains would be worse than no result).
 */
export function ownedRoot(fields: FieldTable, path: string): string | null {
  const segments = path.split('.');
  let table: FieldTable | null = fields;
  let field: Field | undefined;
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i]!;
    if (field && (field.spec.kind === 'array' || field.spec.kind === 'map')) {
      field = field.spec.of;
    } else {
      if (!table || !Object.hasOwn(table, segment)) return null;
      field = table[segment];
    }
    if (!field) return null;
    if (field.readonly && field.stored) return segments.slice(0, i + 1).join('.');
    table = field.spec.kind === 'object' || field.spec.kind === 'variant' ? field.spec.fields : null;
  }
  return null;
}

/** Remove the value at `path` (`data.a.b`) from a decoded tree, so the block's default stands. */
export function leaveOut(value: Record<string, unknown>, path: string): void {
  const keys = path.split('.').slice(1);
  let at: unknown = value;
  for (const key of keys.slice(0, -1)) {
    if (!at || typeof at !== 'object') return;
    at = (at as Record<string, unknown>)[key];
  }
  if (at && typeof at === 'object') delete (at as Record<string, unknown>)[keys[keys.length - 1]!];
}
