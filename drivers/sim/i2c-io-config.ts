// The `i2cIo` section of a sim config: IO chips (the expanders and PWM drivers of
// drivers/i2c/chips.ts) on the emulated I2C bus (the bus the DS2482 bridges sit on).
//
//   "i2cIo": [
//     { "name": "relay-board",               unique among the chips
//       "type": "MCP23017",                  an IO chip of the registry: MCP23017 | PCF8574 | PCA9685
//       "address": 32,                       a number or "0x20": 0x20-0x27 (PCF8574A 0x38-0x3F, PCA9685 0x40-0x7F)
//       "activeLow": true,                   the board's relays switch on at a low pin (MCP23017/PCF8574)
//       "outputs": { "1": "heater" },        channel (1-based) -> plant actuator
//       "inputs": { "9": 0 },                expanders: level the outside drives on an input channel
//       "plugged": true }
//   ]
import { Type, type Static } from '@sinclair/typebox';
import { I2C_IO_CHIPS, i2cIoChip } from '../i2c/chips.js';
import { I2cAddressSchema, i2cAddressValue } from './i2c-sensor-config.js';

/** An IO chip's name in the registry. */
export type SimI2cIoType = string;

export interface SimI2cIoSpec {
  name: string;
  type: SimI2cIoType;
  address: number;
  activeLow: boolean;
  outputs: Record<number, 'heater' | 'cooler'>;
  inputs: Record<number, 0 | 1>;
  plugged: boolean;
}

type Fail = (path: string, message: string) => never;

/** Channel (1-based, as a key) -> value; which channels a chip has is checked after the schema. */
const channelMap = <T extends ReturnType<typeof Type.Union>>(value: T) =>
  Type.Record(Type.String({ pattern: '^[0-9]+$' }), value, { default: {} });

export const SimI2cIoSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '\\S',
      errorMessage: 'must be a non-empty string of at most 64 characters',
    }),
    type: Type.Union(I2C_IO_CHIPS.map((c) => Type.Literal(c.name))),
    address: I2cAddressSchema,
    activeLow: Type.Boolean({ default: false }),
    outputs: channelMap(Type.Union([Type.Literal('heater'), Type.Literal('cooler')])),
    inputs: channelMap(Type.Union([Type.Literal(0), Type.Literal(1)])),
    plugged: Type.Boolean({ default: true }),
  },
  { additionalProperties: false },
);
export type SimI2cIoEntry = Static<typeof SimI2cIoSchema>;

/** What the schema cannot say: unique names, the chip's addresses and channels; `taken`: I2C addresses already used on the bus (bridges, sensors). */
export function parseSimI2cIo(entries: SimI2cIoEntry[], path: string, fail: Fail, taken: Set<number>): SimI2cIoSpec[] {
  const names = new Set<string>();
  return entries.map((o, i) => {
    const p = `${path}[${i}]`;
    const type: SimI2cIoType = o.type;
    const chip = i2cIoChip(type)!;
    if (names.has(o.name)) fail(`${p}.name`, `"${o.name}" is used by another chip`);
    names.add(o.name);
    const address = i2cAddressValue(o.address);
    if (!chip.addresses.includes(address))
      fail(`${p}.address`, `is not an address of a ${type}, got ${JSON.stringify(o.address)}`);
    if (taken.has(address)) fail(`${p}.address`, `0x${address.toString(16)} is used by another chip on the bus`);
    taken.add(address);
    if (chip.kind !== 'expander' && Object.keys(o.inputs).length > 0) fail(`${p}.inputs`, `a ${type} has no inputs`);
    const channels = <T>(map: Record<string, T>, key: string): Record<number, T> => {
      const out: Record<number, T> = {};
      for (const [ch, v] of Object.entries(map)) {
        const n = Number(ch);
        if (n < 1 || n > chip.channels)
          fail(`${p}.${key}.${ch}`, `is not a channel of a ${type} (1..${chip.channels})`);
        out[n] = v;
      }
      return out;
    };
    return {
      name: o.name,
      type,
      address,
      activeLow: o.activeLow,
      outputs: channels(o.outputs, 'outputs'),
      inputs: channels(o.inputs, 'inputs'),
      plugged: o.plugged,
    };
  });
}
