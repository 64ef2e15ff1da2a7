// What an I2C chip is, as the drivers know it: one ChipDef per chip in the registry (chips.ts).
// Everything that handles chips (the probe, discovery, the sensor and IO hubs, the failsafe,
// the sim config and the emulated bus, the blocks' chip lists) reads the definitions and names
// no chip. A definition says where the chip can be (addresses), how it is told from others by
// reads only (identify), how it is driven (create), what it is (kind, measures, channels), how
// the failsafe leaves it (IO chips: their driver's safeState) and how the simulator emulates it.
import type { I2cSensorSim } from '../sim/i2c-sensor-sim.js';
import type { I2cSensorDriver } from './sensor-common.js';
import type { I2cBus } from './types.js';

/**
 * What a read-only identity check found at an address: the chip, not the chip, or
 * 'ambiguous' (this chip or another that reads the same, e.g. an expander with every pin low).
 * A check may throw: EBUSY (errorCode CLAIMED) reports the address as held by a kernel driver,
 * a bus error (errorCode BUS: stuck, gone) ends the probe of the bus, a NACK or anything else
 * means "not this chip".
 */
export type Identity = boolean | 'ambiguous';

interface ChipCommon {
  /** How blocks, the sim config and the status name the chip, e.g. `TMP117`. */
  readonly name: string;
  /** One line: maker, part and what it is for. */
  readonly title: string;
  /** Every 7-bit address the chip can have; discovery touches no other. */
  readonly addresses: readonly number[];
  /** Read-only identity check; absent: never discovered, only added by hand. */
  identify?(bus: I2cBus, address: number): Promise<Identity>;
}

export type Quantity = 'temperature' | 'humidity' | 'pressure' | 'volts' | 'coldJunction';

/** What a sensor block asks of its chip beyond bus and address. */
export interface SensorOptions {
  /** ADC input 0..3. */
  channel?: number;
  /** ADC PGA code 0..5. */
  gain?: number;
  /** Thermocouple type letter (K, J, T, ...). */
  thermocouple?: string;
  /** Waits for conversions; tests pass a faster one. */
  sleep?: (ms: number) => Promise<void>;
}

/** A sim config's entry for an emulated sensor, as far as emulators use it. */
export interface EmulatedSensorSpec {
  address: number;
  temperature: number;
  humidity: number;
  pressure: number;
  /** Volts on the inputs of an ADC. */
  inputs: number[];
}

export interface I2cSensorChipDef extends ChipCommon {
  readonly role: 'sensor';
  /**
   * What sort of sensor it is: `environment` (temperature, and humidity or pressure if it has
   * them), `adc` (volts on inputs), `thermocouple` (a hot junction and a cold one). The block
   * type a found chip becomes follows from it.
   */
  readonly kind: 'environment' | 'adc' | 'thermocouple';
  /** The chip's number among the chips of its kind, as block records store it: assigned once, never reused. */
  readonly code: number;
  readonly measures: readonly Quantity[];
  /** The driver for the chip at `address`: init() checks its identity and sets it up, measure() reads it. */
  create(bus: I2cBus, address: number, options: SensorOptions): I2cSensorDriver;
  /**
   * Loads the emulator (sim mode only, so a controller does not carry it) and makes the emulated
   * chip; `now` is the sim's monotonic clock (ms), for an emulator whose conversions run on it.
   */
  emulator(): Promise<(spec: EmulatedSensorSpec, now: () => number) => I2cSensorSim>;
}

/** What an IO chip is asked to hold: outputs for an expander, duties for a PWM driver. */
export interface IoTarget {
  /** Channels driven as outputs (bit n = channel n+1). */
  drive: number;
  /** Physical levels of the driven channels (bit set = high). */
  levels: number;
  /** Asked duty per channel (index = channel - 1), 0-100 %, null when never asked. */
  duties: ReadonlyArray<number | null>;
  /** PWM frequency, Hz. */
  hz: number;
}

export interface IoPoll {
  /** Pin levels (bit n = channel n+1 high); 0 for a chip without inputs. */
  pins: number;
  /** The duty each channel reads back (null before the first read-back); empty for an expander. */
  duties: Array<number | null>;
}

/** What a poll tells the hub, for its counters and log. */
export interface IoPollEvents {
  wrote(): void;
  /** A read-back that disagrees with what the chip should hold. */
  verifyError(): void;
  /**
   * What the chip held was lost (a power-on reset, or someone else wrote it). The hub may take
   * outputs out of the poll's target here; the driver writes the target after.
   */
  reset(what: string): void;
}

/** A driver bound to one IO chip, keeping what it last wrote and read back. */
export interface I2cIoDriver {
  /** Reads the chip, writes only what differs from `target`, reads that back; throws when it does not hold. */
  poll(target: IoTarget, events: IoPollEvents): Promise<IoPoll>;
  /** A poll failed: whatever the chip holds is read back before it is trusted again. */
  lost(): void;
  /**
   * Back to the power-on state (every output off), read back; resolves with the pins held low
   * from outside, if the chip can only tell that (0 or nothing otherwise). What it held is
   * forgotten, so the next poll writes the target again without taking that for a reset.
   */
  safeState(): Promise<number | void>;
}

/** A sim config's entry for an emulated IO chip, as far as emulators use it. */
export interface EmulatedIoSpec {
  address: number;
  /** Levels the outside drives on input channels (channel -> 0/1). */
  inputs: Record<number, 0 | 1>;
}

/** An emulated IO chip, as the sim's plant and its REST see it. */
export interface EmulatedIoChip {
  plugged: boolean;
  /** Whether a channel switches its load on: a pin at the board's active level, or any PWM duty. */
  loadOn(channel: number, activeLow: boolean): boolean;
  powerOnReset(): void;
}

export interface I2cIoChipDef extends ChipCommon {
  readonly role: 'io';
  /** `expander`: digital inputs and outputs; `pwm`: PWM outputs. */
  readonly kind: 'expander' | 'pwm';
  readonly channels: number;
  /** Loads usually switch at a low pin (quasi-bidirectional pins only sink current): the block's default. */
  readonly activeLowDefault?: boolean;
  /** PWM drivers: the frequencies the chip can run at, Hz. */
  readonly frequency?: { min: number; max: number };
  create(bus: I2cBus, address: number): I2cIoDriver;
  /**
   * When identify could not tell this chip from another here ('ambiguous'): a write that is safe
   * whichever it is, after which identify can tell (the failsafe uses it).
   */
  disambiguate?(bus: I2cBus, address: number): Promise<void>;
  /** Loads the emulator (sim mode only) and makes the emulated chip. */
  emulator(): Promise<(spec: EmulatedIoSpec) => EmulatedIoChip & import('../sim/ds2482-sim.js').SimI2cDevice>;
}

export type I2cChipDef = I2cSensorChipDef | I2cIoChipDef;

/** `0x48-0x4B`, `0x20-0x27, 0x38-0x3F`: the addresses as their datasheet writes them. */
export function addressRanges(addresses: readonly number[]): string {
  const hex = (a: number) => `0x${a.toString(16).toUpperCase().padStart(2, '0')}`;
  const sorted = [...addresses].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    runs.push(
      j === i
        ? hex(sorted[i]!)
        : j === i + 1
          ? `${hex(sorted[i]!)}, ${hex(sorted[j]!)}`
          : `${hex(sorted[i]!)}-${hex(sorted[j]!)}`,
    );
    i = j + 1;
  }
  return runs.join(', ');
}
