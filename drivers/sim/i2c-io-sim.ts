// The emulated I2C IO chips of a sim config, attached to the sim I2C bus, and which plant
// actuators their outputs switch on.
import type { SimI2cBus } from './ds2482-sim.js';
import type { SimI2cIoSpec } from './i2c-io-config.js';
import { SimMcp23017 } from './mcp23017-sim.js';
import { SimPca9685 } from './pca9685-sim.js';
import { SimPcf8574 } from './pcf8574-sim.js';

export type SimI2cIoChip = SimMcp23017 | SimPcf8574 | SimPca9685;

export interface SimI2cIoEntry {
  spec: SimI2cIoSpec;
  chip: SimI2cIoChip;
}

export function attachI2cIo(bus: SimI2cBus, specs: SimI2cIoSpec[]): SimI2cIoEntry[] {
  return specs.map((spec) => {
    const chip =
      spec.type === 'MCP23017'
        ? new SimMcp23017(spec.address)
        : spec.type === 'PCF8574'
          ? new SimPcf8574(spec.address)
          : new SimPca9685(spec.address);
    if (!(chip instanceof SimPca9685)) {
      for (const [ch, level] of Object.entries(spec.inputs)) if (level === 0) chip.external &= ~(1 << (Number(ch) - 1));
    }
    chip.plugged = spec.plugged;
    bus.attach(spec.address, chip);
    return { spec, chip };
  });
}

/** Whether a channel (1-based) switches its load on: a pin at the board's active level, or any PWM duty. */
export function channelOn(e: SimI2cIoEntry, channel: number): boolean {
  if (!e.chip.plugged) return false;
  if (e.chip instanceof SimPca9685) return e.chip.duty(channel) > 0;
  const high = (e.chip.pins() & (1 << (channel - 1))) !== 0;
  return e.spec.activeLow ? !high : high;
}

export function describeI2cIo(e: SimI2cIoEntry): Record<string, unknown> {
  const channels = e.spec.type === 'PCF8574' ? 8 : 16;
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
