// The IoArray channel a channel block (DigitalActuator, DigitalInput, FastPwm, MotorValve)
// uses: claiming it each update, and reaching the output it last drove after it moved away.
import type { AnyBlock, IoArray, UpdateContext } from '../../runtime/types.js';

/** Where a block last wrote, so that it can leave that output inactive when it moves or goes. */
export interface DrivenOutput {
  arrayId: string;
  channel: number;
  invert: boolean;
}

/**
 * Claim the channel `data.channel` of the array `data.hwDevice` links to. `io` is null (and
 * no channel held) when the link, the channel or the claim is missing.
 */
export function claimOwnChannel(block: AnyBlock, ctx: UpdateContext, iface = 'IoArrayInterface'): { array: AnyBlock | null; io: IoArray | null } {
  const d = block.data as { hwDevice: string | null; channel: number | null };
  const array = ctx.resolve(d.hwDevice, iface);
  const io = array && d.channel ? ctx.claimChannel(array, d.channel, block) : null;
  if (!io) ctx.releaseChannels(block);
  return { array, io };
}

/** The IO of the array a block drove before, to switch that output off. */
export function drivenIo(ctx: UpdateContext, output: DrivenOutput): IoArray | null {
  const array = ctx.resolve(output.arrayId, 'IoArrayInterface');
  return array?.def.io?.(array, ctx) ?? null;
}
