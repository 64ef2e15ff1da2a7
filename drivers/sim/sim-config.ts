// Configuration of the emulated hardware used by `--hardware sim` (`--sim-config FILE`).
// JSON, every section optional:
//
// {
//   "plant": { ... },                       the fermenter, see plant-config.ts
//   "ds2482": [                             bridges on the emulated I2C bus
//     { "address": 24,                      0x18..0x1B (a number, or a string "0x18")
//       "variant": "ds2482-800",            or "ds2482-100" (one channel)
//       "channels": [ [device, ...], ... ]  devices per 1-Wire channel, index = channel
//     }
//   ],
//   "w1": [ [device, ...], ... ],           emulated kernel w1 tree, one list per w1_bus_masterN
//   "ds2480b": [                            DS2480B serial adapters
//     { "pty": false,                       true: behind a real pseudo-terminal (needs socat)
//       "devices": [device, ...] }
//   ],
//   "i2cIo": [ ... ],                       MCP23017/PCF8574/PCA9685 on the emulated I2C bus, see i2c-io-config.ts
//   "gpio": [                               emulated GPIO lines (used when the app config has none)
//     { "name": "fan", "line": 17, "direction": "out", "activeLow": true, "safeState": false,
//       "drives": "heater",                 plant actuator switched by this line (optional)
//       "level": 0 }                        physical level of an input line (optional)
//   ]
// }
//
// A device:
//   { "name": "beer",                       unique; used by the sim REST endpoints
//     "type": "DS18B20",                    DS18B20 | MAX31850 | DS2408 | DS2413
//     "address": "28-0000000000b1",         kernel name, or 16 hex digits (family first, CRC
//                                           last); default: derived from the name
//     "sense": "beer",                      DS18B20: plant node it measures (beer/air/ambient)
//     "temperature": 20,                    DS18B20: fixed temperature when it senses nothing;
//                                           MAX31850: thermocouple temperature (-270..1372)
//     "coldJunction": 25,                   MAX31850: chip temperature (-55..125)
//     "addressPins": 0,                     MAX31850: AD3..AD0 pin levels (0..15)
//     "outputs": { "1": "heater" },         DS2408/DS2413: channel (1-based) -> plant actuator
//     "plugged": true }                     start unplugged with false
import { Type, type Static } from '@sinclair/typebox';
import { firstUnknownKey, unknownKeyMessage } from '../closest-name.js';
import { duplicateLine, GPIO_LINE_PROPERTIES } from '../gpio/line-config.js';
import { checkAgainst } from '../schema-check.js';
import { isKernelSlaveName, isRomAddressSyntax, isValidRom, kernelNameToRom, makeRom, romFamily } from '../onewire/address.js';
import { FAMILY } from '../onewire/types.js';
import { parseI2cSensors, type SimI2cSensorSpec } from './i2c-sensor-config.js';
import { parseSimI2cIo, type SimI2cIoSpec } from './i2c-io-config.js';
import { parsePlantConfig, PlantConfigError, type PlantConfig } from './plant-config.js';
import type { PlantNode } from './plant.js';

export type SimDeviceType = 'DS18B20' | 'MAX31850' | 'DS2408' | 'DS2413';
export type PlantActuator = 'heater' | 'cooler';

export interface SimDeviceSpec {
  name: string;
  type: SimDeviceType;
  address: string;
  sense: PlantNode | null;
  temperature: number;
  /** MAX31850: chip temperature and AD3..AD0 pins. */
  coldJunction: number;
  addressPins: number;
  /** Channel (1-based) -> actuator. */
  outputs: Record<number, PlantActuator>;
  /** DS2408: motor valves by start channel (1 or 5), with their stroke time in seconds. */
  valves: Array<{ start: number; travelSeconds: number }>;
  plugged: boolean;
}

export interface SimDs2482Spec {
  address: number;
  variant: 'ds2482-100' | 'ds2482-800';
  channels: SimDeviceSpec[][];
}

export interface SimDs2480bSpec {
  pty: boolean;
  devices: SimDeviceSpec[];
}

export interface SimGpioSpec {
  name: string;
  line: number;
  direction: 'out' | 'in';
  activeLow: boolean;
  safeState: boolean;
  drives: PlantActuator | null;
  level: 0 | 1 | null;
}

