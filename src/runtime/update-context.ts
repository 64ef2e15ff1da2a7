// The context block update and write hooks receive: link resolution, output claims, IoArray
// channel claims, waking a block and persisting it. One object per runtime, reused every tick.
import { claim, channels, release } from './claims.js';
import type { RuntimeCore } from './core.js';
import { resolveIn, type Resolve } from './interfaces.js';
import type { Clock } from './clock.js';
import type { AnyBlock, Data, IoArray, UpdateContext } from './types.js';
import type { UnsavedBlocks } from './unsaved.js';

export function makeUpdateContext(rt: RuntimeCore, unsaved: UnsavedBlocks): UpdateContext {
  const ctx: UpdateContext = {
    now: 0,
    ticks: 0,
    wall: null,
    lastWall: null,
    resolve: ((id, iface) => resolveIn(rt.table, id, iface)) as Resolve,
    claim(target, claimer) {
      const r = claim(target, claimer);
      if (r.modeChanged) unsaved.persist(target);
      return r.held;
    },
    release(target, claimer) {
      release(target, claimer);
    },
    claimChannel(array, channel, claimer) {
      if (!array.def.io) return null;
      const ch = channels(array).find((c) => c.id === channel);
      if (!ch) return null;
      if (ch.claimedBy !== null && ch.claimedBy !== claimer.id) return null;
      ctx.releaseChannels(claimer, { array, channel });
      ch.claimedBy = claimer.id;
      rt.channelClaims.add(claimer.id, array);
      return array.def.io(array, ctx) as IoArray | null;
    },
    releaseChannels(claimer, except) {
      rt.channelClaims.release(claimer.id, except);
    },
    wake(block) {
      // A write hook in a batch: due again as it was when the batch is undone.
      const due = block.nextUpdate;
      if (due <= ctx.now) return;
      block.nextUpdate = ctx.now;
      rt.scope?.undo.push(() => {
        block.nextUpdate = due;
      });
    },
    persist(block) {
      unsaved.persist(block);
    },
    undoable(undo) {
      rt.scope?.undo.push(undo);
    },
    afterCommit(act) {
      if (rt.scope) rt.scope.commit.push(act);
      else act();
    },
    letGoOfChip(block, key, hw) {
      const names = (b: AnyBlock) => rt.table.isLive(b) && b.def.chip?.(b.data as Data) === key;
      const driven = (b: AnyBlock) => b.def.driven?.(b) ?? 0;
      const beside = [...rt.table.values()].filter((b) => b !== block && names(b));
      const drove = driven(block);
      ctx.afterCommit(() => {
        if (names(block)) return;
        const still = beside.filter(names);
        if (still.length) {
          // A second block keeps the chip: what only this one drove goes off, the rest as it is.
          const theirs = still.reduce((bits, b) => bits | driven(b), 0);
          if (drove & ~theirs) hw.outputsOff(drove & ~theirs);
          return;
        }
        if (![...rt.table.values()].some(names)) return hw.release();
        hw.handOver();
        // A block that took the chip over in the change: the blocks on it drive it again in the
        // tick that follows the commit, before the hardware next polls it.
        for (const holder of rt.table.values())
          if (names(holder)) for (const user of rt.links.referrers(holder.id)) user.nextUpdate = -Infinity;
      });
    },
    changing(block) {
      if (!rt.scope) return;
      // The hook changes a copy; a failed batch puts the data it had back, as its record is
      // again once the transaction rolls back.
      const data = block.data;
      block.data = structuredClone(data);
      ctx.undoable(() => {
        block.data = data;
        if (rt.table.isLive(block)) rt.table.setWritten(block.nid, rt.recordString(block));
      });
    },
    referrers: (id) => rt.links.referrers(id),
    get units() {
      return rt.units;
    },
    hardware: rt.hardware,
    log: rt.log,
  };
  return ctx;
}

/** Reads the wall clock into `ctx.wall`, and a valid reading into `ctx.lastWall` too. */
export function readWall(ctx: UpdateContext, clock: Clock): void {
  ctx.wall = clock.wall();
  if (ctx.wall !== null) ctx.lastWall = ctx.wall;
}
