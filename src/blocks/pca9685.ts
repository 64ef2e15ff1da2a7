// PCA9685: a 16-channel 12-bit PWM driver as an IoArray. FastPwm drives its channels at the
// chip's frequency (one per chip, `frequency`); a DigitalActuator switches a channel full on/off.
import { f } from '../codec/fields.js';
import { PCA9685_ADDRESSES, PCA9685_MAX_HZ, PCA9685_MIN_HZ } from '../../drivers/i2c/pca9685.js';
import { i2cIoAccess } from '../runtime/hardware.js';
import { defineBlock, type IoArray } from '../runtime/types.js';
import { ChannelCapability } from './shared/enums.js';
import { ioChannelsField, makeChannels } from './shared/fields.js';
import { addressIssues, chipOf, i2cChipFields, refreshConnected, releaseChip, releaseMoved } from './shared/i2c-io.js';
import { PWM_CAPABILITIES } from './shared/soft-start.js';
import { nextBeat } from './shared/cadence.js';

const CHANNELS = 16;

const fields = {
  ...i2cChipFields,
  frequency: f.number({
    stored: true,
    min: PCA9685_MIN_HZ,
    max: PCA9685_MAX_HZ,
    default: 1000,
    description: 'PWM frequency of every channel, Hz (24-1526); FastPwm runs at this one whatever it asks',
  }),
  channels: ioChannelsField,
};

export const PCA9685 = defineBlock<typeof fields, Record<string, never>>({
  type: 'PCA9685',
  role: 'io',
  fields,
  implements: ['IoArrayInterface'],
  description: 'PCA9685 16-channel 12-bit I2C PWM driver',
  discovered: true,
  checkData: (data) => addressIssues(data, 'PCA9685', PCA9685_ADDRESSES, '0x40-0x7F except the all-call 0x70'),
  init(block) {
    block.data.channels = makeChannels(CHANNELS, ChannelCapability.DIGITAL_OUTPUT | PWM_CAPABILITIES);
    return {};
  },
  onWrite: (block, info, ctx) => releaseMoved(block, info, ctx),
  onDelete: (block, ctx) => releaseChip(block, ctx),
  io(block, ctx): IoArray | null {
    const access = i2cIoAccess(ctx.hardware);
    const chip = chipOf(block);
    if (!access || !chip) return null;
    const duty = (channel: number) => {
      const r = access.io(chip.bus, chip.address, 'pca9685');
      return r.connected ? (r.duties[channel - 1] ?? null) : null;
    };
    return {
      channelCount: CHANNELS,
      read: (channel) => {
        const d = duty(channel);
        return d === null ? null : d > 0;
      },
      write: (channel, active) => access.setDuty(chip.bus, chip.address, channel, active ? 100 : 0),
      writeDuty: (channel, value) => access.setDuty(chip.bus, chip.address, channel, value),
      readDuty: duty,
    };
  },
  update(block, ctx) {
    const chip = chipOf(block);
    if (chip) i2cIoAccess(ctx.hardware)?.setFrequency(chip.bus, chip.address, block.data.frequency ?? 1000);
    refreshConnected(block, ctx, 'pca9685');
    return nextBeat(ctx.now, 1000);
  },
});
