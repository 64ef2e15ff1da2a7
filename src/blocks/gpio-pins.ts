// GpioPins: the GPIO lines named in the config (`gpio`) as one IoArray, channel n = the n-th
// configured line. A system block; without configured lines it has no channels. Output lines
// offer a software PWM at 80 and 100 Hz (src/hardware/soft-pwm.ts) to FastPwm and soft start.
import { f } from '../codec/fields.js';
import type { GpioAccess, GpioLineInfo } from '../runtime/hardware.js';
import { defineBlock, type IoArray } from '../runtime/types.js';
import { ChannelCapability } from './shared/enums.js';
import { ioChannelsField } from './shared/fields.js';
import { nextBeat } from './shared/cadence.js';

const SOFT_PWM_CAPABILITIES = ChannelCapability.PWM_80HZ | ChannelCapability.PWM_100HZ;

const fields = {
  channels: ioChannelsField,
  lines: f.array(
    f.object({
      channel: f.number({ readonly: true, integer: true }),
      name: f.string({ readonly: true }),
      line: f.number({ readonly: true, integer: true, description: 'line offset on the header chip (BCM number)' }),
      direction: f.string({ readonly: true }),
      activeLow: f.bool({ readonly: true }),
      active: f.boolOrNull({ readonly: true, description: 'logical level; null when unreadable' }),
    }),
    { readonly: true, description: 'which GPIO line each channel is' },
  ),
};

export const GpioPins = defineBlock<typeof fields>({
  type: 'GpioPins',
  role: 'io',
  fields,
  implements: ['IoArrayInterface'],
  description: 'The GPIO lines of the configuration as IO channels',
  system: { nid: 19, id: 'GpioPins' },
  update(block, ctx) {
    const gpio = ctx.hardware.services.gpio;
    const lines = gpio?.lines() ?? [];
    const d = block.data;
    const pwm = !!gpio?.pwm;
    const same =
      d.channels.length === lines.length && d.channels.every((c, i) => c.capabilities === capabilities(lines[i]!, pwm));
    if (!same)
      d.channels = lines.map((l, i) => ({
        id: i + 1,
        capabilities: capabilities(l, pwm),
        claimedBy: d.channels[i]?.claimedBy ?? null,
      }));
    d.lines = lines.map((l, i) => ({
      channel: i + 1,
      name: l.name,
      line: l.line,
      direction: l.direction,
      activeLow: l.activeLow,
      active: gpio!.read(l.name),
    }));
    return nextBeat(ctx.now, 1000);
  },
  io(_block, ctx) {
    const gpio = ctx.hardware.services.gpio;
    return gpio ? gpioIo(gpio) : null;
  },
});

function capabilities(line: GpioLineInfo, pwm: boolean): number {
  if (line.direction !== 'out') return ChannelCapability.DIGITAL_INPUT;
  return ChannelCapability.DIGITAL_OUTPUT | (pwm ? SOFT_PWM_CAPABILITIES : 0);
}

function gpioIo(gpio: GpioAccess): IoArray {
  const lines = gpio.lines();
  return {
    channelCount: lines.length,
    read: (channel) => {
      const l = lines[channel - 1];
      return l ? gpio.read(l.name) : null;
    },
    write: (channel, active) => {
      const l = lines[channel - 1];
      if (l && l.direction === 'out') gpio.write(l.name, active);
    },
    writeDuty: gpio.pwm
      ? (channel, duty, hz) => {
          const l = lines[channel - 1];
          if (l && l.direction === 'out') gpio.pwm!(l.name, duty, hz);
        }
      : undefined,
    readDuty: (channel) => {
      const l = lines[channel - 1];
      return l && gpio.duty ? gpio.duty(l.name) : null;
    },
    lostAt: (channel) => {
      const l = lines[channel - 1];
      return l && gpio.lostAt ? gpio.lostAt(l.name) : null;
    },
  };
}