export interface SimConfig {
  plant: PlantConfig;
  ds2482: SimDs2482Spec[];
  w1: SimDeviceSpec[][];
  ds2480b: SimDs2480bSpec[];
  gpio: SimGpioSpec[];
  /** Sensors on the emulated I2C bus, see i2c-sensor-config.ts. */
  i2cSensors: SimI2cSensorSpec[];
  /** IO expanders and PWM chips on the emulated I2C bus, see i2c-io-config.ts. */
  i2cIo: SimI2cIoSpec[];
}

export class SimConfigError extends Error {
  override name = 'SimConfigError';
}

const FAMILY_OF: Record<SimDeviceType, number> = { DS18B20: FAMILY.DS18B20, MAX31850: FAMILY.MAX31850, DS2408: FAMILY.DS2408, DS2413: FAMILY.DS2413 };
const CHANNELS_OF: Record<SimDeviceType, number> = { DS18B20: 0, MAX31850: 0, DS2408: 8, DS2413: 2 };
/** Temperature limits per sensor type: the DS18B20 range, a type K thermocouple's range. */
const TEMPERATURE_RANGE: Partial<Record<SimDeviceType, [number, number]>> = { DS18B20: [-55, 125], MAX31850: [-270, 1372] };

/** The temperatures a sensor of this type can be set to (config and the sim REST endpoint). */
export function simTemperatureRange(type: SimDeviceType): [number, number] {
  return TEMPERATURE_RANGE[type] ?? TEMPERATURE_RANGE.DS18B20!;
}
const NODES: PlantNode[] = ['beer', 'air', 'ambient'];
const ACTUATORS: PlantActuator[] = ['heater', 'cooler'];

type Json = Record<string, unknown>;

function fail(path: string, message: string): never {
  throw new SimConfigError(`${path} ${message}`);
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function object(v: unknown, path: string): Json {
  if (!isObject(v)) fail(path, `must be an object, got ${JSON.stringify(v)}`);
  return v;
}

function array(v: unknown, path: string): unknown[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) fail(path, `must be an array, got ${JSON.stringify(v)}`);
  return v;
}

function keys(o: Json, allowed: string[], path: string): void {
  const k = firstUnknownKey(o, allowed);
  if (k !== undefined) fail(`${path}.${k}`, `is not a setting: ${unknownKeyMessage(k, allowed)}`);
}

