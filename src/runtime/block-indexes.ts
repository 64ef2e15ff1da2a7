// Putting a new block in the runtime's table and indexes, and keeping what the runtime derives
// from its blocks (links, scheduler order, claims, the read cache) in step after they change.
import { overlayOwned, withReadonly } from '../codec/apply.js';
import type { Partial } from '../codec/partial.js';
import type { BlockTable } from './block-table.js';
import { channels, claimByLinks, claimChannels, claimedBy, releaseStale, type ChannelClaims } from './claims.js';
import type { BatchScope } from './core.js';
import type { LinkIndex, OutLink } from './links.js';
import type { SchedulerOrder } from './order.js';
import type { Reads } from './reads.js';
import type { AnyBlock, BlockTypeDef, Data } from './types.js';

/** The runtime's blocks and the indexes over them (runtime.ts). */
export interface Indexed {
  readonly table: BlockTable;
  readonly links: LinkIndex;
  readonly channelClaims: ChannelClaims;
  readonly order: SchedulerOrder;
  /** A batch running: the claims let go are taken back when it is undone. */
  readonly scope: BatchScope | null;
  /** The time wall-anchored progress reads now (wallForProgress): a profile claims once started (claimByLinks). */
  wallForProgress(): number | null;
  /** Store a block a claim switched to CLAIMED, as an update's claim does (a full card: retried). */
  persistClaimed(block: AnyBlock): void;
  recordString(block: AnyBlock): string;
}

export function insertBlock(
  ix: Indexed,
  def: BlockTypeDef<any, any>,
  nid: number,
  id: string,
  writableData: Data,
  meta: Record<string, unknown>,
  owned?: Partial,
): AnyBlock {
  const block: AnyBlock = {
    nid,
    id,
    def,
    data: withReadonly(def.fields, undefined, writableData) as AnyBlock['data'],
    meta,
    state: undefined,
    nextUpdate: -Infinity,
  };
  // A restored block's own stored values are in place before init, which sees the block as stored
  // (a Sequence's store mode resets its stored time with its position).
  if (owned) overlayOwned(def.fields, block.data as Data, owned);
  block.state = def.init ? def.init(block) : undefined;
  ix.table.add(block);
  ix.links.update(block);
  ix.order.place(block);
  return block;
}

/** After changes to many blocks (load, backup, rename, a batch undone): everything is looked at again. */
export function reindexAll(ix: Indexed, reads: Reads): void {
  ix.order.invalidate();
  ix.links.invalidate();
  ix.channelClaims.invalidate();
  reads.invalidate();
  settleClaims(ix, ix.table.values(), ix.order.current());
}

/**
 * After one block was created or its data changed: its links are indexed again, it moves in
 * the scheduler order when they changed, and claims on what it linked to are checked. The
 * cost does not grow with the number of blocks.
 */
export function reindexBlock(ix: Indexed, reads: Reads, block: AnyBlock): void {
  reads.invalidate();
  const before = ix.links.update(block);
  const after = ix.links.outgoing(block);
  if (!before || !sameLinks(before, after)) ix.order.place(block);
  // Without the links it had before (the index was dropped since), look at every block once.
  if (before) releaseStaleAround(ix, block, [...before, ...after]);
  else settleClaims(ix, ix.table.values(), ix.order.current());
}

/** After one block was removed: claims it held on what it linked to are dropped. */
export function reindexRemoved(ix: Indexed, reads: Reads, block: AnyBlock, links: OutLink[]): void {
  reads.invalidate();
  releaseStaleAround(ix, block, links);
}

/**
 * Drop the claims a block held through `links` once it no longer drives (or exists), and take
 * those its links now make: its own, and those of the drivers of it and of its targets (the one
 * first in order wins a target both drive, as in a tick).
 */
