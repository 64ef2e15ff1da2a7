// Puts the sim config's I2C sensors on the emulated bus, and moves their temperatures with the plant.
import { Ads1115Sim } from './ads1115-sim.js';
import { Bme280Sim } from './bme280-sim.js';
import type { SimI2cBus } from './ds2482-sim.js';
import type { SimI2cSensorSpec } from './i2c-sensor-config.js';
import type { I2cSensorSim } from './i2c-sensor-sim.js';
import { Mcp9600Sim } from './mcp9600-sim.js';
import type { PlantNode } from './plant.js';
import { Sht3xSim } from './sht3x-sim.js';
import { Sht4xSim } from './sht4x-sim.js';

export interface SimI2cSensorEntry {
  spec: SimI2cSensorSpec;
  model: I2cSensorSim;
}

function model(s: SimI2cSensorSpec): I2cSensorSim {
  switch (s.type) {
    case 'SHT4X':
      return Object.assign(new Sht4xSim(s.address), { humidity: s.humidity });
    case 'SHT3X':
      return Object.assign(new Sht3xSim(s.address), { humidity: s.humidity });
    case 'BME280':
    case 'BMP280':
      return Object.assign(new Bme280Sim(s.address, s.type), { humidity: s.humidity, pressure: s.pressure });
    case 'ADS1115':
    case 'ADS1015': {
      const m = new Ads1115Sim(s.address, s.type);
      m.inputs.splice(0, 4, ...s.inputs);
      return m;
    }
    case 'MCP9600':
      return new Mcp9600Sim(s.address);
  }
}

export function attachI2cSensors(bus: SimI2cBus, specs: SimI2cSensorSpec[]): SimI2cSensorEntry[] {
  return specs.map((spec) => {
    const m = model(spec);
    m.temperature = spec.temperature;
    bus.attach(spec.address, m);
    return { spec, model: m };
  });
}

export function stepI2cSensors(entries: SimI2cSensorEntry[], temperature: (node: PlantNode) => number): void {
  for (const e of entries) if (e.spec.sense) e.model.temperature = temperature(e.spec.sense);
}
