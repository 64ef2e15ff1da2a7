// DigitalActuator: drives one IoArray channel on or off, optionally inverted.
import { f } from '../codec/fields.js';
import { defineBlock, type AnyBlock, type UpdateContext } from '../runtime/types.js';
import type { DigitalStateName } from './shared/enums.js';
import { claimableFields, digitalState, digitalStateOrNull } from './shared/fields.js';
import { desired, storedModeRatchet, type Driven } from './shared/pipeline.js';

const fields = {
  hwDevice: f.link('IoArrayInterface', { stored: true, drives: true }),
  channel: f.number({ stored: true, integer: true, min: 0, max: 64, description: '1-based channel; 0 = none' }),
  storedState: digitalState({ logged: true, stored: true }),
  desiredState: digitalStateOrNull({ readonly: true, logged: true }),
  state: digitalStateOrNull({ readonly: true, logged: true, description: 'the channel state read back; null when unknown' }),
  invert: f.bool({ stored: true, description: 'active-low output' }),
  ...claimableFields,
};

export type DigitalActuatorState = Driven<DigitalStateName>;

export const isActive = (s: DigitalStateName | null): boolean => s === 'STATE_ACTIVE';

export const DigitalActuator = defineBlock<typeof fields, DigitalActuatorState>({
  type: 'DigitalActuator',
  fields,
  implements: ['ActuatorDigitalInterface', 'DigitalInterface', 'ClaimableInterface', 'IoClaimerInterface'],
  description: 'A digital output on one IoArray channel',
  init: () => ({ request: null }),
  onWrite(block, info) {
    storedModeRatchet(block, info.given, 'storedState', info.patch);
  },
  onDelete(block, ctx) {
    setChannel(block, ctx, false);
    ctx.releaseChannels(block);
  },
  update(block, ctx) {
    const d = block.data;
    d.desiredState = desired(block, d.storedState);
    d.state = setChannel(block, ctx, isActive(d.desiredState));
    return ctx.now + 1000;
  },
});

/** Write the channel (with inversion) and read it back; null when the channel is unavailable. */
function setChannel(block: AnyBlock, ctx: UpdateContext, active: boolean): DigitalStateName | null {
  const d = block.data as { hwDevice: string | null; channel: number | null; invert: boolean };
  const array = ctx.resolve(d.hwDevice, 'IoArrayInterface');
  const io = array && d.channel ? ctx.claimChannel(array, d.channel, block) : null;
  if (!io) {
    ctx.releaseChannels(block);
    return null;
  }
  io.write(d.channel!, active !== d.invert);
  const pin = io.read(d.channel!);
  if (pin === null) return null;
  return pin !== d.invert ? 'STATE_ACTIVE' : 'STATE_INACTIVE';
}
