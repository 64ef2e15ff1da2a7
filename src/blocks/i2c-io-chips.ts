// The blocks of the I2C IO chips, one type per chip of the registry (drivers/i2c/chips.ts),
// named as the chip: an expander (MCP23017, PCF8574) is an IoArray whose channel becomes an
// output at its first write; a PWM driver (PCA9685) an IoArray whose channels FastPwm drives at
// the chip's one frequency (a DigitalActuator switches a channel full on/off). Channel count,
// addresses, the active-low default and the frequency range come from the chip's definition.
import type { I2cIoChipDef } from '../../drivers/i2c/chip-def.js';
import { I2C_IO_CHIPS } from '../../drivers/i2c/chips.js';
import { f } from '../codec/fields.js';
import { i2cIoAccess } from '../runtime/hardware.js';
import { defineBlock, type BlockTypeDef, type IoArray } from '../runtime/types.js';
import { nextBeat } from './shared/cadence.js';
import { ChannelCapability } from './shared/enums.js';
import { ioChannelsField, makeChannels } from './shared/fields.js';
import {
  addressIssues,
  chipOf,
  expanderIo,
  i2cChip,
  i2cChipFields,
  refreshConnected,
  releaseChip,
  releaseMoved,
  type ExpanderState,
} from './shared/i2c-io.js';
import { PWM_CAPABILITIES } from './shared/soft-start.js';

function expanderBlock(chip: I2cIoChipDef) {
  const fields = {
    ...i2cChipFields,
    activeLow: f.bool({
      stored: true,
      default: chip.activeLowDefault ?? false,
      description: `active = pin low (relay boards, switches to ground); default ${chip.activeLowDefault ?? false}`,
    }),
    channels: ioChannelsField,
  };
  return defineBlock<typeof fields, ExpanderState>({
    type: chip.name,
    role: 'io',
    fields,
    implements: ['IoArrayInterface'],
    description: chip.title,
    discovered: true,
    checkData: (data) => addressIssues(data, chip),
    chip: i2cChip,
    init(block) {
      block.data.channels = makeChannels(
        chip.channels,
        ChannelCapability.DIGITAL_OUTPUT | ChannelCapability.DIGITAL_INPUT,
      );
      return { drive: 0, active: 0 };
    },
    driven: (block) => block.state.drive,
    onWrite: (block, info, ctx) => releaseMoved(block, info, ctx),
    onDelete: (block, ctx) => releaseChip(block, ctx),
    io: (block, ctx) => expanderIo(block, ctx, chip.name, chip.channels, block.data.activeLow),
    update(block, ctx) {
      refreshConnected(block, ctx, chip.name);
      return nextBeat(ctx.now, 1000);
    },
  });
}

function pwmBlock(chip: I2cIoChipDef) {
  const hz = chip.frequency ?? { min: 1, max: 1000 };
  const fields = {
    ...i2cChipFields,
    frequency: f.number({
      stored: true,
      min: hz.min,
      max: hz.max,
      default: Math.min(hz.max, Math.max(hz.min, 1000)),
      description: `PWM frequency of every channel, Hz (${hz.min}-${hz.max}); FastPwm runs at this one whatever it asks`,
    }),
    channels: ioChannelsField,
  };
  // The channels some user has written (BlockTypeDef.driven).
  return defineBlock<typeof fields, { driven: number }>({
    type: chip.name,
    role: 'io',
    fields,
    implements: ['IoArrayInterface'],
    description: chip.title,
    discovered: true,
    checkData: (data) => addressIssues(data, chip),
    chip: i2cChip,
    init(block) {
      block.data.channels = makeChannels(chip.channels, ChannelCapability.DIGITAL_OUTPUT | PWM_CAPABILITIES);
      return { driven: 0 };
    },
    driven: (block) => block.state.driven,
    onWrite: (block, info, ctx) => releaseMoved(block, info, ctx),
    onDelete: (block, ctx) => releaseChip(block, ctx),
    io(block, ctx): IoArray | null {
      const access = i2cIoAccess(ctx.hardware);
      const at = chipOf(block);
      if (!access || !at) return null;
      const duty = (channel: number) => {
        const r = access.io(at.bus, at.address, chip.name);
        return r.connected ? (r.duties[channel - 1] ?? null) : null;
      };
      const setDuty = (channel: number, duty: number) => {
        if (channel >= 1 && channel <= chip.channels) block.state.driven |= 1 << (channel - 1);
        access.setDuty(at.bus, at.address, chip.name, channel, duty);
      };
      return {
        channelCount: chip.channels,
        read: (channel) => {
          const d = duty(channel);
          return d === null ? null : d > 0;
        },
        write: (channel, active) => setDuty(channel, active ? 100 : 0),
        writeDuty: (channel, value) => setDuty(channel, value),
        readDuty: duty,
      };
    },
    update(block, ctx) {
      const at = chipOf(block);
      if (at) i2cIoAccess(ctx.hardware)?.setFrequency(at.bus, at.address, chip.name, block.data.frequency ?? 1000);
      refreshConnected(block, ctx, chip.name);
      return nextBeat(ctx.now, 1000);
    },
  });
}

/** One block type per IO chip, in registry order. */
export const i2cIoBlocks: BlockTypeDef<any, any>[] = I2C_IO_CHIPS.map((chip) =>
  chip.kind === 'pwm' ? pwmBlock(chip) : expanderBlock(chip),
);
