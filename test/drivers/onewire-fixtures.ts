// Shared helpers for the 1-Wire driver tests (not a test file itself).
import { Ds2482Chip } from '../../drivers/onewire/ds2482.js';
import { ProtocolBus } from '../../drivers/onewire/protocol-bus.js';
import { createDs2482Sim, type Ds2482Variant } from '../../drivers/sim/ds2482-sim.js';

export class ManualClock {
  t = 1_000_000;
  readonly now = (): number => this.t;
  advance(ms: number): number {
    this.t += ms;
    return this.t;
  }
}

/** A DS2482 emulation with one chip at 0x18, its driver, and a ProtocolBus on channel `channel`. */
export async function ds2482Rig(variant: Ds2482Variant = 'ds2482-100', channel = 0) {
  const clock = new ManualClock();
  const sim = createDs2482Sim({ chips: [{ address: 0x18, variant }], now: clock.now });
  const chip = new Ds2482Chip(sim.i2c, 0x18, variant);
  await chip.init();
  const bus = new ProtocolBus(chip.channel(channel), { kind: 'ds2482' });
  return { clock, sim, chip, bus, segment: sim.segment(0x18, channel), chipSim: sim.chips[0]! };
}

export async function rejects(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}
