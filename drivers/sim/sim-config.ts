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
//     "type": "DS18B20",                    a family of drivers/onewire/families.ts: DS18B20 | MAX31850 | DS2408 | DS2413
//     "address": "28-0000000000b1",         kernel name, or 16 hex digits (family first, CRC
//                                           last); default: derived from the name
//     "sense": "beer",                      DS18B20: plant node it measures (beer/air/ambient)
//     "temperature": 20,                    DS18B20: fixed temperature when it senses nothing;
//                                           MAX31850: thermocouple temperature (-270..1372)
//     "coldJunction": 25,                   MAX31850: chip temperature (-55..125)
//     "addressPins": 0,                     MAX31850: AD3..AD0 pin levels (0..15)
//     "outputs": { "1": "heater" },         DS2408/DS2413: channel (1-based) -> plant actuator
//     "leftOn": [1, 3],                     DS2408/DS2413: channels on at the start, as a previous
//                                           run of the service left them (the module kept its power)
//     "plugged": true,                      start unplugged with false
//     "power": "external",                  DS18B20: "parasite" when VDD is tied to GND
//     "faults": { "crcEvery": 4,            every 4th frame it sends is garbled (a flaky bus)
//                 "stuckAt85": true,        DS18B20: conversions never finish (85 degC forever)
//                 "dataLow": true } }       its data line held low: what it sends reads all zero
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { duplicateLine, GPIO_LINE_PROPERTIES } from '../gpio/line-config.js';
import { checkAgainst } from '../schema-check.js';
import {
  isKernelSlaveName,
  isRomAddressSyntax,
  isValidRom,
  kernelNameToRom,
  makeRom,
  romFamily,
} from '../onewire/address.js';
import { ONEWIRE_FAMILIES, oneWireFamily, type OneWireFamilyDef } from '../onewire/families.js';
import {
  I2cAddressSchema,
  i2cAddressValue,
  parseI2cSensors,
  SimI2cSensorSchema,
  type SimI2cSensorSpec,
} from './i2c-sensor-config.js';
import { parseSimI2cIo, SimI2cIoSchema, type SimI2cIoSpec } from './i2c-io-config.js';
import { parsePlantConfig, PlantConfigError, type PlantConfig } from './plant-config.js';
import type { PlantNode } from './plant.js';

/** A 1-Wire family's name (drivers/onewire/families.ts). */
export type SimDeviceType = string;
export type PlantActuator = 'heater' | 'cooler';

