// Who links to whom, kept up to date block by block, so a single create, write, patch or delete
// costs the same with 10 blocks or 10 000: the scheduler order places one block (order.ts),
// stale claims are looked for among that block's link targets only, and a delete can say which
// blocks now link to nothing. Structural changes (load, backup, batch rollback, rename) drop
// the index; it is rebuilt from every block on its next use.
import { forEachLink } from '../codec/fields.js';
import type { AnyBlock } from './types.js';

export interface OutLink {
  /** Field path inside the block data, e.g. ['constraints', 'mutexed', 'mutexId']. */
  path: string[];
  id: string;
  /** A driving link (PID -> output): the source runs first and claims the target. */
  drives: boolean;
}

/** The block's writable links that name a block id (read-only links such as claimedBy are computed). */
export function linksOf(block: AnyBlock): OutLink[] {
  const out: OutLink[] = [];
  forEachLink(block.def.fields, block.data as Record<string, unknown>, (path, id, field) => {
    if (id && !field.readonly) out.push({ path, id, drives: field.spec.drives });
  });
  return out;
}

export class LinkIndex {
  private readonly out = new Map<AnyBlock, OutLink[]>();
  private readonly into = new Map<string, Set<AnyBlock>>();
  private fresh = false;
  /** Full rebuilds since start; the tests watch that a single-block change causes none. */
  rebuilds = 0;

  constructor(private readonly all: () => Iterable<AnyBlock>) {}

  /** Forget everything; the next question rebuilds the index from every block. */
  invalidate(): void {
    this.fresh = false;
    this.out.clear();
    this.into.clear();
  }

  /**
   * Index (again) one block's links after it was inserted or its data changed. Returns the
   * links it had before, or null when the index is not built (it will read the new ones).
   */
  update(block: AnyBlock): OutLink[] | null {
    if (!this.fresh) return null;
    const before = this.out.get(block) ?? [];
    this.unlink(block);
    this.link(block);
    return before;
  }

  remove(block: AnyBlock): void {
    if (this.fresh) this.unlink(block);
  }

  outgoing(block: AnyBlock): OutLink[] {
    this.ensure();
    return this.out.get(block) ?? [];
  }

  /** Blocks whose writable links name `id` (whether or not a block has that id now). */
  referrers(id: string): AnyBlock[] {
    this.ensure();
    return [...(this.into.get(id) ?? [])];
  }

  private ensure(): void {
    if (this.fresh) return;
    this.rebuilds++;
    for (const b of this.all()) this.link(b);
    this.fresh = true;
  }

  private link(block: AnyBlock): void {
    const links = linksOf(block);
    this.out.set(block, links);
    for (const l of links) {
      let set = this.into.get(l.id);
      if (!set) this.into.set(l.id, (set = new Set()));
      set.add(block);
    }
  }

  private unlink(block: AnyBlock): void {
    for (const l of this.out.get(block) ?? []) {
      const set = this.into.get(l.id);
      set?.delete(block);
      if (set?.size === 0) this.into.delete(l.id);
    }
    this.out.delete(block);
  }
}
