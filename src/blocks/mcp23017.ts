// MCP23017: a 16-channel I2C IO expander as an IoArray (channels 1-8 = GPA0-7, 9-16 = GPB0-7).
import { f } from '../codec/fields.js';
import { MCP23017_ADDRESSES } from '../../drivers/i2c/mcp23017.js';
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

const CHANNELS = 16;

const fields = {
  ...i2cChipFields,
  activeLow: f.bool({ stored: true, description: 'active = pin low (most relay boards)' }),
  channels: ioChannelsField,
};

export const MCP23017 = defineBlock<typeof fields, ExpanderState>({
  type: 'MCP23017',
  role: 'io',
  fields,
  implements: ['IoArrayInterface'],
  description: 'MCP23017 16-channel I2C IO expander (channel 1-8 = GPA0-7, 9-16 = GPB0-7)',
  discovered: true,
  checkData: (data) => addressIssues(data, 'MCP23017', MCP23017_ADDRESSES, '0x20-0x27'),
  init(block) {
    block.data.channels = makeChannels(CHANNELS, ChannelCapability.DIGITAL_OUTPUT | ChannelCapability.DIGITAL_INPUT);
    return { drive: 0, active: 0 };
  },
  onWrite: (block, info, ctx) => releaseMoved(block, info, ctx),
  onDelete: (block, ctx) => releaseChip(block, ctx),
  io: (block, ctx) => expanderIo(block, ctx, 'mcp23017', CHANNELS, block.data.activeLow),
  update(block, ctx) {
    refreshConnected(block, ctx, 'mcp23017');
    return nextBeat(ctx.now, 1000);
  },
});
