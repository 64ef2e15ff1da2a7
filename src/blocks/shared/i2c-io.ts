// What the I2C chip blocks share: the chip they name (bus + address), whether the address is one
// the chip can have, its `connected` flag, and letting go of it (the hub switches it to its safe
// state) when the block moves to another chip or is deleted.
import { addressRanges } from '../../../drivers/i2c/chip-def.js';
import type { ValidationIssue } from '../../codec/partial.js';
import { f } from '../../codec/fields.js';
import { i2cIoAccess, type I2cIoKind, lostAt } from '../../runtime/hardware.js';
import type { AnyBlock, Data, IoArray, UpdateContext, WriteInfo } from '../../runtime/types.js';

/** Where an I2C chip is, for every block that names one (IO modules and sensors): no address, no chip. */
export const i2cChipFields = {
  bus: f.string({ stored: true, default: '1', maxLength: 32, description: 'I2C bus: 1 for /dev/i2c-1 (sim: "sim")' }),
  address: f.number({
    stored: true,
    integer: true,
    min: 0x03,
    max: 0x77,
    default: null,
    description: '7-bit I2C address, e.g. 32 (0x20); none: not set up yet',
  }),
  connected: f.bool({ readonly: true, description: 'the chip answered its last poll' }),
};

export const hex = (a: number) => `0x${a.toString(16).padStart(2, '0')}`;

interface ChipData {
  bus: string;
  address: number | null;
  connected: boolean;
}

/** The address must be one the chip can have. */
export function addressIssues(data: Data, chip: { name: string; addresses: readonly number[] }): ValidationIssue[] {
  const a = data.address as number | null | undefined;
  if (a === null || a === undefined || chip.addresses.includes(a)) return [];
  return [
    {
      path: 'data.address',
      message: `${hex(a)} (${a}) is not an address of a ${chip.name} (${addressRanges(chip.addresses)})`,
    },
  ];
}

export function chipOf(block: AnyBlock): { bus: string; address: number } | null {
  const d = block.data as unknown as ChipData;
  return d.address === null ? null : { bus: d.bus, address: d.address };
}

export function refreshConnected(block: AnyBlock, ctx: UpdateContext, kind: I2cIoKind): void {
  const d = block.data as unknown as ChipData;
  const access = i2cIoAccess(ctx.hardware);
  d.connected = !!access && d.address !== null && access.io(d.bus, d.address, kind).connected;
}

/** After a write that moved the block to another chip: let go of the old one. */
export function releaseMoved(block: AnyBlock, info: WriteInfo, ctx: UpdateContext): void {
  const prev = info.previous as { bus?: unknown; address?: unknown } | undefined;
  const d = block.data as unknown as ChipData;
  if (!prev || typeof prev.address !== 'number' || typeof prev.bus !== 'string') return;
  if (prev.address !== d.address || prev.bus !== d.bus) release(block, ctx, { bus: prev.bus, address: prev.address });
}

export function releaseChip(block: AnyBlock, ctx: UpdateContext): void {
  const c = chipOf(block);
  if (c) release(block, ctx, c);
}

/** The chip an I2C IO chip block names, in words (BlockTypeDef.chip): one block per chip. */
export function i2cChip(data: Data): string | null {
  const d = data as unknown as ChipData;
  return typeof d.address === 'number' ? chipName(d.bus, d.address) : null;
}

const chipName = (bus: string, address: number) => `I2C chip ${hex(address)} on bus ${bus}`;

/**
 * Let go of a chip once the write or delete is committed (a failed batch keeps it), unless a
 * block names it then (ctx.letGoOfChip).
 */
function release(block: AnyBlock, ctx: UpdateContext, chip: { bus: string; address: number }): void {
  const access = () => i2cIoAccess(ctx.hardware);
  ctx.letGoOfChip(block, chipName(chip.bus, chip.address), {
    release: () => access()?.release(chip.bus, chip.address),
    handOver: () => access()?.handOver(chip.bus, chip.address),
    outputsOff: (outputs) => access()?.outputsOff(chip.bus, chip.address, outputs),
  });
}

export interface ExpanderState {
  /** Channels some user has written (outputs from then on; BlockTypeDef.driven), and which of them are active. */
  drive: number;
  active: number;
}

/**
 * An IO expander as an IoArray. A channel becomes an output at its first write and stays an
 * input until then. `activeLow` (most relay boards): active = pin low.
 */
export function expanderIo(
  block: AnyBlock,
  ctx: UpdateContext,
  kind: I2cIoKind,
  channelCount: number,
  activeLow: boolean,
): IoArray | null {
  const access = i2cIoAccess(ctx.hardware);
  const chip = chipOf(block);
  if (!access || !chip) return null;
  const s = block.state as ExpanderState;
  const mask = (1 << channelCount) - 1;
  const push = (asked: number) =>
    access.setOutputs(
      chip.bus,
      chip.address,
      kind,
      s.drive,
      (activeLow ? ~s.active : s.active) & s.drive & mask,
      asked,
      s.active & s.drive & mask,
    );
  return {
    channelCount,
    read(channel) {
      if (channel < 1 || channel > channelCount) return null;
      const r = access.io(chip.bus, chip.address, kind);
      if (!r.connected) return null;
      const high = (r.pins & (1 << (channel - 1))) !== 0;
      return activeLow ? !high : high;
    },
    write(channel, active) {
      if (channel < 1 || channel > channelCount) return;
      const bit = 1 << (channel - 1);
      s.drive |= bit;
      s.active = active ? s.active | bit : s.active & ~bit;
      push(bit);
    },
    lostAt: (channel) => lostAt(access.io(chip.bus, chip.address, kind).lost, channel),
  };
}
