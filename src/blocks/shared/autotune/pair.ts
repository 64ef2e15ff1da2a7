// A PID tuned as the pair of another (a fridge's Heat PID while its Cool PID is tuned): it drives
// what its tuner asks, while the tuner runs, asks it, and the pair is enabled.
import type { UpdateContext } from '../../../runtime/types.js';
import type { TunedPid } from './pid-state.js';

/** A pair's request older than this is not followed (its tuner stopped without telling). */
const PAIR_STALE_MS = 5000;

/** What the tuner of `block` asks of it this update, or null when no tuning drives it as a pair. */
export function pairRequest(block: TunedPid, ctx: UpdateContext): number | null {
  const tu = block.data.tuning;
  const v = block.state.tuning;
  if (!v.paired) return null;
  const by = tunerOf(block, ctx, v.paired.byNid);
  const run = by?.state.tuning.run;
  // A disabled pair is let go at once: its tuner may not have seen it yet this tick, and an
  // output driven by a disabled PID stays claimed (the PID lets go only when it disables).
  if (
    block.data.enabled &&
    by &&
    by.data.tuning.state === 'RUNNING' &&
    run?.pairNid === block.nid &&
    ctx.now - v.paired.at <= PAIR_STALE_MS
  ) {
    tu.tunedBy = by.id;
    return v.paired.request;
  }
  v.paired = null;
  tu.tunedBy = null;
  return null;
}

/** The PID whose tuning drives `pair`: by its nid, among the PIDs on the pair's setpoint. */
function tunerOf(pair: TunedPid, ctx: UpdateContext, nid: number): TunedPid | null {
  if (!pair.data.inputId) return null;
  const b = ctx.referrers(pair.data.inputId).find((x) => x.nid === nid && x.def.type === 'Pid');
  return b ? (b as unknown as TunedPid) : null;
}
