// How a block's Home Assistant entities (declared by its type: `homeAssistant` in defineBlock)
// are announced, read and commanded. `field` is read from the block's JSON for the state; `write`
// is the field a command patches (through the runtime, as a REST patch would), so constraints,
// claims and validation apply as for any other client.
import { describe } from '../codec/decode.js';
import { fromInternal, type UnitPrefs } from '../codec/units.js';
import type { BlockJson } from '../runtime/runtime.js';
import type { EntitySpec } from '../runtime/traits.js';
import { driverOf } from '../shared/driven.js';

export type { EntitySpec };
export type Component = EntitySpec['component'];

const HA_UNITS: Record<UnitPrefs['temperature'], string> = { degC: '°C', degF: '°F' };

/** A quantity's number (`{value, unit}` or a bare number); null when absent. */
export function numberOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'object' && v !== null && typeof (v as { value?: unknown }).value === 'number')
    return (v as { value: number }).value;
  return null;
}

/**
 * What one entity's config announces: its unit (the codec's name, and Home Assistant's) and, for
 * a number, the range and step in that unit. Commands are read against the announcement Home
 * Assistant holds, never against the block's current unit, so the two cannot disagree.
 */
export interface Announcement {
  /** The codec unit a number command is given in (degC/degF); none for percent and switches. */
  unit?: string;
  haUnit?: string;
  min?: number;
  max?: number;
  step?: number;
}

export function announce(spec: EntitySpec, prefs: UnitPrefs): Announcement {
  if (spec.kind === 'digital') return {};
  if (spec.kind === 'percent') return { haUnit: '%', min: spec.min, max: spec.max, step: spec.step };
  if (spec.kind === 'humidity') return { haUnit: '%' };
  if (spec.kind === 'pressure') return { haUnit: 'hPa' };
  // Temperatures are shown in the user's unit (as the block JSON is); the table's range is in degC.
  // The step is how finely a value is typed, the same figure in either unit: converted to °F
  // (0.1 °C = 0.18 °F) Home Assistant's box refused most values, which are not multiples of it.
  const temp = (v: number | undefined) => (v === undefined ? undefined : fromInternal(v, 'temp', prefs));
  return {
    unit: prefs.temperature,
    haUnit: HA_UNITS[prefs.temperature],
    min: temp(spec.min),
    max: temp(spec.max),
    step: spec.step,
  };
}

/**
 * The key of the block's state message that names the block driving it (null: none), read by
 * the attributes of its number or switch. No entity has this key.
 */
export const DRIVEN_BY_KEY = 'driven_by';

/**
 * Why a command to a block is refused, as a setting or a switch by hand would not be used:
 * another block drives it (the rule of every control by hand: src/shared/driven.ts), or it is
 * disabled, which Home Assistant has no switch to change (stored, the value would only come back
 * unannounced when the block is enabled on the dashboard). Null: taken.
 */
export function commandRefusal(block: BlockJson): string | null {
  const driver = driverOf(block.data);
  if (driver !== null)
    return `${block.id} is driven by ${driver}: a setting from Home Assistant would not be used; disable ${driver} first`;
  if (block.data.enabled === false)
    return `${block.id} is disabled: a setting from Home Assistant would not be used; enable it first`;
  return null;
}

/** The state value of one entity: a number, true/false for a switch, or null when unknown. */
export function stateOf(spec: EntitySpec, block: BlockJson): number | boolean | null {
  const v = block.data[spec.field];
  if (spec.kind === 'digital') return v === 'STATE_ACTIVE' ? true : v === 'STATE_INACTIVE' ? false : null;
  return numberOf(v);
}

/** The patch a command payload asks for, read in the announced unit and range, or a reason it is refused. */
export function commandPatch(
  spec: EntitySpec,
  announced: Announcement,
  payload: unknown,
): { data: Record<string, unknown> } | { error: string } {
  if (spec.kind === 'digital') {
    const on = payload === true || payload === 1 || payload === 'ON';
    const off = payload === false || payload === 0 || payload === 'OFF';
    if (!on && !off) return { error: `a switch command must be true or false, got ${describe(payload)}` };
    return { data: { [spec.write!]: on ? 'STATE_ACTIVE' : 'STATE_INACTIVE' } };
  }
  const n = typeof payload === 'string' && payload.trim() !== '' ? Number(payload) : payload;
  if (typeof n !== 'number' || !Number.isFinite(n))
    return { error: `a number command must be a finite number, got ${describe(payload)}` };
  const { min, max, unit, haUnit } = announced;
  if ((min !== undefined && n < min) || (max !== undefined && n > max))
    return { error: `${n} is outside ${min}..${max}${haUnit ? ` ${haUnit}` : ''}` };
  return { data: { [spec.write!]: unit ? { __objtype: 'Quantity', unit, value: n } : n } };
}
