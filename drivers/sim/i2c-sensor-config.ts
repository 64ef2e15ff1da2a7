// The `i2cSensors` section of the sim config: emulated sensors on the sim I2C bus.
//
//   "i2cSensors": [
//     { "name": "room", "type": "BME280", "address": "0x76",
//       "sense": "ambient",                 plant node for the temperature (or "temperature": 20)
//       "humidity": 55, "pressure": 1013 },
//     { "name": "kettle", "type": "MCP9600", "address": "0x60", "temperature": 66 },
//     { "name": "keg", "type": "ADS1115", "address": "0x48", "inputs": [1.7, 0, 0, 0] }
//   ]
import { firstUnknownKey, unknownKeyMessage } from '../closest-name.js';
import type { PlantNode } from './plant.js';

export const SIM_I2C_SENSOR_TYPES = ['SHT4X', 'SHT3X', 'BME280', 'BMP280', 'ADS1115', 'ADS1015', 'MCP9600'] as const;
export type SimI2cSensorType = (typeof SIM_I2C_SENSOR_TYPES)[number];

const ADDRESSES: Record<SimI2cSensorType, number[]> = {
  SHT4X: [0x44, 0x45, 0x46],
  SHT3X: [0x44, 0x45],
  BME280: [0x76, 0x77],
  BMP280: [0x76, 0x77],
  ADS1115: [0x48, 0x49, 0x4a, 0x4b],
  ADS1015: [0x48, 0x49, 0x4a, 0x4b],
  MCP9600: [0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67],
};

export interface SimI2cSensorSpec {
  name: string;
  type: SimI2cSensorType;
  address: number;
  sense: PlantNode | null;
  temperature: number;
  humidity: number;
  pressure: number;
  inputs: number[];
}

const KEYS = ['name', 'type', 'address', 'sense', 'temperature', 'humidity', 'pressure', 'inputs'];

/** `fail(path, message)` throws the sim config's error; `taken` holds addresses of other I2C devices. */
export function parseI2cSensors(raw: unknown, path: string, fail: (path: string, message: string) => never, taken: Set<number>): SimI2cSensorSpec[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) fail(path, `must be an array, got ${JSON.stringify(raw)}`);
  const names = new Set<string>();
  return raw.map((item, i) => {
    const p = `${path}[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) fail(p, `must be an object, got ${JSON.stringify(item)}`);
    const o = item as Record<string, unknown>;
    const unknown = firstUnknownKey(o, KEYS);
    if (unknown !== undefined) fail(`${p}.${unknown}`, `is not a setting: ${unknownKeyMessage(unknown, KEYS)}`);
    const type = o.type as SimI2cSensorType;
    if (!SIM_I2C_SENSOR_TYPES.includes(type)) fail(`${p}.type`, `must be one of ${SIM_I2C_SENSOR_TYPES.join(', ')}, got ${JSON.stringify(o.type)}`);
    if (typeof o.name !== 'string' || o.name === '') fail(`${p}.name`, 'must be a non-empty string');
    if (names.has(o.name)) fail(`${p}.name`, `"${o.name}" is used twice`);
    names.add(o.name);
    const a = typeof o.address === 'string' && /^0x[0-9a-f]+$/i.test(o.address) ? parseInt(o.address, 16) : o.address ?? ADDRESSES[type][0];
    const allowed = ADDRESSES[type];
    if (typeof a !== 'number' || !allowed.includes(a)) fail(`${p}.address`, `a ${type} answers at ${allowed.map((x) => `0x${x.toString(16)}`).join(', ')}; got ${JSON.stringify(o.address)}`);
    if (taken.has(a)) fail(`${p}.address`, `0x${a.toString(16)} is used by another I2C device`);
    taken.add(a);
    const num = (k: string, d: number) => {
      const v = o[k] ?? d;
      if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${p}.${k}`, `must be a number, got ${JSON.stringify(o[k])}`);
      return v;
    };
    const sense = o.sense ?? null;
    if (sense !== null && !['beer', 'air', 'ambient'].includes(sense as string)) fail(`${p}.sense`, `must be beer, air or ambient, got ${JSON.stringify(sense)}`);
    const inputs = o.inputs ?? [0, 0, 0, 0];
    if (!Array.isArray(inputs) || inputs.length > 4 || inputs.some((v) => typeof v !== 'number' || !Number.isFinite(v))) fail(`${p}.inputs`, 'must be up to 4 numbers (volts on AIN0..AIN3)');
    return {
      name: o.name,
      type,
      address: a,
      sense: sense as PlantNode | null,
      temperature: num('temperature', 20),
      humidity: num('humidity', 50),
      pressure: num('pressure', 1013.25),
      inputs: [...(inputs as number[]), 0, 0, 0, 0].slice(0, 4),
    };
  });
}
