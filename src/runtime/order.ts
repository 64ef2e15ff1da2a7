// Dependency order for the scheduler: inputs update before the blocks that read them, and a
// block that drives another (PID -> PWM -> actuator) updates before its target.
import { forEachLink } from '../codec/fields.js';
import type { LinkIndex } from './links.js';
import type { AnyBlock } from './types.js';

export function dependencyOrder(blocks: readonly AnyBlock[]): AnyBlock[] {
  const byId = new Map(blocks.map((b) => [b.id, b]));
  const after = new Map<AnyBlock, Set<AnyBlock>>(blocks.map((b) => [b, new Set()]));
  const indegree = new Map<AnyBlock, number>(blocks.map((b) => [b, 0]));
  const edge = (first: AnyBlock, second: AnyBlock) => {
    if (first === second || after.get(first)!.has(second)) return;
    after.get(first)!.add(second);
    indegree.set(second, indegree.get(second)! + 1);
  };
  for (const b of blocks) {
    forEachLink(b.def.fields, b.data, (path, id, field) => {
      if (!id || field.readonly) return;
      const target = byId.get(id);
      if (!target) return;
      if (field.spec.drives) edge(b, target);
      else edge(target, b);
    });
  }
  const sorted = [...blocks].sort((a, b) => a.nid - b.nid);
  const ready = sorted.filter((b) => indegree.get(b) === 0);
  const out: AnyBlock[] = [];
  const done = new Set<AnyBlock>();
  while (out.length < sorted.length) {
    let next = ready.shift();
    if (!next) {
      // A cycle: break it at the lowest nid still waiting.
      next = sorted.find((b) => !done.has(b))!;
    }
    if (done.has(next)) continue;
    done.add(next);
    out.push(next);
    for (const succ of after.get(next)!) {
      const n = indegree.get(succ)! - 1;
      indegree.set(succ, n);
      if (n === 0 && !done.has(succ)) insertByNid(ready, succ);
    }
  }
  return out;
}

function insertByNid(list: AnyBlock[], b: AnyBlock) {
  const i = list.findIndex((x) => x.nid > b.nid);
  if (i < 0) list.push(b);
  else list.splice(i, 0, b);
}

/**
 * The scheduler's order, kept up to date one block at a time. Each block has a rank; the list is
 * sorted by rank. A created or re-linked block is given a rank between the blocks it must follow
 * and those it must precede (found through the link index); only when no such rank exists (the
 * new links reverse an existing order, or close a cycle) is the whole order rebuilt. Finding a
 * place is a binary search; the list itself is an array (a splice moves pointers, no block work).
 */
export class SchedulerOrder {
  private list: AnyBlock[] = [];
  private readonly rank = new Map<AnyBlock, number>();
  private valid = false;
  /** Full rebuilds (dependencyOrder over every block) since start; the tests watch it. */
  rebuilds = 0;

  constructor(
    private readonly all: () => readonly AnyBlock[],
    private readonly links: LinkIndex,
    private readonly byId: (id: string) => AnyBlock | undefined,
  ) {}

  invalidate(): void {
    this.valid = false;
  }

  /** Every block, inputs before their readers and drivers before their targets. */
  current(): AnyBlock[] {
    if (!this.valid) {
      this.rebuilds++;
      this.list = dependencyOrder(this.all());
      this.rank.clear();
      this.list.forEach((b, i) => this.rank.set(b, i));
      this.valid = true;
    }
    return this.list;
  }

  /** `blocks` in the scheduler's order (one block as it is: no rebuild for it). */
  ordered(blocks: AnyBlock[]): AnyBlock[] {
    if (blocks.length < 2) return blocks;
    this.current();
    return blocks.sort((a, b) => (this.rank.get(a) ?? 0) - (this.rank.get(b) ?? 0));
  }

  /** A block was inserted, or its links changed: give it a rank that keeps the order valid. */
  place(block: AnyBlock): void {
    if (!this.valid) return;
    this.removed(block);
    let lo = -Infinity;
    let hi = Infinity;
    const follows = (b: AnyBlock) => {
      const r = this.rank.get(b);
      if (r === undefined) hi = -Infinity;
      else lo = Math.max(lo, r);
    };
    const precedes = (b: AnyBlock) => {
      const r = this.rank.get(b);
      if (r === undefined) hi = -Infinity;
      else hi = Math.min(hi, r);
    };
    for (const l of this.links.outgoing(block)) {
      const target = this.byId(l.id);
      if (!target || target === block) continue;
      if (l.drives) precedes(target);
      else follows(target);
    }
    for (const referrer of this.links.referrers(block.id)) {
      if (referrer === block || this.byId(referrer.id) !== referrer) continue;
      for (const l of this.links.outgoing(referrer)) {
        if (l.id !== block.id) continue;
        if (l.drives) follows(referrer);
        else precedes(referrer);
      }
    }
    // At the end when nothing must follow; otherwise just before the first block that must, so
    // the blocks already there keep their room.
    let r: number;
    if (hi === Infinity) {
      const last = this.list.length ? this.rank.get(this.list[this.list.length - 1]!)! : 0;
      r = Math.max(lo, last) + 1;
    } else {
      const i = this.firstAtOrAbove(hi);
      const below = i > 0 ? this.rank.get(this.list[i - 1]!)! : hi - 1;
      r = (Math.max(lo, below) + hi) / 2;
    }
    if (!(r > lo && r < hi)) {
      this.valid = false;
      return;
    }
    this.rank.set(block, r);
    this.list.splice(this.firstAbove(r), 0, block);
  }

  removed(block: AnyBlock): void {
    if (!this.valid) return;
    const r = this.rank.get(block);
    if (r === undefined) return;
    // Blocks of equal rank sit together just below firstAbove(r).
    for (let i = this.firstAbove(r) - 1; i >= 0 && this.rankAt(i) === r; i--) {
      if (this.list[i] === block) {
        this.list.splice(i, 1);
        this.rank.delete(block);
        return;
      }
    }
    this.valid = false;
  }

  private rankAt(i: number): number | undefined {
    return this.rank.get(this.list[i]!);
  }

  /** First index whose block ranks at or above `r`. */
  private firstAtOrAbove(r: number): number {
    let lo = 0;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.rank.get(this.list[mid]!)! < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First index whose block ranks above `r`. */
  private firstAbove(r: number): number {
    let lo = 0;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.rank.get(this.list[mid]!)! <= r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
