// blocks/discover for I2C sensors: the chips the read-only identity probes found, for which no
// block holds that bus and address yet. An ADC is proposed with input 0 (add more by hand).
import type { DiscoveredBlock, Discoverer } from '../runtime/runtime.js';
import type { AnyBlock } from '../runtime/types.js';
import type { I2cSensorChip } from '../runtime/i2c-sensors.js';
import type { I2cSensorHub } from './i2c-sensors.js';

const BLOCK_OF: Record<I2cSensorChip, { type: string; data: Record<string, unknown> }> = {
  SHT4X: { type: 'EnvSensorI2c', data: { chip: 'SHT4X' } },
  SHT3X: { type: 'EnvSensorI2c', data: { chip: 'SHT3X' } },
  BME280: { type: 'EnvSensorI2c', data: { chip: 'BME280' } },
  BMP280: { type: 'EnvSensorI2c', data: { chip: 'BMP280' } },
  ADS1115: { type: 'AnalogSensorI2c', data: { chip: 'ADS1115', channel: 0 } },
  ADS1015: { type: 'AnalogSensorI2c', data: { chip: 'ADS1015', channel: 0 } },
  MCP9600: { type: 'TempSensorThermocouple', data: {} },
};

const TYPES = new Set(Object.values(BLOCK_OF).map((b) => b.type));

export function i2cSensorDiscoverer(hub: I2cSensorHub): Discoverer {
  return async (existing: AnyBlock[]): Promise<DiscoveredBlock[]> => {
    const found = await hub.discover();
    const taken = new Set(existing.map((b) => b.id));
    const held = new Set(
      existing.filter((b) => TYPES.has(b.def.type)).map((b) => {
        const d = b.data as { bus?: string; address?: number };
        return `${d.bus}/${d.address}`;
      }),
    );
    const out: DiscoveredBlock[] = [];
    for (const f of found) {
      if (held.has(`${f.bus}/${f.address}`)) continue;
      held.add(`${f.bus}/${f.address}`);
      const b = BLOCK_OF[f.chip];
      let id = `I2C ${f.chip} ${f.bus}-0x${f.address.toString(16)}`;
      for (let n = 2; taken.has(id); n++) id = `I2C ${f.chip} ${f.bus}-0x${f.address.toString(16)} (${n})`;
      taken.add(id);
      out.push({ type: b.type, id, data: { ...b.data, bus: f.bus, address: f.address } });
    }
    return out;
  };
}
