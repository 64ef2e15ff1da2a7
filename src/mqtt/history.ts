// History payloads: the logged data of every block, numbers only.
//
// Booleans become 0/1; null, strings and non-finite numbers are left out at any depth.
// Arrays become objects keyed by item index ("0", "1", ...), the numeric path segments the
// history service would give list items when it flattens; containers left empty are dropped,
// and so is a block with no numeric data at all.
import type { BlockJson } from '../runtime/runtime.js';

export type NumericTree = { [key: string]: number | NumericTree };

export function numbersOnly(value: unknown): number | NumericTree | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === null || typeof value !== 'object') return undefined;
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const out: NumericTree = {};
  for (const [key, v] of entries) {
    const kept = numbersOnly(v);
    if (kept !== undefined) out[key] = kept;
  }
  return Object.keys(out).length ? out : undefined;
}

export function historyPayload(key: string, logged: BlockJson[]): { key: string; data: NumericTree } {
  const data: NumericTree = {};
  for (const block of logged) {
    const kept = numbersOnly(block.data);
    if (kept !== undefined && typeof kept === 'object') data[block.id] = kept;
  }
  return { key, data };
}
