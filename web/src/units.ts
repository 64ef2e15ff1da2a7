// Units as the page shows them. Conversion is the service's own table (a pure module shared
// with src/codec/units.ts), never a factor written here: the API speaks the user's unit for
// quantities, and where a number comes in the internal unit (an alert rule's band, a field's
// range in the API document) the page converts it by that table.
import {
  fromInternal,
  numberAndUnit,
  sameUnit,
  toInternal,
  type TempUnit,
  type UnitKind,
  type UnitPrefs,
  unitKind,
  userUnit,
} from '../../src/codec/unit-conversion.js';
import { unitLabel } from './blocks.js';
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

/** Whether a unit typed after a number is the field's: by the service's table ("C" for degC), or as the field shows it ("%"). */
function isFieldUnit(written: string, unit: string): boolean {
  const bare = (u: string) => u.replace(/\s+/g, '');
  return sameUnit(written, unit) || bare(written) === bare(unitLabel(unit)) || bare(written) === bare(unit);
}

/**
 * A number typed into a field shown in `unit`: plain ("20", "18,5", "1e3"), or followed by that
 * unit as people write it ("20 °C", "20 C", "20degC", "20 ºC", "1e3 °C", a PWM's "50 %"); null when
 * empty. Another unit ("68F" in a °C field) is a problem in words that names the field's unit and,
 * where it converts, the number. The one parser of the cards' number fields.
 */
export function typedInUnit(text: string, unit: string): { value: number | null } | { problem: string } {
  const plain = typedNumber(text);
  if (plain === null || Number.isFinite(plain)) return { value: plain };
  const written = numberAndUnit(text);
  const n = written ? typedNumber(written.number) : null;
  if (!written || n === null || !Number.isFinite(n)) return { problem: 'enter a number' };
  if (isFieldUnit(written.unit, unit)) return { value: n };
  const there = converted(n, written.unit, unit);
  const label = unitLabel(unit);
  return {
    problem:
      there === null
        ? `this field is in ${label}, not ${written.unit}`
        : `this field is in ${label}: ${written.number} ${written.unit} is ${Number(there.toFixed(2))} ${label}`,
  };
}
