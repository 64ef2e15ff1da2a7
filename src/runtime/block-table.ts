// The runtime's tables: the live blocks by nid and by id, and the record text last written per
// nid. The maps are private, so a block is added, renamed and removed in one place and the two
// indexes cannot disagree; the runtime's operations (core.ts) reach blocks through this class.
import type { AnyBlock } from './types.js';

export class BlockTable {
  private readonly nids = new Map<number, AnyBlock>();
  private readonly ids = new Map<string, AnyBlock>();
  private readonly written = new Map<number, string>();
  /** The live blocks by nid, made again only after a block was added or removed. */
  private sorted: readonly AnyBlock[] | null = null;

  get size(): number {
    return this.nids.size;
  }

  byNid(nid: number): AnyBlock | undefined {
    return this.nids.get(nid);
  }

  byId(id: string): AnyBlock | undefined {
    return this.ids.get(id);
  }

  hasNid(nid: number): boolean {
    return this.nids.has(nid);
  }

  hasId(id: string): boolean {
    return this.ids.has(id);
  }

  /** The block is the one held at its nid (not a removed or replaced object). */
  isLive(block: AnyBlock): boolean {
    return this.nids.get(block.nid) === block;
  }

  /** Every live block, in insertion order (blocks() in the runtime sorts by nid). */
  values(): IterableIterator<AnyBlock> {
    return this.nids.values();
  }

  /** Every live block by nid; the same array until a block is added or removed, so never changed in place. */
  sortedByNid(): readonly AnyBlock[] {
    return (this.sorted ??= [...this.nids.values()].sort((a, b) => a.nid - b.nid));
  }

  /** Add a block, or put a removed block object back (undoing a failed batch or load). */
  add(block: AnyBlock): void {
    this.sorted = null;
    this.nids.set(block.nid, block);
    this.ids.set(block.id, block);
  }

  rename(block: AnyBlock, to: string): void {
    this.ids.delete(block.id);
    block.id = to;
    this.ids.set(to, block);
  }

  remove(block: AnyBlock): void {
    this.sorted = null;
    this.nids.delete(block.nid);
    this.ids.delete(block.id);
    this.written.delete(block.nid);
  }

  /** The record text last written for `nid`. */
  lastWritten(nid: number): string | undefined {
    return this.written.get(nid);
  }

  hasWritten(nid: number): boolean {
    return this.written.has(nid);
  }

  setWritten(nid: number, text: string): void {
    this.written.set(nid, text);
  }

  forgetWritten(nid: number): void {
    this.written.delete(nid);
  }
}
