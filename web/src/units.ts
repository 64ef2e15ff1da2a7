// Units as the page shows them. Conversion is the service's own table (a pure module shared
// with src/codec/units.ts), never a factor written here: the API speaks the user's unit for
// quantities, and where a number comes in the internal unit (an alert rule's band, a field's
// range in the API document) the page converts it by that table.
import {
  fromInternal,
  toInternal,
  type TempUnit,
  type UnitKind,
  type UnitPrefs,
  unitKind,
  userUnit,
} from '../../src/codec/unit-conversion.js';
import { typedNumber } from './typed-number.js';

export { fromInternal, toInternal, unitKind, userUnit, type UnitKind, type UnitPrefs };

/** The user's units from the service status (`status.units`), °C until it says otherwise. */
export function prefsOf(status: Record<string, unknown>): UnitPrefs {
  const t = (status.units as { temperature?: unknown } | undefined)?.temperature;
  return { temperature: t === 'degF' ? 'degF' : ('degC' satisfies TempUnit) };
}

/** A unit of the API document (its x-unit, in the default units) in the user's units: `degC` → `degF`. */
export function inUserUnit(unit: string, prefs: UnitPrefs): string {
  const kind = unitKind(unit);
  return kind ? userUnit(kind, prefs) : unit;
}

/** An internal value (a range in the API document, a rule in °C) in the user's unit of `unit`'s kind. */
export function shown(value: number, unit: string, prefs: UnitPrefs): number {
  const kind = unitKind(unit);
  return kind ? fromInternal(value, kind, prefs) : value;
}

/**
 * A number typed in unit `from`, written in unit `to`: the user's unit changed (in another tab,
 * by another client) while it stood in a form, so it is converted with the rest of the page
 * ("20" °C → "68" °F) instead of being kept under the new unit's label. Text that is not a
 * number, or units this table cannot convert between, stay as they are.
 */
export function retyped(text: string, from: string, to: string): string {
  if (from === to) return text;
  const n = typedNumber(text);
  const out = n === null || !Number.isFinite(n) ? null : converted(n, from, to);
  return out === null ? text : String(Number(out.toFixed(3)));
}

/**
 * A number in unit `from` in unit `to` of the same kind (`degC` → `degF`, `delta_degF` →
 * `delta_degC`) by the service's table, or null when this table cannot convert between them.
 */
export function converted(n: number, from: string, to: string): number | null {
  const kind = unitKind(from);
  if (from === to) return n;
  if (kind === null || unitKind(to) !== kind) return null;
  const prefs = (['degC', 'degF'] as const)
    .map((temperature) => ({ temperature }))
    .find((p) => userUnit(kind, p) === to);
  return prefs ? fromInternal(toInternal(n, kind, prefs, from), kind, prefs) : null;
}
