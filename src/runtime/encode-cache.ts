// Encoded JSON of each block, per read mode and unit preference, shared by the REST reads and
// the state emission, so a block that did not change is never encoded twice. Kept as UTF-8 bytes
// (what an HTTP answer and an MQTT message send), outside the V8 heap, each in a slot that the
// block's next text is written into (ByteSlot): the texts of blocks that change every cycle
// would otherwise live a cycle, be promoted and wait for a full collection to be freed.
//
// Validity: every mutation of block data happens inside a runtime operation that ends in a
// 'change' or 'tick' event (writes, deletes, renames, backup loads, block updates, claims) or
// in a structure change; each of them starts a new epoch. Within an epoch a cached text is
// served as is. In a new epoch a block's raw state (id, nid, internal data, meta) is compared
// with the one its texts were made from; only a block whose state differs is encoded again.
// The unit preference and the read mode are part of the key. Entries hang off the block
// objects (a WeakMap), so a deleted block's texts go with it.
import type { ReadMode } from '../codec/encode.js';
import { ByteSlot, joinBytes } from '../shared/json.js';
import type { UnitPrefs } from '../codec/units.js';
import { blockText } from './block-json.js';
import type { AnyBlock } from './types.js';

interface Entry {
  epoch: number;
  /** The raw state the texts were encoded from, as UTF-8 JSON (off the V8 heap, as the texts). */
  fingerprint: ByteSlot;
  /** Counts the fingerprint's changes: a text or value made at another version is out of date. */
  version: number;
  /** UTF-8 JSON by key: read mode and unit preference. */
  texts: Map<string, Made<ByteSlot>>;
  /** Values made from the block's encoding (see derived()), by name and unit preference. */
  derived: Map<string, Made<unknown>> | null;
}

/** A text or value and the version of the block's state it was made from. */
interface Made<T> {
  value: T;
  version: number;
}

/** Distinct (mode, units) keys kept per block; more means preferences keep changing, so start over. */
const MAX_KEYS = 8;

export interface EncodeSource {
  serviceId: string;
  units: UnitPrefs;
  blocks(): readonly AnyBlock[];
  prependListener(event: 'change' | 'tick', fn: () => void): unknown;
}

export class EncodeCache {
  private epoch = 0;
  private readonly entries = new WeakMap<AnyBlock, Entry>();
  /** The whole list per key, made once per epoch (emptied when the epoch moves). */
  private readonly lists = new Map<string, Buffer>();
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
    // Let the lists go now rather than at the next listBytes: kept until then (5 s when only the
    // state emission reads), each would outlive two young collections and wait for a full one.
    this.lists.clear();
  }

  /**
   * The JSON of one block, as UTF-8 bytes: a view of its slot, valid until the block changes.
   * What leaves the caller (an HTTP answer on a slow socket) must be a copy.
   */
  view(block: AnyBlock, mode: ReadMode): Buffer {
    return this.lookup(block, `${mode} ${this.unitsKey()}`, mode);
  }

  /** The JSON of the block list (every block, by nid) as UTF-8 bytes, what all/read answers. Shared: callers must not change it. */
  listBytes(mode: ReadMode): Buffer {
    const key = `${mode} ${this.unitsKey()}`;
    const cached = this.lists.get(key);
    if (cached) return cached;
    const bytes = this.joinList(key, mode, '', '');
    this.lists.set(key, bytes);
    return bytes;
  }

  /**
   * `head + list + tail` as UTF-8 bytes in one new buffer, not kept: the state message, which
   * would otherwise be a copy of the list copied again. The caller owns it.
   */
  wrappedListBytes(head: string, tail: string, mode: ReadMode): Buffer {
    return this.joinList(`${mode} ${this.unitsKey()}`, mode, head, tail);
  }

  private joinList(key: string, mode: ReadMode, head: string, tail: string): Buffer {
    const blocks = this.source.blocks();
    const parts = new Array<Buffer>(blocks.length);
    for (let i = 0; i < blocks.length; i++) parts[i] = this.lookup(blocks[i]!, key, mode);
    return joinBytes(`${head}[`, parts, `]${tail}`);
  }

  /** The block's entry, its version moved on if the block changed since its texts were made. */
  private current(block: AnyBlock): Entry {
    let entry = this.entries.get(block);
    if (!entry) {
      entry = {
        epoch: this.epoch,
        fingerprint: new ByteSlot(fingerprint(block)),
        version: 0,
        texts: new Map(),
        derived: null,
      };
      this.entries.set(block, entry);
    } else if (entry.epoch !== this.epoch) {
      if (entry.fingerprint.update(fingerprint(block))) entry.version++;
      entry.epoch = this.epoch;
    }
    return entry;
  }

  /** The block's text for `key`, a view of its slot (valid until the block's next change). */
  private lookup(block: AnyBlock, key: string, mode: ReadMode): Buffer {
    const entry = this.current(block);
    let made = entry.texts.get(key);
    if (made?.version !== entry.version) {
      const text = blockText(block, mode, this.source);
      if (made) {
        made.value.set(text);
        made.version = entry.version;
      } else {
        if (entry.texts.size >= MAX_KEYS) entry.texts.clear();
        made = { value: new ByteSlot(text), version: entry.version };
        entry.texts.set(key, made);
      }
      this.misses++;
    }
    return made.value.view();
  }

  /**
   * A value made from the block by `make` (which reads it only through the runtime's encoding),
   * kept as long as the block's texts are: made again only when the block changed or the unit
   * preference did. `make` gets the value it made last time, out of date, to reuse (a ByteSlot
   * to write into). The value is shared: callers must not change it.
   */
  derived<T>(block: AnyBlock, name: string, make: (block: AnyBlock, stale: T | undefined) => T): T {
    const entry = this.current(block);
    const key = `${name} ${this.unitsKey()}`;
    const values = (entry.derived ??= new Map());
    let made = values.get(key) as Made<T> | undefined;
    if (made?.version === entry.version) return made.value;
    if (made) {
      made.value = make(block, made.value);
      made.version = entry.version;
    } else {
      if (values.size >= MAX_KEYS) values.clear();
      made = { value: make(block, undefined), version: entry.version };
      values.set(key, made);
    }
    return made.value;
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
function fingerprint(block: AnyBlock): string {
  return JSON.stringify([block.id, block.nid, block.data, block.meta]);
}
