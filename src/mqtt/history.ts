// History payloads: the logged data of every block, numbers only.
//
// Booleans become 0/1; null, strings and non-finite numbers are left out at any depth.
// Arrays become objects keyed by item index ("0", "1", ...), the numeric path segments the
// history service would give list items when it flattens; containers left empty are dropped,
// and so is a block with no numeric data at all.
import type { BlockJson, BlockRuntime } from '../runtime/runtime.js';

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

/** One block's part of the history message: the numbers of its logged data, or undefined with none. */
function historyPart(logged: BlockJson): NumericTree | undefined {
  const kept = numbersOnly(logged.data);
  return kept !== undefined && typeof kept === 'object' ? kept : undefined;
}

export function historyPayload(key: string, logged: BlockJson[]): { key: string; data: NumericTree } {
  const data: NumericTree = {};
  for (const block of logged) {
    const part = historyPart(block);
    if (part !== undefined) data[block.id] = part;
  }
  return { key, data };
}

/**
 * The controller's history message, as historyPayload(key, runtime.readAll('logged')) makes it,
 * and its JSON text, with each block's part and its text kept in the encoding cache: a block
 * that did not change since the last message is neither read, filtered nor serialised again.
 * (The text lists the blocks by nid; JSON.stringify would put blocks with integer-like ids first.)
 */
export function cachedHistoryPayload(key: string, runtime: BlockRuntime): { message: { key: string; data: NumericTree }; text: string } {
  const data: NumericTree = {};
  const parts: string[] = [];
  for (const block of runtime.blocks()) {
    const tree = runtime.encodings.derived(block, 'history', (b) => historyPart(runtime.toJson(b, 'logged')));
    if (tree === undefined) continue;
    data[block.id] = tree;
    parts.push(runtime.encodings.derived(block, 'history text', (b) => `${JSON.stringify(b.id)}:${JSON.stringify(tree)}`));
  }
  return { message: { key, data }, text: `{"key":${JSON.stringify(key)},"data":{${parts.join(',')}}}` };
}
