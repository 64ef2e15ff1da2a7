// The emulators of the chips and devices a sim config places, loaded (only in sim mode) before
// the hardware (sim-hardware.ts) is built.
import { oneWireFamily, type EmulatedOneWireSpec } from '../onewire/families.js';
import { loadSensorEmulators, type SensorEmulators } from './i2c-sensor-setup.js';
import { loadIoEmulators, type IoEmulators } from './i2c-io-sim.js';
import type { SimSlave } from './onewire-slave.js';
import type { SimConfig } from './sim-config.js';

/** The emulators of the chips and devices a config places, loaded before the hardware is built. */
export interface Emulators {
  sensors: SensorEmulators;
  io: IoEmulators;
  oneWire: Map<string, (spec: EmulatedOneWireSpec) => SimSlave>;
}

export async function loadEmulators(parsed: SimConfig): Promise<Emulators> {
  const devices = [
    ...parsed.ds2482.flatMap((c) => c.channels.flat()),
    ...parsed.w1.flat(),
    ...parsed.ds2480b.flatMap((a) => a.devices),
  ];
  const emulators: Emulators = {
    sensors: await loadSensorEmulators(parsed.i2cSensors),
    io: await loadIoEmulators(parsed.i2cIo),
    oneWire: new Map(),
  };
  for (const type of new Set(devices.map((d) => d.type)))
    emulators.oneWire.set(type, await oneWireFamily(type)!.emulator());
  return emulators;
}
