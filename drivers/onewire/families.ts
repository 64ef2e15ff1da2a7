// Every 1-Wire device family edgeblocks drives: one definition each. The poller, the hub, 1-Wire
// discovery, the failsafe and the sim config read them and name no family: which family an
// address is comes from its first byte, what it is (a temperature sensor, an IO module with
// channels) from its definition, and how it is read from the functions here. How each master
// (kernel w1, DS2482, DS2480B) speaks a family's protocol stays in the masters (OneWireBus).
import type { SimSlave } from '../sim/onewire-slave.js';
import { romFamily } from './address.js';
import { FAMILY, type OneWireBus, type RomAddress } from './types.js';

/** One reading after a bus-wide conversion; a fault is a value (the chip answered), not an error. */
export interface TemperatureRead {
  /** degC; null with a fault. */
  value: number | null;
  /** Thermocouple converters: the chip's own (cold junction) degC. */
  coldJunction?: number | null;
  /** Thermocouple converters: what is wrong with the thermocouple (open circuit, short to GND...). */
  fault?: string | null;
}

/** A sim config's entry for an emulated device, as far as emulators use it. */
export interface EmulatedOneWireSpec {
  address: RomAddress;
  temperature: number;
  coldJunction: number;
  addressPins: number;
  /** DS18B20: powered from the data line (VDD to GND). */
  parasite?: boolean;
}

interface FamilyCommon {
  /** How the sim config and messages name it, e.g. `DS18B20`. */
  readonly name: string;
  /** The family code: the first byte of its ROM address. */
  readonly family: number;
  readonly title: string;
  /** Discovered blocks' ids: this word and the last `idDigits` digits of the serial (all when absent). */
  readonly label: string;
  readonly idDigits?: number;
  /** Loads the emulator (sim mode only) and makes the emulated device. */
  emulator(): Promise<(spec: EmulatedOneWireSpec) => SimSlave>;
}

export interface OneWireSensorFamily extends FamilyCommon {
  readonly kind: 'temperature';
  /** What it can report, degC (the sim refuses temperatures outside). */
  readonly range: readonly [number, number];
  /** Reports a cold junction and thermocouple faults beside the temperature. */
  readonly thermocouple?: boolean;
  read(bus: OneWireBus, address: RomAddress): Promise<TemperatureRead>;
}

export interface OneWireIoFamily extends FamilyCommon {
  readonly kind: 'io';
  readonly channels: number;
  /** Pins and latches, bit n = channel n+1, active polarity (a pin reading low, a transistor on). */
  readIo(bus: OneWireBus, address: RomAddress): Promise<{ pins: number; latches: number }>;
  writeIo(bus: OneWireBus, address: RomAddress, latches: number): Promise<void>;
}

export type OneWireFamilyDef = OneWireSensorFamily | OneWireIoFamily;

export const ONEWIRE_FAMILIES: readonly OneWireFamilyDef[] = [
  {
    name: 'DS18B20',
    family: FAMILY.DS18B20,
    title: 'Maxim DS18B20 temperature sensor',
    label: 'Sensor',
    idDigits: 4,
    kind: 'temperature',
    range: [-55, 125],
    read: async (bus, address) => ({ value: await bus.readTemperature(address) }),
    emulator: async () => {
      const { SimDs18b20 } = await import('../sim/onewire-ds18b20.js');
      return (s) => new SimDs18b20({ address: s.address, temperature: s.temperature, parasite: s.parasite });
    },
  },
  {
    // The DS1825 shares the family code and the scratchpad layout.
    name: 'MAX31850',
    family: FAMILY.MAX31850,
    title: 'Maxim MAX31850 thermocouple converter',
    label: 'Thermocouple',
    idDigits: 4,
    kind: 'temperature',
    range: [-270, 1372],
    thermocouple: true,
    read: async (bus, address) => {
      const r = await bus.readMax31850(address);
      return { value: r.fault ? null : r.temperature, coldJunction: r.coldJunction, fault: r.fault };
    },
    emulator: async () => {
      const { SimMax31850 } = await import('../sim/onewire-max31850.js');
      return (s) =>
        new SimMax31850({
          address: s.address,
          temperature: s.temperature,
          coldJunction: s.coldJunction,
          addressPins: s.addressPins,
        });
    },
  },
  {
    name: 'DS2408',
    family: FAMILY.DS2408,
    title: 'Maxim DS2408 8-channel switch',
    label: 'DS2408',
    kind: 'io',
    channels: 8,
    readIo: (bus, address) => bus.readDs2408(address),
    writeIo: (bus, address, latches) => bus.writeDs2408(address, latches),
    emulator: async () => {
      const { SimDs2408 } = await import('../sim/onewire-ds2408.js');
      return (s) => new SimDs2408({ address: s.address });
    },
  },
  {
    name: 'DS2413',
    family: FAMILY.DS2413,
    title: 'Maxim DS2413 2-channel switch',
    label: 'DS2413',
    kind: 'io',
    channels: 2,
    readIo: (bus, address) => bus.readDs2413(address),
    writeIo: (bus, address, latches) => bus.writeDs2413(address, latches),
    emulator: async () => {
      const { SimDs2413 } = await import('../sim/onewire-ds2413.js');
      return (s) => new SimDs2413({ address: s.address });
    },
  },
];

/** The family of a ROM address (its first byte), or undefined for one no definition has. */
export function familyOf(address: RomAddress): OneWireFamilyDef | undefined {
  const code = romFamily(address);
  return ONEWIRE_FAMILIES.find((f) => f.family === code);
}

export function oneWireFamily(name: string): OneWireFamilyDef | undefined {
  return ONEWIRE_FAMILIES.find((f) => f.name === name);
}

/** A mask of an IO family's channels (8 channels: 0xff). */
export function channelMask(family: OneWireIoFamily): number {
  return (1 << family.channels) - 1;
}
