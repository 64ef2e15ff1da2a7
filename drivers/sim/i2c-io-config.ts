// The `i2cIo` section of a sim config: MCP23017, PCF8574 and PCA9685 chips on the emulated
// I2C bus (the bus the DS2482 bridges sit on).
//
//   "i2cIo": [
//     { "name": "relay-board",               unique among the chips
//       "type": "MCP23017",                  MCP23017 | PCF8574 | PCA9685
//       "address": 32,                       a number or "0x20": 0x20-0x27 (PCF8574A 0x38-0x3F, PCA9685 0x40-0x7F)
//       "activeLow": true,                   the board's relays switch on at a low pin (MCP23017/PCF8574)
//       "outputs": { "1": "heater" },        channel (1-based) -> plant actuator
//       "inputs": { "9": 0 },                MCP23017/PCF8574: level the outside drives on an input channel
//       "plugged": true }
//   ]
import { MCP23017_ADDRESSES } from '../i2c/mcp23017.js';
import { PCA9685_ADDRESSES } from '../i2c/pca9685.js';
import { PCF8574_ADDRESSES, PCF8574A_ADDRESSES } from '../i2c/pcf8574.js';

export type SimI2cIoType = 'MCP23017' | 'PCF8574' | 'PCA9685';

export interface SimI2cIoSpec {
  name: string;
  type: SimI2cIoType;
  address: number;
  activeLow: boolean;
  outputs: Record<number, 'heater' | 'cooler'>;
  inputs: Record<number, 0 | 1>;
  plugged: boolean;
}

const ADDRESSES: Record<SimI2cIoType, readonly number[]> = {
  MCP23017: MCP23017_ADDRESSES,
  PCF8574: [...PCF8574_ADDRESSES, ...PCF8574A_ADDRESSES],
  PCA9685: PCA9685_ADDRESSES,
};
const CHANNELS: Record<SimI2cIoType, number> = { MCP23017: 16, PCF8574: 8, PCA9685: 16 };

type Fail = (path: string, message: string) => never;

function obj(v: unknown, path: string, fail: Fail): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, `must be an object, got ${JSON.stringify(v)}`);
  return v as Record<string, unknown>;
}

/** `fail(path, message)` throws the sim config's error; `taken`: I2C addresses already used on the bus (bridges, sensors). */
export function parseSimI2cIo(raw: unknown, path: string, fail: Fail, taken: Set<number>): SimI2cIoSpec[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) fail(path, `must be an array, got ${JSON.stringify(raw)}`);
  const names = new Set<string>();
  return raw.map((item, i) => {
    const p = `${path}[${i}]`;
    const o = obj(item, p, fail);
    const allowed = ['name', 'type', 'address', 'activeLow', 'outputs', 'inputs', 'plugged'];
    const unknown = Object.keys(o).find((k) => !allowed.includes(k));
    if (unknown) fail(`${p}.${unknown}`, `is not a setting (settings: ${allowed.join(', ')})`);
    if (typeof o.name !== 'string' || !o.name.trim() || o.name.length > 64) fail(`${p}.name`, 'must be a non-empty string of at most 64 characters');
    if (names.has(o.name)) fail(`${p}.name`, `"${o.name}" is used by another chip`);
    names.add(o.name);
    if (o.type !== 'MCP23017' && o.type !== 'PCF8574' && o.type !== 'PCA9685') fail(`${p}.type`, `must be MCP23017, PCF8574 or PCA9685, got ${JSON.stringify(o.type)}`);
    const type: SimI2cIoType = o.type;
    const address = typeof o.address === 'string' && /^0x[0-9a-f]+$/i.test(o.address) ? parseInt(o.address, 16) : o.address;
    if (typeof address !== 'number' || !ADDRESSES[type].includes(address)) fail(`${p}.address`, `is not an address of a ${type}, got ${JSON.stringify(o.address)}`);
    if (taken.has(address)) fail(`${p}.address`, `0x${address.toString(16)} is used by another chip on the bus`);
    taken.add(address);
    if (o.activeLow !== undefined && typeof o.activeLow !== 'boolean') fail(`${p}.activeLow`, 'must be true or false');
    if (o.plugged !== undefined && typeof o.plugged !== 'boolean') fail(`${p}.plugged`, 'must be true or false');
    const outputs: Record<number, 'heater' | 'cooler'> = {};
    for (const [ch, role] of Object.entries(o.outputs === undefined ? {} : obj(o.outputs, `${p}.outputs`, fail))) {
      const n = Number(ch);
      if (!Number.isInteger(n) || n < 1 || n > CHANNELS[type]) fail(`${p}.outputs.${ch}`, `is not a channel of a ${type} (1..${CHANNELS[type]})`);
      if (role !== 'heater' && role !== 'cooler') fail(`${p}.outputs.${ch}`, `must be "heater" or "cooler", got ${JSON.stringify(role)}`);
      outputs[n] = role;
    }
    const inputs: Record<number, 0 | 1> = {};
    for (const [ch, level] of Object.entries(o.inputs === undefined ? {} : obj(o.inputs, `${p}.inputs`, fail))) {
      const n = Number(ch);
      if (type === 'PCA9685') fail(`${p}.inputs`, 'a PCA9685 has no inputs');
      if (!Number.isInteger(n) || n < 1 || n > CHANNELS[type]) fail(`${p}.inputs.${ch}`, `is not a channel of a ${type} (1..${CHANNELS[type]})`);
      if (level !== 0 && level !== 1) fail(`${p}.inputs.${ch}`, `must be 0 or 1, got ${JSON.stringify(level)}`);
      inputs[n] = level;
    }
    return { name: o.name, type, address, activeLow: (o.activeLow as boolean | undefined) ?? false, outputs, inputs, plugged: (o.plugged as boolean | undefined) ?? true };
  });
}
