// MockPins: an IoArray of 8 simulated channels whose state mirrors what is written. Channels
// also take a PWM duty (FastPwm, soft start), emulated: the achieved duty is the one written,
// and the channel reads active while the duty is above 0.
import { legacy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock, type IoArray } from '../runtime/types.js';
import { ChannelCapability } from './shared/enums.js';
import { ioChannelsField, makeChannels } from './shared/fields.js';
import { PWM_CAPABILITIES } from './shared/soft-start.js';

const CHANNELS = 8;
const fields = { channels: ioChannelsField };

const legacyNames: LegacyTable = {
  pins: legacy.ignore('older firmware name of the read-only channel list (now channels)'),
};

export const MockPins = defineBlock<typeof fields, { pins: boolean[]; duty: number[]; io: IoArray }>({
  type: 'MockPins',
  role: 'io',
  fields,
  legacy: legacyNames,
  implements: ['IoArrayInterface'],
  description: 'Eight simulated IO channels',
  init(block) {
    block.data.channels = makeChannels(
      CHANNELS,
      ChannelCapability.DIGITAL_OUTPUT | ChannelCapability.DIGITAL_INPUT | PWM_CAPABILITIES,
    );
    const pins = new Array<boolean>(CHANNELS).fill(false);
    const duty = new Array<number>(CHANNELS).fill(0);
    const valid = (ch: number) => ch >= 1 && ch <= CHANNELS;
    return {
      pins,
      duty,
      io: {
        channelCount: CHANNELS,
        read: (ch) => pins[ch - 1] ?? null,
        write: (ch, active) => {
          if (!valid(ch)) return;
          pins[ch - 1] = active;
          duty[ch - 1] = active ? 100 : 0;
        },
        writeDuty: (ch, d) => {
          if (!valid(ch)) return;
          duty[ch - 1] = Math.min(100, Math.max(0, d));
          pins[ch - 1] = duty[ch - 1]! > 0;
        },
        readDuty: (ch) => (valid(ch) ? duty[ch - 1]! : null),
      },
    };
  },
  io: (block) => block.state.io,
});
