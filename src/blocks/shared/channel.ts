// The IoArray channel a channel block (DigitalActuator, DigitalInput, FastPwm, MotorValve)
// uses: claiming it each update, and reaching the output it last drove after it moved away.
import type { ValidationIssue } from '../../codec/partial.js';
import type { AnyBlock, Data, IoArray, UpdateContext } from '../../runtime/types.js';
import type { Linked, Resolve } from '../../runtime/interfaces.js';
import { ChannelCapability } from './enums.js';
import { channelCapabilities } from './soft-start.js';

/** Where a block last wrote, so that it can leave that output inactive when it moves or goes. */
export interface DrivenOutput {
  arrayId: string;
  channel: number;
  invert: boolean;
}

/**
 * Claim the channel `data.channel` of the array `data.hwDevice` links to (through the type's
 * channelVia interface; a load takes the same claim, runtime/claims.ts claimChannels). `io` is null (and
 * no channel held) when the link, the channel or the claim is missing.
 */
export function claimOwnChannel(
  block: AnyBlock,
  ctx: UpdateContext,
): { array: Linked<'IoArrayInterface'> | null; io: IoArray | null } {
  const d = block.data as { hwDevice: string | null; channel: number | null };
  const array = ctx.resolve(d.hwDevice, block.def.channelVia ?? 'IoArrayInterface');
  const io = array && d.channel ? ctx.claimChannel(array, d.channel, block) : null;
  if (!io) ctx.releaseChannels(block);
  return { array, io };
}

/** The IO of the array a block drove before, to switch that output off. */
export function drivenIo(ctx: UpdateContext, output: DrivenOutput): IoArray | null {
  const array = ctx.resolve(output.arrayId, 'IoArrayInterface');
  return array?.def.io?.(array, ctx) ?? null;
}

/**
 * A block that drives its channel (`checkData` of DigitalActuator, FastPwm): the channel must be
 * able to drive an output. An input line refused here, once, for REST and MQTT.
 */
export function outputChannelIssues(data: Data, resolve: Resolve): ValidationIssue[] {
  const array = resolve(data.hwDevice as string | null | undefined, 'IoArrayInterface');
  const channel = data.channel as number | null | undefined;
  if (!array || !channel) return [];
  const known = array.data.channels.some((c) => c.id === channel);
  if (!known || channelCapabilities(array, channel) & ChannelCapability.DIGITAL_OUTPUT) return [];
  const line = array.data.lines?.find((l) => l.channel === channel);
  const what = line
    ? `GPIO line "${line.name}" (line ${line.line}) has direction '${line.direction}'`
    : 'it is not an output';
  return [{ path: 'data.channel', message: `channel ${channel} of '${array.id}' cannot drive an output: ${what}` }];
}
