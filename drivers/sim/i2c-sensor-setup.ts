// Puts the sim config's I2C sensors on the emulated bus (each made by its chip's emulator,
// drivers/i2c/chips.ts), and moves their temperatures with the plant.
import type { EmulatedSensorSpec } from '../i2c/chip-def.js';
import { i2cSensorChip } from '../i2c/chips.js';
import type { SimI2cBus } from './ds2482-sim.js';
import type { SimI2cSensorSpec } from './i2c-sensor-config.js';
import type { I2cSensorSim } from './i2c-sensor-sim.js';
import type { PlantNode } from './plant.js';

export interface SimI2cSensorEntry {
  spec: SimI2cSensorSpec;
  model: I2cSensorSim;
}

export type SensorEmulators = Map<string, (spec: EmulatedSensorSpec, now: () => number) => I2cSensorSim>;

/** Loads the emulators of the chips the config places (sim mode only). */
export async function loadSensorEmulators(specs: SimI2cSensorSpec[]): Promise<SensorEmulators> {
  const out: SensorEmulators = new Map();
  for (const name of new Set(specs.map((s) => s.type))) out.set(name, await i2cSensorChip(name)!.emulator());
  return out;
}

export function attachI2cSensors(
  bus: SimI2cBus,
  specs: SimI2cSensorSpec[],
  emulators: SensorEmulators,
  now: () => number,
): SimI2cSensorEntry[] {
  return specs.map((spec) => {
    const m = emulators.get(spec.type)!(spec, now);
    m.temperature = spec.temperature;
    bus.attach(spec.address, m);
    return { spec, model: m };
  });
}

export function stepI2cSensors(entries: SimI2cSensorEntry[], temperature: (node: PlantNode) => number): void {
  for (const e of entries) if (e.spec.sense) e.model.temperature = temperature(e.spec.sense);
}
