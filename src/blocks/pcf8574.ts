// PCF8574 / PCF8574A: an 8-channel quasi-bidirectional I2C IO expander as an IoArray. A channel
// nobody writes stays at its weak pull-up and reads as an input.
import { f } from '../codec/fields.js';
import { PCF8574_ADDRESSES, PCF8574A_ADDRESSES } from '../../drivers/i2c/pcf8574.js';
import { defineBlock } from '../runtime/types.js';
import { ChannelCapability } from './shared/enums.js';
import { ioChannelsField, makeChannels } from './shared/fields.js';
import {
  addressIssues,
  expanderIo,
  i2cChipFields,
  refreshConnected,
  releaseChip,
  releaseMoved,
  type ExpanderState,
} from './shared/i2c-io.js';
import { nextBeat } from './shared/cadence.js';

const CHANNELS = 8;

const fields = {
  ...i2cChipFields,
  activeLow: f.bool({
    stored: true,
    default: true,
    description: 'active = pin low (relay boards, switches to ground); default true',
  }),
  channels: ioChannelsField,
};

export const PCF8574 = defineBlock<typeof fields, ExpanderState>({
  type: 'PCF8574',
  role: 'io',
  fields,
  implements: ['IoArrayInterface'],
  description: 'PCF8574/PCF8574A 8-channel quasi-bidirectional I2C IO expander',
  discovered: true,
  checkData: (data) =>
    addressIssues(data, 'PCF8574', [...PCF8574_ADDRESSES, ...PCF8574A_ADDRESSES], '0x20-0x27, PCF8574A 0x38-0x3F'),
  init(block) {
    block.data.channels = makeChannels(CHANNELS, ChannelCapability.DIGITAL_OUTPUT | ChannelCapability.DIGITAL_INPUT);
    return { drive: 0, active: 0 };
  },
  onWrite: (block, info, ctx) => releaseMoved(block, info, ctx),
  onDelete: (block, ctx) => releaseChip(block, ctx),
  io: (block, ctx) => expanderIo(block, ctx, 'pcf8574', CHANNELS, block.data.activeLow),
  update(block, ctx) {
    refreshConnected(block, ctx, 'pcf8574');
    return nextBeat(ctx.now, 1000);
  },
});
