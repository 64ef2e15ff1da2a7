// The `i2cSensors` section of the sim config: emulated sensors on the sim I2C bus.
//
//   "i2cSensors": [
//     { "name": "room", "type": "BME280", "address": "0x76",
//       "sense": "ambient",                 plant node for the temperature (or "temperature": 20)
//       "humidity": 55, "pressure": 1013 },
//     { "name": "kettle", "type": "MCP9600", "address": "0x60", "temperature": 66 },
//     { "name": "keg", "type": "ADS1115", "address": "0x48", "inputs": [1.7, 0, 0, 0] }
//   ]
//   `type` is any sensor chip of drivers/i2c/chips.ts, at one of its addresses.
import { Type, type Static } from '@sinclair/typebox';
import { I2C_SENSOR_CHIPS, i2cSensorChip } from '../i2c/chips.js';
import type { PlantNode } from './plant.js';

/** A sensor chip's name in the registry. */
export type SimI2cSensorType = string;

/** An I2C address in a sim config: a number, or a string "0x76". */
export const I2cAddressSchema = Type.Union(
  [Type.Integer({ minimum: 0, maximum: 127 }), Type.String({ pattern: '^0[xX][0-9a-fA-F]{1,2}$' })],
  {
    errorMessage: 'must be an I2C address, a number or a string like "0x76"',
  },
);

export function i2cAddressValue(raw: Static<typeof I2cAddressSchema>): number {
  return typeof raw === 'string' ? parseInt(raw, 16) : raw;
}

export const SimI2cSensorSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    type: Type.Union(I2C_SENSOR_CHIPS.map((c) => Type.Literal(c.name))),
    address: Type.Optional(I2cAddressSchema),
    sense: Type.Optional(Type.Union([Type.Literal('beer'), Type.Literal('air'), Type.Literal('ambient')])),
    temperature: Type.Number({ default: 20 }),
    humidity: Type.Number({ default: 50 }),
    pressure: Type.Number({ default: 1013.25 }),
    inputs: Type.Array(Type.Number(), { maxItems: 4, default: [0, 0, 0, 0], description: 'volts on AIN0..AIN3' }),
  },
  { additionalProperties: false },
);
export type SimI2cSensorEntry = Static<typeof SimI2cSensorSchema>;

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

/** What the schema cannot say: unique names, the chip's addresses; `taken` holds addresses of other I2C devices. */
export function parseI2cSensors(
  entries: SimI2cSensorEntry[],
  path: string,
  fail: (path: string, message: string) => never,
  taken: Set<number>,
): SimI2cSensorSpec[] {
  const names = new Set<string>();
  return entries.map((o, i) => {
    const p = `${path}[${i}]`;
    const type = o.type as SimI2cSensorType;
    if (names.has(o.name)) fail(`${p}.name`, `"${o.name}" is used twice`);
    names.add(o.name);
    const allowed = i2cSensorChip(type)!.addresses;
    const a = o.address === undefined ? allowed[0]! : i2cAddressValue(o.address);
    if (!allowed.includes(a))
      fail(
        `${p}.address`,
        `a ${type} answers at ${allowed.map((x) => `0x${x.toString(16)}`).join(', ')}; got ${JSON.stringify(o.address)}`,
      );
    if (taken.has(a)) fail(`${p}.address`, `0x${a.toString(16)} is used by another I2C device`);
    taken.add(a);
    return {
      name: o.name,
      type,
      address: a,
      sense: o.sense ?? null,
      temperature: o.temperature,
      humidity: o.humidity,
      pressure: o.pressure,
      inputs: [...o.inputs, 0, 0, 0, 0].slice(0, 4),
    };
  });
}
