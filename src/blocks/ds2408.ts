// DS2408: an 8-channel 1-Wire IO module as an IoArray. In actuator mode every channel is an
// output; valve mode exposes the start channels 1 and 5 of the two motor valves it can drive.
import { f } from '../codec/fields.js';
import { legacy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock, type AnyBlock, type UpdateContext } from '../runtime/types.js';
import {
  claimedLatches,
  initIoState,
  ioDriven,
  oneWireChip,
  oneWireIo,
  refreshIoBlock,
  releaseIo,
  type OneWireIoState,
} from './one-wire-io.js';
import { ChannelCapability } from './shared/enums.js';
import { ioChannelsField } from './shared/fields.js';

export const PinConnectMode = { CONNECT_VALVE: 0, CONNECT_ACTUATOR: 1 } as const;

const CHANNELS = 8;
const CAPABILITIES = ChannelCapability.DIGITAL_OUTPUT | ChannelCapability.DIGITAL_INPUT;

const fields = {
  address: f.address({ stored: true, description: '16 hex digits, family byte (29) first' }),
  connected: f.bool({ readonly: true }),
  connectMode: f.enum(PinConnectMode, { stored: true, default: 'CONNECT_ACTUATOR' }),
  oneWireBusId: f.link('OneWireBusInterface', { readonly: true }),
  channels: ioChannelsField,
};

function channelIds(mode: keyof typeof PinConnectMode): number[] {
  return mode === 'CONNECT_VALVE' ? [1, 5] : Array.from({ length: CHANNELS }, (_, i) => i + 1);
}

const legacyNames: LegacyTable = {
  pins: legacy.ignore('older firmware name of the read-only channel list (now channels)'),
};

export const DS2408 = defineBlock<typeof fields, OneWireIoState>({
  type: 'DS2408',
  role: 'io',
  fields,
  legacy: legacyNames,
  implements: ['IoArrayInterface', 'DS2408Interface', 'OneWireDeviceInterface'],
  description: 'DS2408 8-channel 1-Wire IO module',
  discovered: true,
  chip: oneWireChip,
  driven: ioDriven,
  init(block) {
    syncChannels(block.data);
    return initIoState();
  },
  onWrite(block, info, ctx) {
    syncChannels(block.data);
    releaseIo(block, ctx, info.previous?.address ?? null);
  },
  onDelete(block, ctx) {
    releaseIo(block, ctx);
  },
  io: (block, ctx) => oneWireIo(block, ctx, 'DS2408', CHANNELS, () => keptAtStart(block, ctx)),
  update: (block, ctx) => refreshIoBlock(block, ctx, 'DS2408', keptAtStart(block, ctx)),
});

/**
 * The latches left as found at a start: those of the claimed channels in actuator mode. A valve's
 * motor stops until the valve has read its end switches (MotorValve), so valve mode keeps none.
 */
function keptAtStart(block: AnyBlock, ctx: UpdateContext): number {
  const mode = (block.data as { connectMode: keyof typeof PinConnectMode }).connectMode;
  return mode === 'CONNECT_VALVE' ? 0 : claimedLatches(block, ctx, (ch) => 1 << (ch - 1));
}

/** Channels for the connect mode, keeping the claims of channels that stay. */
function syncChannels(d: {
  connectMode: keyof typeof PinConnectMode;
  channels: Array<{ id: number | null; capabilities: number | null; claimedBy: string | null }>;
}): void {
  const ids = channelIds(d.connectMode);
  if (d.channels.length === ids.length && d.channels.every((c, i) => c.id === ids[i])) return;
  const claims = new Map(d.channels.map((c) => [c.id, c.claimedBy]));
  d.channels = ids.map((id) => ({ id, capabilities: CAPABILITIES, claimedBy: claims.get(id) ?? null }));
}
