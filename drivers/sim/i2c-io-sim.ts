// The emulated I2C IO chips of a sim config (each made by its chip's emulator,
// drivers/i2c/chips.ts), attached to the sim I2C bus, and which plant actuators their outputs
// switch on.
import type { EmulatedIoChip, EmulatedIoSpec } from '../i2c/chip-def.js';
import { i2cIoChip } from '../i2c/chips.js';
import type { SimI2cBus, SimI2cDevice } from './ds2482-sim.js';
import type { SimI2cIoSpec } from './i2c-io-config.js';

export type SimI2cIoChip = EmulatedIoChip & SimI2cDevice;

export interface SimI2cIoEntry {
  spec: SimI2cIoSpec;
  chip: SimI2cIoChip;
}

export type IoEmulators = Map<string, (spec: EmulatedIoSpec) => SimI2cIoChip>;

/** Loads the emulators of the chips the config places (sim mode only). */
export async function loadIoEmulators(specs: SimI2cIoSpec[]): Promise<IoEmulators> {
  const out: IoEmulators = new Map();
  for (const name of new Set(specs.map((s) => s.type))) out.set(name, await i2cIoChip(name)!.emulator());
  return out;
}

export function attachI2cIo(bus: SimI2cBus, specs: SimI2cIoSpec[], emulators: IoEmulators): SimI2cIoEntry[] {
  return specs.map((spec) => {
    const chip = emulators.get(spec.type)!(spec);
    chip.plugged = spec.plugged;
    bus.attach(spec.address, chip);
    return { spec, chip };
  });
}

/** Whether a channel (1-based) switches its load on: a pin at the board's active level, or any PWM duty. */
export function channelOn(e: SimI2cIoEntry, channel: number): boolean {
  return e.chip.loadOn(channel, e.spec.activeLow);
}

export function describeI2cIo(e: SimI2cIoEntry): Record<string, unknown> {
  const channels = i2cIoChip(e.spec.type)?.channels ?? 0;
  const on = Array.from({ length: channels }, (_, i) => i + 1).filter((ch) => channelOn(e, ch));
  return {
    name: e.spec.name,
    type: e.spec.type,
    address: `0x${e.spec.address.toString(16)}`,
    plugged: e.chip.plugged,
    outputs: e.spec.outputs,
    activeChannels: on,
  };
}
