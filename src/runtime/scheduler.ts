// Running one block's update and choosing when it runs next.
import type { Logger } from '../log.js';
import type { AnyBlock, UpdateContext } from './types.js';

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
