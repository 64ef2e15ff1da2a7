// History payloads: the logged data of every block, numbers only (the rule is in
// codec/logged-numbers.ts); a block with no numeric data at all is left out.
import { numbersOnly, type NumericTree } from '../codec/logged-numbers.js';
import type { BlockJson, BlockRuntime } from '../runtime/runtime.js';
import { ByteSlot, joinBytes } from '../shared/json.js';

export { numbersOnly, type NumericTree };

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
 * and its JSON as UTF-8 bytes, with each block's part and its bytes kept in the encoding cache: a
 * block that did not change since the last message is neither read, filtered nor serialised
 * again. (The JSON lists the blocks by nid; JSON.stringify would put blocks with integer-like ids
 * first.)
 */
export function cachedHistoryPayload(
  key: string,
  runtime: BlockRuntime,
): { message: { key: string; data: NumericTree }; bytes: Buffer } {
  const data: NumericTree = {};
  const parts: Buffer[] = [];
  for (const block of runtime.blocks()) {
    const tree = runtime.encodings.derived(block, 'history', (b) => runtime.loggedNumbers(b));
    if (tree === undefined) continue;
    data[block.id] = tree;
    const slot = runtime.encodings.derived(block, 'history bytes', (b, stale: ByteSlot | undefined) =>
      ByteSlot.write(stale, `${JSON.stringify(b.id)}:${JSON.stringify(tree)}`),
    );
    parts.push(slot.view());
  }
  return { message: { key, data }, bytes: joinBytes(`{"key":${JSON.stringify(key)},"data":{`, parts, '}}') };
}
