// Unit kinds of quantity fields, the user's preference, and conversion to and from the
// controller's internal units (degC, delta degC, 1/degC, seconds). Pure (no imports): the
// service (codec/units.ts re-exports it) and the dashboard (web/) convert by the same table.

export type UnitKind = 'temp' | 'deltaTemp' | 'inverseTemp' | 'duration';
export type TempUnit = 'degC' | 'degF';

export interface UnitPrefs {
  temperature: TempUnit;
}

export const DEFAULT_UNITS: UnitPrefs = { temperature: 'degC' };

/** The unit a quantity of this kind is shown in, for the user's preference. */
export function userUnit(kind: UnitKind, prefs: UnitPrefs): string {
  const f = prefs.temperature === 'degF';
  switch (kind) {
    case 'temp':
      return f ? 'degF' : 'degC';
    case 'deltaTemp':
      return f ? 'delta_degF' : 'delta_degC';
    case 'inverseTemp':
      return f ? '1 / degF' : '1 / degC';
    case 'duration':
      return 'second';
  }
}

interface UnitDef {
  kind: UnitKind;
  toBase: (v: number) => number;
  fromBase: (v: number) => number;
}

const identity = (v: number) => v;
const scale = (k: number): Pick<UnitDef, 'toBase' | 'fromBase'> => ({ toBase: (v) => v * k, fromBase: (v) => v / k });

const UNIT_TABLE: Record<string, UnitDef> = {};
function define(names: string[], def: UnitDef) {
  for (const n of names) UNIT_TABLE[normalize(n)] = def;
}
/**
 * A unit's name as the table keys it. Besides the degree sign (°, U+00B0), the masculine ordinal
 * (º, U+00BA, what many keyboards give for it) and the ring above (˚, U+02DA) are read as degrees.
 */
function normalize(name: string): string {
  return name.replace(/\s+/g, '').replace(/[°º˚]/g, 'deg').toLowerCase();
}

define(['degC', 'celsius', 'degree_Celsius', 'C'], { kind: 'temp', toBase: identity, fromBase: identity });
define(['degF', 'fahrenheit', 'degree_Fahrenheit', 'F'], {
  kind: 'temp',
  toBase: (v) => ((v - 32) * 5) / 9,
  fromBase: (v) => (v * 9) / 5 + 32,
});
define(['delta_degC', 'delta_celsius', 'dC'], { kind: 'deltaTemp', toBase: identity, fromBase: identity });
define(['delta_degF', 'delta_fahrenheit', 'dF'], { kind: 'deltaTemp', ...scale(5 / 9) });
define(['1/degC', '1/delta_degC', '1/celsius'], { kind: 'inverseTemp', toBase: identity, fromBase: identity });
define(['1/degF', '1/delta_degF', '1/fahrenheit'], { kind: 'inverseTemp', ...scale(9 / 5) });
define(['ms', 'millisecond', 'milliseconds'], { kind: 'duration', ...scale(1 / 1000) });
define(['s', 'sec', 'secs', 'second', 'seconds'], { kind: 'duration', toBase: identity, fromBase: identity });
define(['min', 'mins', 'minute', 'minutes'], { kind: 'duration', ...scale(60) });
define(['h', 'hr', 'hrs', 'hour', 'hours'], { kind: 'duration', ...scale(3600) });
define(['d', 'day', 'days'], { kind: 'duration', ...scale(86400) });

const KIND_NAMES: Record<UnitKind, string> = {
  temp: 'temperature',
  deltaTemp: 'temperature difference',
  inverseTemp: 'inverse temperature',
  duration: 'duration',
};

export class UnitError extends Error {}

/**
 * A difference written in degrees ("0.5 °C", as messages show a difference, unitSymbol) is that
 * many degrees of difference: °F scaled, not shifted.
 */
const DIFFERENCE_IN = new Map<UnitDef, UnitDef>([
  [UNIT_TABLE.degc!, UNIT_TABLE.delta_degc!],
  [UNIT_TABLE.degf!, UNIT_TABLE.delta_degf!],
]);

