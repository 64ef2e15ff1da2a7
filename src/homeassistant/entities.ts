// Which Home Assistant entities a block becomes: one table, by block type. `field` is read from
// the block's JSON for the state; `write` is the field a command patches (through the runtime,
// as a REST patch would), so constraints, claims and validation apply as for any other client.
import type { BlockJson } from '../runtime/runtime.js';

export type Component = 'sensor' | 'number' | 'switch';

export interface EntitySpec {
  component: Component;
  /** Suffix of the object id and unique id: stable per block type. */
  key: string;
  /** Field shown as the state. */
  field: string;
  /** Appended to the block id to name the entity (none: the block id alone). */
  label?: string;
  kind: 'temperature' | 'percent' | 'digital';
  /** The field a command writes (number and switch only). */
  write?: string;
  min?: number;
  max?: number;
  step?: number;
}

const tempSensor: EntitySpec[] = [{ component: 'sensor', key: 'value', field: 'value', kind: 'temperature' }];

export const ENTITIES: Record<string, EntitySpec[]> = {
  TempSensorOneWire: tempSensor,
  TempSensorMock: tempSensor,
  TempSensorCombi: tempSensor,
  TempSensorExternal: tempSensor,
  SetpointSensorPair: [
    { component: 'sensor', key: 'value', field: 'value', kind: 'temperature' },
    { component: 'number', key: 'setting', field: 'storedSetting', label: 'setting', kind: 'temperature', write: 'storedSetting', min: -20, max: 150, step: 0.1 },
  ],
  DigitalActuator: [{ component: 'switch', key: 'state', field: 'state', kind: 'digital', write: 'storedState' }],
  ActuatorPwm: [
    { component: 'sensor', key: 'value', field: 'value', kind: 'percent' },
    { component: 'number', key: 'setting', field: 'storedSetting', label: 'setting', kind: 'percent', write: 'storedSetting', min: 0, max: 100, step: 1 },
  ],
};

const HA_UNITS: Record<string, string> = { degC: '°C', degF: '°F', celsius: '°C', fahrenheit: '°F' };

/** A quantity's number (`{value, unit}` or a bare number); null when absent. */
export function numberOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'object' && v !== null && typeof (v as { value?: unknown }).value === 'number') return (v as { value: number }).value;
  return null;
}

export function unitOf(v: unknown): string | undefined {
  return typeof v === 'object' && v !== null && typeof (v as { unit?: unknown }).unit === 'string' ? (v as { unit: string }).unit : undefined;
}

export function haUnit(spec: EntitySpec, block: BlockJson): string | undefined {
  if (spec.kind === 'percent') return '%';
  if (spec.kind === 'temperature') {
    const unit = unitOf(block.data[spec.field]);
    return unit ? (HA_UNITS[unit] ?? unit) : '°C';
  }
  return undefined;
}

/** The state value of one entity: a number, true/false for a switch, or null when unknown. */
export function stateOf(spec: EntitySpec, block: BlockJson): number | boolean | null {
  const v = block.data[spec.field];
  if (spec.kind === 'digital') return v === 'STATE_ACTIVE' ? true : v === 'STATE_INACTIVE' ? false : null;
  return numberOf(v);
}

/** The patch a command payload asks for, or a reason it is refused. */
export function commandPatch(spec: EntitySpec, block: BlockJson, payload: unknown): { data: Record<string, unknown> } | { error: string } {
  if (spec.kind === 'digital') {
    const on = payload === true || payload === 1 || payload === 'ON';
    const off = payload === false || payload === 0 || payload === 'OFF';
    if (!on && !off) return { error: `a switch command must be true or false, got ${JSON.stringify(payload)}` };
    return { data: { [spec.write!]: on ? 'STATE_ACTIVE' : 'STATE_INACTIVE' } };
  }
  const n = typeof payload === 'string' && payload.trim() !== '' ? Number(payload) : payload;
  if (typeof n !== 'number' || !Number.isFinite(n)) return { error: `a number command must be a number, got ${JSON.stringify(payload)}` };
  if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) return { error: `${n} is outside ${spec.min}..${spec.max}` };
  const unit = unitOf(block.data[spec.write!]);
  return { data: { [spec.write!]: unit ? { __objtype: 'Quantity', unit, value: n } : n } };
}