function releaseStaleAround(ix: Indexed, block: AnyBlock, links: OutLink[]): void {
  const near = new Set<AnyBlock>([block]);
  for (const l of links) {
    const target = ix.table.byId(l.id);
    if (target) near.add(target);
  }
  const claimers = new Set<AnyBlock>();
  for (const b of near) {
    // A block on an IO channel claims it (claimChannels), a DigitalInput without a driving link too.
    if (ix.table.isLive(b) && (drivesAny(ix, b) || b.def.channelVia)) claimers.add(b);
    for (const r of ix.links.referrers(b.id)) if (ix.table.isLive(r) && drives(ix, r, b.id)) claimers.add(r);
  }
  const looked = new Set(near);
  for (const c of claimers) {
    looked.add(c);
    for (const l of ix.links.outgoing(c)) {
      const target = l.drives ? ix.table.byId(l.id) : undefined;
      if (target) looked.add(target);
    }
  }
  settleClaims(ix, looked, ix.order.ordered([...claimers]));
}

const drivesAny = (ix: Indexed, b: AnyBlock) => ix.links.outgoing(b).some((l) => l.drives);
const drives = (ix: Indexed, b: AnyBlock, id: string) => ix.links.outgoing(b).some((l) => l.drives && l.id === id);

/**
 * Drop claims whose claimer is gone, disabled or linked elsewhere, then let `claimers` (in
 * scheduler order) take what their links claim (claims.ts, claimByLinks, and the IO channel each
 * names, claimChannels). A block let go is
 * updated at the next tick, so what it reads (a setpoint's setting, now none) follows at once, not
 * at its next own update. `blocks` holds every block whose claims this can change.
 */
function settleClaims(ix: Indexed, blocks: Iterable<AnyBlock>, claimers: Iterable<AnyBlock>): void {
  const undo = ix.scope?.undo;
  const looked = undo ? [...blocks] : blocks;
  const before = undo ? (looked as AnyBlock[]).map(heldClaims) : [];
  for (const b of releaseStale(looked, (id) => ix.table.byId(id))) b.nextUpdate = -Infinity;
  for (const b of claimByLinks(claimers, ix.table, ix.wallForProgress())) {
    // Stored in CLAIMED mode, as an update's claim stores it. A failed batch rolls the record
    // back: what was written is the record again, once its mode is back (undone last).
    undo?.push(() => {
      if (ix.table.isLive(b)) ix.table.setWritten(b.nid, ix.recordString(b));
    });
    ix.persistClaimed(b);
  }
  claimChannels(claimers, ix.table, ix.channelClaims);
  // In a batch: a failed one takes them back, and the blocks let go are due again as they were.
  for (const held of before) if (!sameClaims(held, heldClaims(held.block))) undo!.push(() => restoreClaims(held));
}

interface HeldClaims {
  block: AnyBlock;
  holder: string | null;
  mode: string | undefined;
  channels: Array<string | null>;
  due: number;
}

function heldClaims(block: AnyBlock): HeldClaims {
  return {
    block,
    holder: claimedBy(block),
    mode: (block.data as { settingMode?: string }).settingMode,
    channels: channels(block).map((c) => c.claimedBy),
    due: block.nextUpdate,
  };
}

function sameClaims(a: HeldClaims, b: HeldClaims): boolean {
  return (
    a.holder === b.holder && a.mode === b.mode && a.due === b.due && a.channels.every((c, i) => c === b.channels[i])
  );
}

function restoreClaims(held: HeldClaims): void {
  const data = held.block.data as { claimedBy?: string | null };
  if ('claimedBy' in data) data.claimedBy = held.holder;
  if (held.mode !== undefined) (data as { settingMode?: string }).settingMode = held.mode;
  channels(held.block).forEach((c, i) => {
    if (i < held.channels.length) c.claimedBy = held.channels[i]!;
  });
  held.block.nextUpdate = held.due;
}

function sameLinks(a: OutLink[], b: OutLink[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((l, i) => l.id === b[i]!.id && l.drives === b[i]!.drives && l.path.join('.') === b[i]!.path.join('.'));
}
