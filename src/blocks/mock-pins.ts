// MockPins: an IoArray of 8 simulated channels whose state mirrors what is written.
import { defineBlock, type IoArray } from '../runtime/types.js';
import { ChannelCapability } from './shared/enums.js';
import { ioChannelsField, makeChannels } from './shared/fields.js';

const CHANNELS = 8;
const fields = { channels: ioChannelsField };

export const MockPins = defineBlock<typeof fields, { pins: boolean[]; io: IoArray }>({
  type: 'MockPins',
  fields,
  implements: ['IoArrayInterface'],
  description: 'Eight simulated IO channels',
  init(block) {
    block.data.channels = makeChannels(CHANNELS, ChannelCapability.DIGITAL_OUTPUT | ChannelCapability.DIGITAL_INPUT);
    const pins = new Array<boolean>(CHANNELS).fill(false);
    return {
      pins,
      io: {
        channelCount: CHANNELS,
        read: (ch) => pins[ch - 1] ?? null,
        write: (ch, active) => {
          if (ch >= 1 && ch <= CHANNELS) pins[ch - 1] = active;
        },
      },
    };
  },
  io: (block) => block.state.io,
});
