// The runtime's one read (BlockRuntime.read): one block or every block (ALL), in a read mode and
// the user's unit preference, given as an Encoded: the value, or its JSON as UTF-8 bytes. The
// bytes come from the encoding cache (encode-cache.ts), and its tricks stay behind this
// interface: a block that did not change is not encoded again, the block list and the history
// message are joined from each block's cached bytes, and a message around them (the state
// message) is written with the list in its place instead of a copy of the list copied again.
import { randomBytes } from 'node:crypto';
import type { ReadMode } from '../codec/encode.js';
import { loggedNumbers, type NumericTree } from '../codec/logged-numbers.js';
import { ByteSlot, joinBytes } from '../shared/json.js';
import { blockJson } from './block-json.js';
import type { BlockJson } from './body.js';
import { EncodeCache, type EncodeSource } from './encode-cache.js';
import type { AnyBlock, Data } from './types.js';

export type { ReadMode };

/** `runtime.read(ALL, mode)` reads every block. */
export const ALL: unique symbol = Symbol('every block');

/**
 * The history mode of `read(ALL, 'history')`: each block's logged data, numbers only
 * (codec/logged-numbers.ts), by block id; a block with no number at all is left out. It is the
 * `data` of the history message.
 */
export type HistoryData = Record<string, NumericTree>;

/** What a read gives: nothing is encoded until one of these is called. For use at once, in the turn
 *  it was read (a history read walks the blocks once, for its value and its bytes). */
export interface Encoded<T> {
  /** The value. It may share parts with the runtime (a block's meta, a history part that did not
   *  change): read it, do not change it. */
  json(): T;
  /** Its JSON as UTF-8 bytes (a JSON text of the same value), which nothing changes afterwards:
   *  the caller may send and keep them, and must not write into them. */
  bytes(): Buffer;
  /**
   * The JSON of `envelope(slot)` as UTF-8 bytes in a buffer of the caller's own, with this
   * value's JSON where the envelope put `slot`. `slot` stands for the value: the envelope puts
   * it into the message as it is, exactly once, and does not look inside it.
   */
  within(envelope: (slot: T) => unknown): Buffer;
}

/**
 * Stands for the value in an envelope until its bytes replace it. NUL characters, which no block
 * id can hold, around a random part no one can know: an envelope that holds it anywhere but in
 * the slot (a status text, a block's meta) is not possible by accident, and is refused.
 */
const SLOT = `\u0000${randomBytes(12).toString('base64url')}\u0000`;
const SLOT_JSON = JSON.stringify(SLOT);

/** The JSON of `envelope(SLOT)`, split around the slot. */
function aroundSlot(envelope: (slot: never) => unknown): [head: string, tail: string] {
  const text = JSON.stringify(envelope(SLOT as never));
  const at = text === undefined ? -1 : text.indexOf(SLOT_JSON);
  if (at < 0) throw new Error('the envelope left out the slot for the value read');
  if (text.includes(SLOT_JSON, at + SLOT_JSON.length))
    throw new Error('the envelope holds the slot for the value read more than once');
  return [text.slice(0, at), text.slice(at + SLOT_JSON.length)];
}

export class Reads {
  private readonly cache: EncodeCache;

  constructor(private readonly source: EncodeSource) {
    this.cache = new EncodeCache(source);
  }

  /** Blocks encoded (reads the cache could not serve) since start. */
  get misses(): number {
    return this.cache.misses;
  }

  /** After a change the cache's prepended listeners did not see (see EncodeCache.invalidate). */
  invalidate(): void {
    this.cache.invalidate();
  }

  block(block: AnyBlock, mode: ReadMode): Encoded<BlockJson> {
    return new BlockRead(this.cache, this.source, block, mode);
  }

  list(mode: ReadMode): Encoded<BlockJson[]> {
    return new ListRead(this.cache, this.source, mode);
  }

  /**
   * Each block's part (its numbers, and the bytes of `"id":numbers`) is kept in the cache as long
   * as its texts are: a block that did not change since the last history message is neither read,
   * filtered nor serialised again, and its part is the same object (the history ingest's memo
   * flattens it once). The bytes list the blocks by nid, as json() does; JSON.stringify of the
   * object would put blocks with integer-like ids first.
   */
  history(): Encoded<HistoryData> {
    // One walk of the blocks for the value and the bytes (the emission asks for both).
    let walked: { data: HistoryData; parts: Buffer[] } | undefined;
    const walk = () => (walked ??= this.historyParts());
    return {
      json: () => walk().data,
      bytes: () => joinBytes('{', walk().parts, '}'),
      within: (envelope) => {
        const [head, tail] = aroundSlot(envelope);
        return joinBytes(`${head}{`, walk().parts, `}${tail}`);
      },
    };
  }

  /** Each block's numbers, and the bytes of its `"id":numbers`, from the cache. */
  private historyParts(): { data: HistoryData; parts: Buffer[] } {
    const data: HistoryData = {};
    const parts: Buffer[] = [];
    for (const block of this.source.blocks()) {
      const tree = this.cache.derived(block, 'history', (b) =>
        loggedNumbers(b.def.fields, b.data as Data, this.source.units),
      );
      if (tree === undefined) continue;
      data[block.id] = tree;
      const slot = this.cache.derived(block, 'history bytes', (b, stale: ByteSlot | undefined) =>
        ByteSlot.write(stale, `${JSON.stringify(b.id)}:${JSON.stringify(tree)}`),
      );
      parts.push(slot.view());
    }
    return { data, parts };
  }
}

// Classes rather than objects of closures: a REST read makes one, and one small object with its
// methods on the prototype is the cheapest to make.

class BlockRead implements Encoded<BlockJson> {
  constructor(
    private readonly cache: EncodeCache,
    private readonly source: EncodeSource,
    private readonly block: AnyBlock,
    private readonly mode: ReadMode,
  ) {}

  json(): BlockJson {
    return blockJson(this.block, this.mode, this.source);
  }

  bytes(): Buffer {
    // A copy: the cache writes the block's next text into the same slot.
    return Buffer.from(this.cache.view(this.block, this.mode));
  }

  within(envelope: (slot: BlockJson) => unknown): Buffer {
    const [head, tail] = aroundSlot(envelope);
    return joinBytes(head, [this.cache.view(this.block, this.mode)], tail);
  }
}

class ListRead implements Encoded<BlockJson[]> {
  constructor(
    private readonly cache: EncodeCache,
    private readonly source: EncodeSource,
    private readonly mode: ReadMode,
  ) {}

  json(): BlockJson[] {
    return this.source.blocks().map((b) => blockJson(b, this.mode, this.source));
  }

  bytes(): Buffer {
    return this.cache.listBytes(this.mode);
  }

  within(envelope: (slot: BlockJson[]) => unknown): Buffer {
    const [head, tail] = aroundSlot(envelope);
    return this.cache.wrappedListBytes(head, tail, this.mode);
  }
}