export interface SimDeviceSpec {
  name: string;
  type: SimDeviceType;
  address: string;
  sense: PlantNode | null;
  temperature: number;
  /** Thermocouple converters (MAX31850): chip temperature and AD3..AD0 pins. */
  coldJunction: number;
  addressPins: number;
  /** Channel (1-based) -> actuator. */
  outputs: Record<number, PlantActuator>;
  /** IO modules: outputs on at the start as a previous run left them, bit n = channel n+1. */
  leftOn: number;
  /** DS2408: motor valves by start channel (1 or 5), with their stroke time in seconds. */
  valves: Array<{ start: number; travelSeconds: number }>;
  plugged: boolean;
  /** DS18B20: powered from the data line. */
  parasite: boolean;
  faults: { crcEvery: number; stuckAt85: boolean; dataLow: boolean };
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

const familyNamed = (type: SimDeviceType) => oneWireFamily(type)!;
const namesOf = (which: (f: OneWireFamilyDef) => boolean, join: string) =>
  ONEWIRE_FAMILIES.filter(which)
    .map((f) => f.name)
    .join(join);

/** The temperatures a sensor of this type can be set to (config and the sim REST endpoint). */
export function simTemperatureRange(type: SimDeviceType): [number, number] {
  const f = oneWireFamily(type);
  return f?.kind === 'temperature' ? [f.range[0], f.range[1]] : [-55, 125];
}

function fail(path: string, message: string): never {
  throw new SimConfigError(`${path} ${message}`);
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
  const expected = familyNamed(type).family;
  if (family !== expected) {
    fail(
      path,
      `family 0x${family.toString(16).padStart(2, '0')} does not match a ${type} (0x${expected.toString(16)})`,
    );
  }
  return address;
}

const Actuator = Type.Union([Type.Literal('heater'), Type.Literal('cooler')]);

const SimDeviceSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '\\S',
      errorMessage: 'must be a non-empty string of at most 64 characters',
    }),
    type: Type.Union(ONEWIRE_FAMILIES.map((f) => Type.Literal(f.name))),
    address: Type.Optional(Type.String()),
    sense: Type.Optional(Type.Union([Type.Literal('beer'), Type.Literal('air'), Type.Literal('ambient')])),
    temperature: Type.Optional(Type.Number()),
    coldJunction: Type.Optional(
      Type.Number({ minimum: -55, maximum: 125, errorMessage: 'must be a number between -55 and 125' }),
    ),
    addressPins: Type.Optional(Type.Integer({ minimum: 0, maximum: 15 })),
    outputs: Type.Optional(Type.Record(Type.String({ pattern: '^[0-9]+$' }), Actuator)),
    leftOn: Type.Optional(Type.Array(Type.Integer())),
    valves: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object(
          { travelSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 600 })) },
          { additionalProperties: false },
        ),
      ),
    ),
    plugged: Type.Boolean({ default: true }),
    power: Type.Optional(Type.Union([Type.Literal('external'), Type.Literal('parasite')])),
    faults: Type.Optional(
      Type.Object(
        {
          crcEvery: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
          stuckAt85: Type.Optional(Type.Boolean()),
          dataLow: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
type SimDeviceEntry = Static<typeof SimDeviceSchema>;

/** A sim GPIO line: the config's line schema plus what the emulation needs. */
const SimGpioSchema = Type.Object(
  {
    ...GPIO_LINE_PROPERTIES,
    drives: Type.Optional(
      Type.Union([Type.Literal('heater'), Type.Literal('cooler')], {
        description: 'plant actuator switched by an output line',
      }),
    ),
    level: Type.Optional(
      Type.Union([Type.Literal(0), Type.Literal(1)], { description: 'physical level of an input line' }),
    ),
  },
  { additionalProperties: false },
);

const list = <T extends TSchema>(items: T) => Type.Array(items, { default: [] });

const SimConfigSchema = Type.Object(
  {
    $comment: Type.Optional(Type.Unknown()),
    /** Checked by parsePlantConfig. */
    plant: Type.Optional(Type.Unknown()),
    ds2482: list(
      Type.Object(
        {
          address: I2cAddressSchema,
          variant: Type.Union([Type.Literal('ds2482-100'), Type.Literal('ds2482-800')], { default: 'ds2482-800' }),
          channels: list(list(SimDeviceSchema)),
        },
        { additionalProperties: false },
      ),
    ),
    w1: list(list(SimDeviceSchema)),
    ds2480b: list(
      Type.Object(
        { pty: Type.Boolean({ default: false }), devices: list(SimDeviceSchema) },
        { additionalProperties: false },
      ),
    ),
    gpio: list(SimGpioSchema),
    i2cSensors: list(SimI2cSensorSchema),
    i2cIo: list(SimI2cIoSchema),
  },
  { additionalProperties: false },
);
type SimConfigEntry = Static<typeof SimConfigSchema>;

/** What the schema cannot say about a device: its address, the keys that depend on its type, unique names and addresses. */
function deviceSpec(o: SimDeviceEntry, path: string, names: Set<string>, addresses: Set<string>): SimDeviceSpec {
  const { name, type } = o;
  if (names.has(name)) fail(`${path}.name`, `"${name}" is used by another device`);
  names.add(name);
  const family = familyNamed(type);
  const address =
    o.address === undefined
      ? makeRom(family.family, serialFromName(name))
      : parseSimAddress(o.address, type, `${path}.address`);
  if (addresses.has(address)) fail(`${path}.address`, `${address} is used by another device`);
  addresses.add(address);
  const thermocouple = family.kind === 'temperature' && family.thermocouple === true;
  if (!thermocouple && (o.coldJunction !== undefined || o.addressPins !== undefined))
    fail(
      `${path}`,
      `coldJunction and addressPins are only for a ${namesOf((f) => f.kind === 'temperature' && !!f.thermocouple, ' or ')}`,
    );
  const outputs: Record<number, PlantActuator> = {};
  let leftOn = 0;
  if (family.kind === 'temperature') {
    const [lo, hi] = simTemperatureRange(type);
    if (o.outputs !== undefined) fail(`${path}.outputs`, `is only for ${namesOf((f) => f.kind === 'io', ' and ')}`);
    if (o.leftOn !== undefined) fail(`${path}.leftOn`, `is only for ${namesOf((f) => f.kind === 'io', ' and ')}`);
    if (o.temperature !== undefined && (o.temperature < lo || o.temperature > hi))
      fail(`${path}.temperature`, `must be a number between ${lo} and ${hi}`);
  } else {
    if (o.sense !== undefined || o.temperature !== undefined)
      fail(`${path}`, `a ${type} has no sense or temperature; use outputs`);
    for (const [ch, role] of Object.entries(o.outputs ?? {})) {
      const n = Number(ch);
      if (n < 1 || n > family.channels)
        fail(`${path}.outputs.${ch}`, `is not a channel of a ${type} (1..${family.channels})`);
      outputs[n] = role;
    }
    for (const [i, n] of (o.leftOn ?? []).entries()) {
      if (n < 1 || n > family.channels)
        fail(`${path}.leftOn[${i}]`, `is not a channel of a ${type} (1..${family.channels})`);
      leftOn |= 1 << (n - 1);
    }
  }
  if (type !== 'DS18B20' && (o.power !== undefined || o.faults?.stuckAt85 !== undefined))
    fail(`${path}`, 'power and faults.stuckAt85 are only for a DS18B20');
  const valves: SimDeviceSpec['valves'] = [];
  if (o.valves !== undefined && type !== 'DS2408') fail(`${path}.valves`, 'is only for a DS2408');
  for (const [ch, v] of Object.entries(o.valves ?? {})) {
    if (ch !== '1' && ch !== '5') fail(`${path}.valves.${ch}`, 'a valve starts at channel 1 or 5');
    valves.push({ start: Number(ch), travelSeconds: v.travelSeconds ?? 6 });
  }
  return {
    name,
    type,
    address,
    sense: o.sense ?? null,
    temperature: o.temperature ?? 20,
    coldJunction: o.coldJunction ?? 25,
    addressPins: o.addressPins ?? 0,
    outputs,
    leftOn,
    valves,
    plugged: o.plugged,
    parasite: o.power === 'parasite',
    faults: {
      crcEvery: o.faults?.crcEvery ?? 0,
      stuckAt85: o.faults?.stuckAt85 ?? false,
      dataLow: o.faults?.dataLow ?? false,
    },
  };
}

function gpioSpecs(entries: SimConfigEntry['gpio'], path: string): SimGpioSpec[] {
  const lines: SimGpioSpec[] = [];
  for (const [i, o] of entries.entries()) {
    const p = `${path}[${i}]`;
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
  const checked = checkAgainst<SimConfigEntry>(SimConfigSchema, input, path);
  if (checked.issue)
    fail(
      checked.issue.path,
      checked.issue.unknownKey ? `is not a setting: ${checked.issue.message}` : checked.issue.message,
    );
  const o = checked.value;
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
  const devices = (list: SimDeviceEntry[], p: string) =>
    list.map((d, i) => deviceSpec(d, `${p}[${i}]`, names, addresses));
  const ds2482 = o.ds2482.map((c, i): SimDs2482Spec => {
    const p = `${path}.ds2482[${i}]`;
    const address = i2cAddressValue(c.address);
    if (address < 0x18 || address > 0x1b)
      fail(`${p}.address`, `must be a DS2482 address 0x18..0x1B (24..27), got ${JSON.stringify(c.address)}`);
    if (i2cAddresses.has(address)) fail(`${p}.address`, `0x${address.toString(16)} is used by another bridge`);
    i2cAddresses.add(address);
    const max = c.variant === 'ds2482-800' ? 8 : 1;
    if (c.channels.length > max)
      fail(`${p}.channels`, `a ${c.variant} has ${max} channel(s), got ${c.channels.length} lists`);
    return {
      address,
      variant: c.variant,
      channels: c.channels.map((list, ch) => devices(list, `${p}.channels[${ch}]`)),
    };
  });
  const w1 = o.w1.map((list, m) => devices(list, `${path}.w1[${m}]`));
  const ds2480b = o.ds2480b.map((c, i) => ({
    pty: c.pty,
    devices: devices(c.devices, `${path}.ds2480b[${i}].devices`),
  }));
  const gpio = gpioSpecs(o.gpio, `${path}.gpio`);
  const i2cSensors = parseI2cSensors(o.i2cSensors, `${path}.i2cSensors`, fail, i2cAddresses);
  const i2cIo = parseSimI2cIo(o.i2cIo, `${path}.i2cIo`, fail, i2cAddresses);
  return { plant, ds2482, w1, ds2480b, gpio, i2cSensors, i2cIo };
}
