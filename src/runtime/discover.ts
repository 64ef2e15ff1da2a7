// Discovery: ask every discoverer for hardware that has no block yet and create its blocks.
import { complete } from '../codec/apply.js';
import { decodeData } from '../codec/decode.js';
import { DEFAULT_UNITS } from '../codec/units.js';
import type { BlockJson } from './body.js';
import type { RuntimeCore } from './core.js';
import type { AnyBlock, Data } from './types.js';
import { blockJson } from './block-json.js';

export interface DiscoveredBlock {
  type: string;
  id: string;
  /** Stored-mode data in controller units, as a record would hold it. */
  data: Data;
}

/** Finds hardware that has no block yet. Given every current block, returns the blocks to create. */
export type Discoverer = (existing: readonly AnyBlock[]) => Promise<DiscoveredBlock[]>;

/** Search every bus and create blocks for devices that have none. Returns only new blocks. */
export function discoverBlocks(rt: RuntimeCore, discoverers: Discoverer[], origin: string): Promise<BlockJson[]> {
  return rt.exclusively(async () => {
    const created: AnyBlock[] = [];
    for (const discoverer of discoverers) {
      const found = await discoverer(rt.blocks());
      for (const d of found) {
        const def = rt.types.get(d.type);
        if (!def || rt.table.hasId(d.id)) continue;
        const { value, issues } = decodeData(def.fields, d.data, { prefs: DEFAULT_UNITS, checkLink: () => null });
        if (issues.length) {
          rt.log.warn({ id: d.id, issues }, 'discovered block rejected');
          continue;
        }
        const block = rt.insert(def, rt.allocateNid(), d.id, complete(def.fields, value), {});
        rt.afterWrite(block, { previous: undefined, patch: false, given: value }, () => rt.uncreate(block));
        created.push(block);
      }
    }
    if (created.length) rt.emit('change', { changed: created, deleted: [], origin });
    return created.map((b) => blockJson(b, 'default', rt));
  });
}
