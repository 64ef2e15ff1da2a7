// How a run ends, whatever ends it: its pair let go, the state and message set, the block stored.
import type { UpdateContext } from '../../../runtime/types.js';
import type { TunedPid } from './pid-state.js';

function release(block: TunedPid, ctx: UpdateContext, pairId: string | null): void {
  const pair = pairId ? ctx.resolve(pairId, 'Pid') : null;
  if (pair && pair.state.tuning.paired?.byNid === block.nid) {
    pair.state.tuning.paired = null;
    pair.data.tuning.tunedBy = null;
    ctx.wake(pair);
  }
}

export function end(block: TunedPid, ctx: UpdateContext, state: 'ABORTED' | 'PROPOSED', message: string): void {
  const tu = block.data.tuning;
  const v = block.state.tuning;
  release(block, ctx, v.run?.pairId ?? null);
  v.run = null;
  v.starting = false;
  v.gapSince = null;
  tu.state = state;
  tu.message = message;
  tu.phase = 'NONE';
  tu.timeLeft = null;
  ctx.persist(block);
}

/** Stop a run: the PID controls again with the gains it had (they were never changed). */
export function abort(block: TunedPid, ctx: UpdateContext, message: string): void {
  ctx.log.warn({ id: block.id, reason: message }, 'PID tuning aborted');
  end(block, ctx, 'ABORTED', message);
}
