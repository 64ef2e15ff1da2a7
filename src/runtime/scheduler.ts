// The scheduler: running one block's update and choosing when it runs next, the tick that runs
// every block that is due, and the two clocks it runs on: the wall clock is looked at before every
// tick and write, and a jump moves wall-anchored progress before any block sees the new time.
import type { Logger } from '../log.js';
import type { BlockTable } from './block-table.js';
import { WallClockWatch, type Clock, type ClockJump } from './clock.js';
import type { BatchScope, ChangeEvent } from './core.js';
import type { SchedulerOrder } from './order.js';
import type { UnsavedBlocks } from './unsaved.js';
import { readWall } from './update-context.js';
import type { AnyBlock, UpdateContext, WallMove } from './types.js';

/** When an update returns no usable next time (or throws), the block runs again after this. */
export const IDLE_INTERVAL_MS = 1000;

export function runUpdate(block: AnyBlock, ctx: UpdateContext, now: number, log: Logger): void {
  const def = block.def;
  if (!def.update) {
    block.nextUpdate = Infinity;
    return;
  }
  try {
    const next = def.update(block, ctx);
    block.nextUpdate = Number.isFinite(next) && next > now ? next : now + IDLE_INTERVAL_MS;
  } catch (e) {
    block.nextUpdate = now + IDLE_INTERVAL_MS;
    log.error({ err: e, id: block.id, type: def.type }, 'block update failed');
  }
}

/**
 * The earliest time any of the blocks wants to run; with `slackMs`, the latest time a block is due
 * within that much of the earliest, so blocks due close together run in one step.
 */
export function nextDue(blocks: () => Iterable<AnyBlock>, slackMs = 0): number {
  let next = Infinity;
  for (const b of blocks()) if (b.nextUpdate < next) next = b.nextUpdate;
  if (slackMs <= 0 || !Number.isFinite(next)) return next;
  const until = next + slackMs;
  let last = next;
  for (const b of blocks()) if (b.nextUpdate > last && b.nextUpdate <= until) last = b.nextUpdate;
  return last;
}

/** What the scheduler sees of the block runtime (runtime.ts); the counters are the runtime's own. */
export interface SchedulerHost {
  readonly clock: Clock;
  readonly log: Logger;
  readonly table: BlockTable;
  readonly order: SchedulerOrder;
  /** Control disabled: no block runs. */
  readonly paused: boolean;
  tickCount: number;
  lastTickAt: number;
  blocks(): readonly AnyBlock[];
  jumpIsTimeStopped(): boolean;
  changed(event: ChangeEvent): void;
  emit(event: 'tick', now: number): boolean;
  emit(event: 'clockJump', jump: ClockJump): boolean;
  emit(event: 'clockSet', wall: number): boolean;
}

export class Scheduler {
  /** Wall-clock jumps, looked for before every tick and write (checkClock). */
  readonly wallWatch: WallClockWatch;
  /** The wall clock read not set at the last look (checkClock). */
  private wallUnset = false;
  private ticking = false;

  constructor(
    private readonly host: SchedulerHost,
    private readonly ctx: UpdateContext,
    private readonly unsaved: UnsavedBlocks,
    /** Stored data changed outside a write (a wall move): reads encode it again. */
    private readonly invalidateReads: () => void,
  ) {
    this.wallWatch = new WallClockWatch(host.clock);
  }

  /**
   * Looks for a wall-clock jump since the last look. A jump moves wall-anchored progress by as
   * much (wallMoved), before any block sees the new time, and is emitted as `clockJump`:
   * control never acts on it (DESIGN §11, two clocks).
   */
  checkClock(): ClockJump | null {
    const jump = this.wallWatch.check();
    // A clock that was not set is no jump (there is no time to jump from); it is said apart, and
    // also before any block sees the time.
    const wall = this.host.clock.wall();
    if (wall === null) this.wallUnset = true;
    else if (this.wallUnset) {
      this.wallUnset = false;
      this.host.emit('clockSet', wall);
    }
    if (!jump) return null;
    const reason = jump.byMs > 0 && this.host.jumpIsTimeStopped() ? 'restart' : 'jump';
    this.moveWall({ byMs: jump.byMs, reason, wall: jump.at });
    this.host.emit('clockJump', jump);
    return jump;
  }

  /** Before a write hook runs: the clocks looked at, and their time in the update context. */
  readClocks(): void {
    this.checkClock();
    this.ctx.now = this.host.clock.now();
    readWall(this.ctx, this.host.clock);
  }

  /**
   * A block was written (`due`: when it was due before): it is due now, and the blocks that are
   * due run. In a batch they do not: the batch runs them once, after its last item (batch.ts),
   * and a batch undone leaves the block due as it was.
   */
  written(block: AnyBlock, due: number, scope: BatchScope | null): void {
    block.nextUpdate = -Infinity;
    if (!scope) return this.tick(this.host.clock.now());
    scope.undo.push(() => {
      block.nextUpdate = due;
    });
  }

  /** A start on a clock not set: the wall time the service saw last (ctx.lastWall) before it. */
  wallLastSeen(at: number): void {
    if (this.host.clock.wall() === null) this.ctx.lastWall = at;
  }

  /** The wall clock moved by time that did not pass for the controller (a jump, or the time it was stopped). */
  moveWall(move: WallMove): void {
    const changed: AnyBlock[] = [];
    for (const block of this.host.blocks()) {
      if (!block.def.wallMoved) continue;
      try {
        if (block.def.wallMoved(block, move)) changed.push(block);
      } catch (e) {
        this.host.log.error({ err: e, id: block.id }, 'wallMoved failed');
      }
    }
    if (!changed.length) return;
    for (const block of changed) this.unsaved.persist(block);
    this.invalidateReads();
    this.host.changed({ changed, deleted: [], origin: 'clock' });
  }

  /** Run every block that is due, in dependency order. Never throws. */
  tick(now: number): void {
    const host = this.host;
    if (this.ticking) return;
    this.checkClock();
    if (host.paused) return;
    this.ticking = true;
    try {
      this.ctx.now = now;
      this.ctx.ticks = host.tickCount;
      readWall(this.ctx, host.clock);
      for (const block of host.order.current()) {
        if (block.nextUpdate <= now && host.table.isLive(block)) runUpdate(block, this.ctx, now, host.log);
      }
      this.unsaved.retry(now);
      host.tickCount++;
      host.lastTickAt = now;
    } finally {
      this.ticking = false;
    }
    host.emit('tick', now);
  }

  /** The earliest time any block wants to run (with `slackMs`: see nextDue). */
  nextDue(slackMs: number): number {
    return nextDue(() => this.host.table.values(), slackMs);
  }
}