function bool(v: unknown, path: string, fallback: boolean): boolean {
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') fail(path, `must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

/** 48-bit serial derived from a name (FNV-1a), so unaddressed devices keep their address across runs. */
function serialFromName(name: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const ch of Buffer.from(name, 'utf8')) {
    h ^= BigInt(ch);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h & 0xffffffffffffn;
}

/** A device address from the config: kernel name or 16 hex digits, of the device's family. */
export function parseSimAddress(raw: unknown, type: SimDeviceType, path: string): string {
  if (typeof raw !== 'string') fail(path, `must be a string like "28-0000000000b1", got ${JSON.stringify(raw)}`);
  const text = raw.trim().toLowerCase();
  let address: string;
  if (isKernelSlaveName(text)) address = kernelNameToRom(text);
  else if (isRomAddressSyntax(text)) {
    if (!isValidRom(text)) fail(path, `${JSON.stringify(raw)} has a wrong CRC byte (last two digits) or family`);
    address = text;
  } else fail(path, `${JSON.stringify(raw)} is neither a kernel name (28-0000000000b1) nor 16 hex digits`);
  const family = romFamily(address);
  if (family !== FAMILY_OF[type]) {
    fail(path, `family 0x${family.toString(16).padStart(2, '0')} does not match a ${type} (0x${FAMILY_OF[type].toString(16)})`);
  }
  return address;
}

function parseDevice(raw: unknown, path: string, names: Set<string>, addresses: Set<string>): SimDeviceSpec {
  const o = object(raw, path);
  keys(o, ['name', 'type', 'address', 'sense', 'temperature', 'coldJunction', 'addressPins', 'outputs', 'valves', 'plugged'], path);
  if (typeof o.name !== 'string' || o.name.trim() === '' || o.name.length > 64) fail(`${path}.name`, 'must be a non-empty string of at most 64 characters');
  const name = o.name;
  if (names.has(name)) fail(`${path}.name`, `"${name}" is used by another device`);
  names.add(name);
  if (o.type !== 'DS18B20' && o.type !== 'MAX31850' && o.type !== 'DS2408' && o.type !== 'DS2413') fail(`${path}.type`, `must be DS18B20, MAX31850, DS2408 or DS2413, got ${JSON.stringify(o.type)}`);
  const type: SimDeviceType = o.type;
  const address = o.address === undefined ? makeRom(FAMILY_OF[type], serialFromName(name)) : parseSimAddress(o.address, type, `${path}.address`);
  if (addresses.has(address)) fail(`${path}.address`, `${address} is used by another device`);
  addresses.add(address);
  let sense: PlantNode | null = null;
  let temperature = 20;
  let coldJunction = 25;
  let addressPins = 0;
  const outputs: Record<number, PlantActuator> = {};
  if (type !== 'MAX31850' && (o.coldJunction !== undefined || o.addressPins !== undefined)) fail(`${path}`, 'coldJunction and addressPins are only for a MAX31850');
  if (type === 'MAX31850') {
    if (o.coldJunction !== undefined) {
      if (typeof o.coldJunction !== 'number' || o.coldJunction < -55 || o.coldJunction > 125) fail(`${path}.coldJunction`, 'must be a number between -55 and 125');
      coldJunction = o.coldJunction;
    }
    if (o.addressPins !== undefined) {
      if (typeof o.addressPins !== 'number' || !Number.isInteger(o.addressPins) || o.addressPins < 0 || o.addressPins > 15) fail(`${path}.addressPins`, 'must be an integer 0..15');
      addressPins = o.addressPins;
    }
  }
  if (type === 'DS18B20' || type === 'MAX31850') {
    const [lo, hi] = simTemperatureRange(type);
    if (o.outputs !== undefined) fail(`${path}.outputs`, 'is only for DS2408 and DS2413');
    if (o.sense !== undefined) {
      if (!NODES.includes(o.sense as PlantNode)) fail(`${path}.sense`, `must be one of ${NODES.join(', ')}, got ${JSON.stringify(o.sense)}`);
      sense = o.sense as PlantNode;
    }
    if (o.temperature !== undefined) {
      if (typeof o.temperature !== 'number' || o.temperature < lo || o.temperature > hi) fail(`${path}.temperature`, `must be a number between ${lo} and ${hi}`);
      temperature = o.temperature;
    }
  } else {
    if (o.sense !== undefined || o.temperature !== undefined) fail(`${path}`, `a ${type} has no sense or temperature; use outputs`);
    if (o.outputs !== undefined) {
      const out = object(o.outputs, `${path}.outputs`);
      for (const [ch, role] of Object.entries(out)) {
        const n = Number(ch);
        if (!Number.isInteger(n) || n < 1 || n > CHANNELS_OF[type]) fail(`${path}.outputs.${ch}`, `is not a channel of a ${type} (1..${CHANNELS_OF[type]})`);
        if (!ACTUATORS.includes(role as PlantActuator)) fail(`${path}.outputs.${ch}`, `must be "heater" or "cooler", got ${JSON.stringify(role)}`);
        outputs[n] = role as PlantActuator;
      }
    }
  }
  const valves = parseValves(o.valves, type, `${path}.valves`);
  return { name, type, address, sense, temperature, coldJunction, addressPins, outputs, valves, plugged: bool(o.plugged, `${path}.plugged`, true) };
}

/** `valves: {"1": {"travelSeconds": 6}, "5": {}}`: motor valves on a DS2408 (drivers/sim/motor-valve.ts). */
function parseValves(raw: unknown, type: SimDeviceType, path: string): SimDeviceSpec['valves'] {
  if (raw === undefined) return [];
  if (type !== 'DS2408') fail(path, 'is only for a DS2408');
  const out: SimDeviceSpec['valves'] = [];
  for (const [ch, v] of Object.entries(object(raw, path))) {
    if (ch !== '1' && ch !== '5') fail(`${path}.${ch}`, 'a valve starts at channel 1 or 5');
    const o = object(v, `${path}.${ch}`);
    keys(o, ['travelSeconds'], `${path}.${ch}`);
    const travel = o.travelSeconds ?? 6;
    if (typeof travel !== 'number' || !(travel > 0) || travel > 600) fail(`${path}.${ch}.travelSeconds`, 'must be a number of seconds above 0, at most 600');
    out.push({ start: Number(ch), travelSeconds: travel as number });
  }
  return out;
}

function parseDevices(raw: unknown, path: string, names: Set<string>, addresses: Set<string>): SimDeviceSpec[] {
  return array(raw, path).map((d, i) => parseDevice(d, `${path}[${i}]`, names, addresses));
}

function parseI2cAddress(raw: unknown, path: string): number {
  const n = typeof raw === 'string' && /^0x[0-9a-f]+$/i.test(raw) ? parseInt(raw, 16) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0x18 || n > 0x1b) fail(path, `must be a DS2482 address 0x18..0x1B (24..27), got ${JSON.stringify(raw)}`);
  return n;
}

