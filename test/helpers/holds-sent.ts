// Checks that a block read back holds what a client sent: every writable field with the sent
// value (quantities converted to the unit read back, links by id), every read-only field
// reported, and legacy names gone from the output (a rename lands on its new name). Walks the
// type's own field table, so a field the codec silently dropped fails here.
import type { Test } from 'tap';
import { parseKey } from '../../src/codec/decode.js';
import type { Field, FieldTable } from '../../src/codec/fields.js';
import type { LegacyTable } from '../../src/codec/legacy.js';

/** Unit -> [canonical kind, factor, offset] for the units the Brewblox clients send. */
const UNITS: Record<string, [string, number, number]> = {
  degC: ['temp', 1, 0],
  degF: ['temp', 5 / 9, -32 * (5 / 9)],
  delta_degC: ['delta', 1, 0],
  delta_degF: ['delta', 5 / 9, 0],
  '1 / degC': ['perTemp', 1, 0],
  '1 / degF': ['perTemp', 9 / 5, 0],
  s: ['time', 1, 0],
  second: ['time', 1, 0],
  ms: ['time', 0.001, 0],
  millisecond: ['time', 0.001, 0],
  min: ['time', 60, 0],
  minute: ['time', 60, 0],
  h: ['time', 3600, 0],
  hour: ['time', 3600, 0],
};

function convert(value: number, from: string, to: string): number {
  const a = UNITS[from];
  const b = UNITS[to];
  if (!a || !b || a[0] !== b[0]) throw new Error(`cannot convert ${from} to ${to}`);
  return (value * a[1] + a[2] - b[2]) / b[1];
}

const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `stored`: `read` is a read/stored projection, which holds only the stored fields. */
export function holdsSent(
  t: Test,
  fields: FieldTable,
  legacy: LegacyTable | undefined,
  sent: Record<string, unknown>,
  read: Record<string, any>,
  at: string,
  stored = false,
): void {
  for (const [rawKey, value] of Object.entries(sent)) {
    const { name, unit } = parseKey(rawKey);
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (!field) {
      const rule = legacy?.[name];
      t.ok(rule, `${at}.${name} is a known legacy name`);
      t.notOk(Object.hasOwn(read, name), `${at}.${name}: not reported under its legacy name`);
      if (rule?.kind === 'rename')
        holdsValue(
          t,
          fields[rule.to]!,
          unit !== undefined ? { __bloxtype: 'Quantity', value, unit } : value,
          read[rule.to],
          `${at}.${rule.to} (was ${name})`,
          stored,
        );
      continue;
    }
    if (stored && !field.stored) continue;
    t.ok(Object.hasOwn(read, name), `${at}.${name} is ${stored ? 'stored' : 'reported'}`);
    if (field.readonly) continue;
    holdsValue(
      t,
      field,
      unit !== undefined ? { __bloxtype: 'Quantity', value, unit } : value,
      read[name],
      `${at}.${name}`,
      stored,
    );
  }
}

function holdsValue(t: Test, field: Field, sent: unknown, got: any, at: string, stored: boolean): void {
  const s = field.spec;
  switch (s.kind) {
    case 'quantity': {
      const value = isObj(sent) ? sent.value : sent;
      if (value === null || value === undefined) return void t.equal(got?.value ?? null, null, `${at} is null`);
      const from = isObj(sent) && typeof sent.unit === 'string' ? sent.unit : got?.unit;
      t.ok(
        Math.abs(got?.value - convert(value as number, from, got?.unit)) < 1e-6,
        `${at}: ${value} ${from} reads ${got?.value} ${got?.unit}`,
      );
      return;
    }
    case 'link':
      t.equal(
        got?.id ?? null,
        (isObj(sent) ? sent.id : sent) || null,
        `${at} -> ${JSON.stringify(isObj(sent) ? sent.id : sent)}`,
      );
      return;
    case 'object':
    case 'variant':
      if (!isObj(sent)) return void t.equal(got ?? null, sent ?? null, at);
      holdsSent(t, s.fields, undefined, sent, got ?? {}, at, stored);
      return;
    case 'array':
      t.equal(got?.length, (sent as unknown[]).length, `${at} has ${(sent as unknown[]).length} items`);
      (sent as unknown[]).forEach((item, i) => holdsValue(t, s.of, item, got?.[i], `${at}.${i}`, stored));
      return;
    case 'map':
      t.same(Object.keys(got ?? {}).sort(), Object.keys(sent as object).sort(), `${at} has the names sent`);
      for (const [k, v] of Object.entries(sent as object)) holdsValue(t, s.of, v, got?.[k], `${at}.${k}`, stored);
      return;
    case 'address':
      // An empty address means "not yet bound" and reads as the unbound default.
      t.equal(got, sent === '' ? s.default : String(sent).toLowerCase().padEnd(16, '0'), at);
      return;
    case 'enum': {
      // An alias reads back as the name it stands for; read/stored holds enums by number.
      const name = typeof sent === 'string' ? (s.aliases?.[sent] ?? sent) : sent;
      t.equal(got, stored && typeof name === 'string' ? s.values[name] : name, at);
      return;
    }
    case 'datetime':
      // Controllers keep times in whole seconds.
      t.equal(seconds(got), sent === null ? null : Math.floor(seconds(sent)!), at);
      return;
    default:
      t.equal(got, sent, at);
  }
}

/** Epoch seconds of an ISO string, epoch seconds or epoch milliseconds. */
function seconds(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return Date.parse(v) / 1000;
  return (v as number) > 1e11 ? (v as number) / 1000 : (v as number);
}
