// DS2413: a 2-channel (A, B) 1-Wire IO module as an IoArray.
import { f } from '../codec/fields.js';
import { legacy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock } from '../runtime/types.js';
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
import { ioChannelsField, makeChannels } from './shared/fields.js';

const CHANNELS = 2;

const fields = {
  address: f.address({ stored: true, description: '16 hex digits, family byte (3a) first' }),
  connected: f.bool({ readonly: true }),
  oneWireBusId: f.link('OneWireBusInterface', { readonly: true }),
  channels: ioChannelsField,
};

const legacyNames: LegacyTable = {
  pins: legacy.ignore('older firmware name of the read-only channel list (now channels)'),
};

export const DS2413 = defineBlock<typeof fields, OneWireIoState>({
  type: 'DS2413',
  role: 'io',
  fields,
  legacy: legacyNames,
  implements: ['IoArrayInterface', 'OneWireDeviceInterface'],
  description: 'DS2413 2-channel 1-Wire IO module (channel 1 = A, 2 = B)',
  discovered: true,
  chip: oneWireChip,
  driven: ioDriven,
  init(block) {
    block.data.channels = makeChannels(CHANNELS, ChannelCapability.DIGITAL_OUTPUT | ChannelCapability.DIGITAL_INPUT);
    return initIoState();
  },
  onWrite(block, info, ctx) {
    releaseIo(block, ctx, info.previous?.address ?? null);
  },
  onDelete(block, ctx) {
    releaseIo(block, ctx);
  },
  io: (block, ctx) =>
    oneWireIo(block, ctx, 'DS2413', CHANNELS, () => claimedLatches(block, ctx, (ch) => 1 << (ch - 1))),
  update: (block, ctx) =>
    refreshIoBlock(
      block,
      ctx,
      'DS2413',
      claimedLatches(block, ctx, (ch) => 1 << (ch - 1)),
    ),
});
