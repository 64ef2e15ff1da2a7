// Encoded JSON of each block, per read mode and unit preference, shared by the REST reads and
// the state emission, so a block that did not change is never encoded twice. Kept as UTF-8 bytes
// (what an HTTP answer and an MQTT message send), outside the V8 heap: the texts of blocks that
// change every cycle would otherwise live a cycle and be promoted to the old generation.
//
// Validity: every mutation of block data happens inside a runtime operation that ends in a
// 'change' or 'tick' event (writes, deletes, renames, backup loads, block updates, claims) or
// in a structure change; each of them starts a new epoch. Within an epoch a cached text is
// served as is. In a new epoch a block's raw state (id, nid, internal data, meta) is compared
// with the one its texts were made from; only a block whose state differs is encoded again.
// The unit preference and the read mode are part of the key. Entries hang off the block
// objects (a WeakMap), so a deleted block's texts go with it.
import type { ReadMode } from '../codec/encode.js';
import { joinBytes, ownBytes } from '../shared/json.js';
import type { UnitPrefs } from '../codec/units.js';
import type { AnyBlock } from './types.js';

interface Entry {
  epoch: number;
  /** The raw state the texts were encoded from, as UTF-8 JSON (off the V8 heap, as the texts). */
  fingerprint: Buffer;
  /** UTF-8 JSON by key: read mode and unit preference. */
  texts: Map<string, Buffer>;
  /** Values made from the block's encoding (see derived()), by name and unit preference. */
  derived: Map<string, unknown> | null;
}

/** Distinct (mode, units) keys kept per block; more means preferences keep changing, so start over. */
const MAX_KEYS = 8;

export interface EncodeSource {
  serviceId: string;
  units: UnitPrefs;
  blocks(): readonly AnyBlock[];
  /** `JSON.stringify(toJson(block, mode))`. */
  toText(block: AnyBlock, mode: ReadMode): string;
  prependListener(event: 'change' | 'tick', fn: () => void): unknown;
}

export class EncodeCache {
  private epoch = 0;
  private readonly entries = new WeakMap<AnyBlock, Entry>();
  /** The whole list per key, made once per epoch. */
  private readonly lists = new Map<string, { epoch: number; bytes: Buffer }>();
  /** Blocks encoded (cache misses) since start; the tests watch it. */
  misses = 0;

  constructor(private readonly source: EncodeSource) {
    // Prepended, so the epoch moves before any other listener can read.
    source.prependListener('change', () => this.invalidate());
    source.prependListener('tick', () => this.invalidate());
  }

  /** Start a new epoch: every block's state is checked again on its next read. */
  invalidate(): void {
    this.epoch++;
  }

  /** The JSON text of one block, as `JSON.stringify(runtime.toJson(block, mode))`. */
  text(block: AnyBlock, mode: ReadMode = 'default'): string {
    return this.bytes(block, mode).toString();
  }

  /** The same as UTF-8 bytes, what an HTTP answer sends. Shared: callers must not change it. */
  bytes(block: AnyBlock, mode: ReadMode = 'default'): Buffer {
    return this.lookup(block, `${mode} ${this.unitsKey()}`, mode);
  }

  /** The JSON text of the block list (every block, by nid), as `JSON.stringify(runtime.readAll(mode))`. */
  list(mode: ReadMode = 'default'): string {
    return this.listBytes(mode).toString();
  }

  /** The same list as UTF-8 bytes, what all/read answers and the state message holds. Shared: callers must not change it. */
  listBytes(mode: ReadMode = 'default'): Buffer {
    const key = `${mode} ${this.unitsKey()}`;
    const cached = this.lists.get(key);
    if (cached?.epoch === this.epoch) return cached.bytes;
    const blocks = this.source.blocks();
    const parts = new Array<Buffer>(blocks.length);
    for (let i = 0; i < blocks.length; i++) parts[i] = this.lookup(blocks[i]!, key, mode);
    // Older epochs' lists (and those of unit preferences no longer in use) are dropped.
    for (const [k, e] of this.lists) if (e.epoch !== this.epoch) this.lists.delete(k);
    const entry = { epoch: this.epoch, bytes: joinBytes('[', parts, ']') };
    this.lists.set(key, entry);
    return entry.bytes;
  }

  /** The block's entry, emptied if the block changed since its texts were made. */
  private current(block: AnyBlock): Entry {
    let entry = this.entries.get(block);
    if (!entry) {
      entry = { epoch: this.epoch, fingerprint: fingerprint(block), texts: new Map(), derived: null };
      this.entries.set(block, entry);
    } else if (entry.epoch !== this.epoch) {
      const now = fingerprint(block);
      if (!now.equals(entry.fingerprint)) {
        entry.fingerprint = now;
        entry.texts.clear();
        entry.derived = null;
      }
      entry.epoch = this.epoch;
    }
    return entry;
  }

  private lookup(block: AnyBlock, key: string, mode: ReadMode): Buffer {
    const entry = this.current(block);
    let encoded = entry.texts.get(key);
    if (encoded === undefined) {
      if (entry.texts.size >= MAX_KEYS) entry.texts.clear();
      encoded = ownBytes(this.source.toText(block, mode));
      entry.texts.set(key, encoded);
      this.misses++;
    }
    return encoded;
  }

  /**
   * A value made from the block by `make` (which reads it only through the runtime's encoding),
   * kept as long as the block's texts are: made again only when the block changed or the unit
   * preference did. The value is shared: callers must not change it.
   */
  derived<T>(block: AnyBlock, name: string, make: (block: AnyBlock) => T): T {
    const entry = this.current(block);
    const key = `${name} ${this.unitsKey()}`;
    const values = (entry.derived ??= new Map());
    if (values.has(key)) return values.get(key) as T;
    if (values.size >= MAX_KEYS) values.clear();
    const value = make(block);
    values.set(key, value);
    return value;
  }

  /** The unit preference as part of a cache key; read on every block read, so no serialising. */
  private unitsKey(): string {
    return this.source.units.temperature;
  }
}

// unitsKey() names every unit preference there is; one added to UnitPrefs must be added there
// too (or cached texts would ignore it), and this line stops compiling until it is.
const UNITS_KEY_COVERS_EVERY_PREFERENCE: Exclude<keyof UnitPrefs, 'temperature'> extends never ? true : never = true;
void UNITS_KEY_COVERS_EVERY_PREFERENCE;

/** Everything a block's encoding is made of, besides the mode and the units. */
function fingerprint(block: AnyBlock): Buffer {
  return ownBytes(JSON.stringify([block.id, block.nid, block.data, block.meta]));
}