/** A sim GPIO line: the config's line schema plus what the emulation needs. */
const SimGpioSchema = Type.Object(
  {
    ...GPIO_LINE_PROPERTIES,
    drives: Type.Optional(Type.Union([Type.Literal('heater'), Type.Literal('cooler')], { description: 'plant actuator switched by an output line' })),
    level: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)], { description: 'physical level of an input line' })),
  },
  { additionalProperties: false },
);

function parseGpio(raw: unknown, path: string): SimGpioSpec[] {
  const lines: SimGpioSpec[] = [];
  for (const [i, item] of array(raw, path).entries()) {
    const p = `${path}[${i}]`;
    const checked = checkAgainst<Static<typeof SimGpioSchema>>(SimGpioSchema, item, p);
    if (checked.issue) fail(checked.issue.path, checked.issue.unknownKey ? `is not a setting: ${checked.issue.message}` : checked.issue.message);
    const o = checked.value;
    const twice = duplicateLine(o, lines);
    if (twice) fail(`${p}.${twice.key}`, twice.message);
    if (o.drives !== undefined && o.direction !== 'out') fail(`${p}.drives`, 'needs an output line');
    if (o.level !== undefined && o.direction !== 'in') fail(`${p}.level`, 'is only for input lines');
    lines.push({ ...o, drives: o.drives ?? null, level: o.level ?? null });
  }
  return lines;
}

/** Validates a sim config; throws SimConfigError naming the offending key (e.g. `sim.ds2482[0].channels[1][0].type`). */
export function parseSimConfig(input: unknown, path = 'sim'): SimConfig {
  const o = object(input, path);
  keys(o, ['plant', 'ds2482', 'w1', 'ds2480b', 'gpio', 'i2cSensors', 'i2cIo', '$comment'], path);
  let plant: PlantConfig;
  try {
    plant = parsePlantConfig(o.plant ?? {}, `${path}.plant`);
  } catch (e) {
    if (e instanceof PlantConfigError) throw new SimConfigError(e.message);
    throw e;
  }
  const names = new Set<string>();
  const addresses = new Set<string>();
  const i2cAddresses = new Set<number>();
  const ds2482 = array(o.ds2482, `${path}.ds2482`).map((raw, i) => {
    const p = `${path}.ds2482[${i}]`;
    const c = object(raw, p);
    keys(c, ['address', 'variant', 'channels'], p);
    const address = parseI2cAddress(c.address, `${p}.address`);
    if (i2cAddresses.has(address)) fail(`${p}.address`, `0x${address.toString(16)} is used by another bridge`);
    i2cAddresses.add(address);
    const variant = c.variant ?? 'ds2482-800';
    if (variant !== 'ds2482-100' && variant !== 'ds2482-800') fail(`${p}.variant`, `must be "ds2482-100" or "ds2482-800", got ${JSON.stringify(c.variant)}`);
    const channels = array(c.channels, `${p}.channels`);
    const max = variant === 'ds2482-800' ? 8 : 1;
    if (channels.length > max) fail(`${p}.channels`, `a ${variant} has ${max} channel(s), got ${channels.length} lists`);
    return { address, variant, channels: channels.map((list, ch) => parseDevices(list, `${p}.channels[${ch}]`, names, addresses)) } as SimDs2482Spec;
  });
  const w1 = array(o.w1, `${path}.w1`).map((list, m) => parseDevices(list, `${path}.w1[${m}]`, names, addresses));
  const ds2480b = array(o.ds2480b, `${path}.ds2480b`).map((raw, i) => {
    const p = `${path}.ds2480b[${i}]`;
    const c = object(raw, p);
    keys(c, ['pty', 'devices'], p);
    return { pty: bool(c.pty, `${p}.pty`, false), devices: parseDevices(c.devices, `${p}.devices`, names, addresses) };
  });
  const gpio = parseGpio(o.gpio, `${path}.gpio`);
  const i2cSensors = parseI2cSensors(o.i2cSensors, `${path}.i2cSensors`, fail, i2cAddresses);
  const i2cIo = parseSimI2cIo(o.i2cIo, `${path}.i2cIo`, fail, i2cAddresses);
  return { plant, ds2482, w1, ds2480b, gpio, i2cSensors, i2cIo };
}
