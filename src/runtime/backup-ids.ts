// A backup's block ids with white space at an end. The Brewblox UI takes "Fridge Sensor " and its
// Spark service keeps it, so a Spark backup can hold one; this controller's ids have none
// (body.ts validId), and such a block failed the load. It loads under the id without the white
// space, and what of the backup names it (links, a Sequence's lines) follows by the rule of a
// rename (rename.ts renameReferences), unless that id is another block's of the backup (or a
// system block's): then it fails as before, saying so.
import { isPlainObject } from '../codec/partial.js';
import { validId } from './body.js';
import { renameReferences } from './rename.js';
import type { RuntimeCore } from './core.js';

export interface SpacedIds {
  /** The backup's id -> the id it loads under. */
  trimmed: Map<string, string>;
  /** The backup's id -> why it cannot load under the id without its white space. */
  refused: Map<string, string>;
}

export function spacedIds(rt: RuntimeCore, items: unknown[]): SpacedIds {
  const ids = items.flatMap((item, i) =>
    isPlainObject(item) && typeof item.id === 'string' ? [{ id: item.id, nid: item.nid, i }] : [],
  );
  const trimmed = new Map<string, string>();
  const refused = new Map<string, string>();
  for (const { id } of ids) {
    const bare = id.trim();
    if (bare === id || trimmed.has(id) || refused.has(id) || !validId(bare)) continue;
    const other = ids.find((o) => o.id !== id && (o.id === bare || o.id.trim() === bare));
    const why = other
      ? `block ${other.i} of the backup (nid ${String(other.nid ?? '?')}) has '${other.id}'`
      : rt.systemBlockById(bare)
        ? 'a system block of this controller has it'
        : null;
    if (why)
      refused.set(
        id,
        `id '${id}' has white space at an end, which this controller's ids cannot have, and the id without it, '${bare}', is taken: ${why}; rename one of them in Brewblox, save the backup again and load it`,
      );
    else trimmed.set(id, bare);
  }
  return { trimmed, refused };
}

/** The warning of a block loaded under the id without its white space. */
export function trimmedWarning(label: string, from: string, to: string): string {
  return `${label} loaded as '${to}': its id '${from}' has white space at an end, which this controller's ids cannot have; every link and Sequence line of the backup that named '${from}' names '${to}'`;
}

/** Once the backup's blocks are in: what named a block by the id it had in the backup names it as it loaded. */
export function followTrimmed(rt: RuntimeCore, trimmed: Map<string, string>): void {
  for (const [from, to] of trimmed) renameReferences(rt, from, to);
}