function lookup(unit: string, kind: UnitKind): UnitDef {
  const key = normalize(unit);
  let def = Object.hasOwn(UNIT_TABLE, key) ? UNIT_TABLE[key] : undefined;
  if (!def) throw new UnitError(`unknown unit '${unit}'`);
  if (kind === 'deltaTemp') def = DIFFERENCE_IN.get(def) ?? def;
  if (def.kind !== kind)
    throw new UnitError(
      `unit '${unit}' is not a ${KIND_NAMES[kind]} unit (expected e.g. ${userUnit(kind, DEFAULT_UNITS)})`,
    );
  return def;
}

/** The kind of a unit name (`degF` → temp, `delta_degC` → deltaTemp), or null for a unit this table does not know. */
export function unitKind(unit: string): UnitKind | null {
  const key = normalize(unit);
  return Object.hasOwn(UNIT_TABLE, key) ? UNIT_TABLE[key]!.kind : null;
}

/** Whether two unit names name the same unit of this table (`C`, `°C`, `celsius` and `degC` do). */
export function sameUnit(a: string, b: string): boolean {
  const [x, y] = [normalize(a), normalize(b)];
  return Object.hasOwn(UNIT_TABLE, x) && Object.hasOwn(UNIT_TABLE, y) && UNIT_TABLE[x] === UNIT_TABLE[y];
}

/**
 * A decimal number (a comma as the point too, E notation) and the text after it. No unit starts
 * with an e: "1e °C" is an exponent left out, not 1 in a unit "e °C".
 */
const WITH_UNIT = /^\s*([+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?)\s*([^\s\d.,+eE-].*?)\s*$/;

/**
 * A number followed by any unit text ("50 %", "1e3 °C"): the number's text and the unit's, the
 * unit known to this table or not. Null when the text is not a number and a unit.
 */
export function numberAndUnit(text: string): { number: string; unit: string } | null {
  const m = WITH_UNIT.exec(text);
  return m ? { number: m[1]!, unit: m[2]! } : null;
}

/**
 * A number written with a unit this table knows, as people write a temperature ("20 C", "68°F",
 * "-1.5 degC", "18,5 °C", "1e3 ºC"): the number's text and the unit's. Null for anything else.
 */
export function numberWithUnit(text: string): { number: string; unit: string } | null {
  const written = numberAndUnit(text);
  return written && unitKind(written.unit) !== null ? written : null;
}

/** Convert a value given in `unit` (or in the user's unit when omitted) to the internal unit. */
export function toInternal(value: number, kind: UnitKind, prefs: UnitPrefs, unit?: string): number {
  return lookup(unit ?? userUnit(kind, prefs), kind).toBase(value);
}

const USER_UNIT_DEFS = new Map<string, UnitDef>();

/** Convert an internal value to the user's unit; rounds away floating-point conversion noise. */
export function fromInternal(value: number, kind: UnitKind, prefs: UnitPrefs): number {
  const unit = userUnit(kind, prefs);
  // Every read converts each quantity: the user units (a handful) are looked up once.
  let def = USER_UNIT_DEFS.get(unit);
  if (!def) USER_UNIT_DEFS.set(unit, (def = lookup(unit, kind)));
  const out = def.fromBase(value);
  return Math.round(out * 1e9) / 1e9;
}

/** How a text shows each unit the user may prefer: a temperature and a difference of two both in degrees. */
const SYMBOLS: Record<string, string> = {
  degC: '°C',
  degF: '°F',
  delta_degC: '°C',
  delta_degF: '°F',
  '1 / degC': '1/°C',
  '1 / degF': '1/°F',
  second: 's',
};

/** How a text shows a unit the API names (`delta_degC` as °C); other units by name. */
export const unitSymbol = (unit: string): string => SYMBOLS[unit] ?? unit;

/** An internal value as a text shows it to the user: in the preferred unit, with `digits` decimals and its symbol (`67.1 °F`). */
export function formatQuantity(value: number, kind: UnitKind, prefs: UnitPrefs, digits = 1): string {
  const unit = userUnit(kind, prefs);
  return `${fromInternal(value, kind, prefs).toFixed(digits)} ${unitSymbol(unit)}`;
}
