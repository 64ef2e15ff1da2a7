// What block behaviour may ask of the hardware layer. The app fills it from the drivers
// (linux or sim); in tests and without hardware it is empty. Everything here is synchronous:
// reads come from caches the hardware layer refreshes before each scheduler tick, and writes
// are queued for the next refresh. No block ever awaits IO.
import type { I2cSensorAccess } from './i2c-sensors.js';

export interface Hardware {
  /** What the hardware layer offers; a service that is absent is not there (tests, no hardware). */
  readonly services: HardwareServices;
}

export interface HardwareServices {
  readonly onewire?: OneWireAccess;
  readonly gpio?: GpioAccess;
  readonly i2cSensors?: I2cSensorAccess;
  readonly i2cIo?: I2cIoAccess;
}

export const noHardware: Hardware = { services: {} };

/** 16 lowercase hex digits, family byte first, CRC last (bus order). */
export type DeviceAddress = string;

/** A 1-Wire IO family's name (drivers/onewire/families.ts), e.g. `DS2408`. */
export type OneWireIoKind = string;

export interface TemperatureReading {
  /** degC; null when there is no fresh (under 2 s old) valid reading. */
  value: number | null;
  /** Name of the bus the sensor was found on, or null when it has not been found. */
  bus: string | null;
  /** The last read of the sensor succeeded. */
  connected: boolean;
  /** Thermocouple converters only (absent for a DS18B20): cold-junction degC, the thermocouple fault, faults counted. */
  coldJunction?: number | null;
  fault?: string | null;
  faults?: number;
  /** When this reading may next change (its next read, or going stale), on the runtime's clock; absent when unknown. */
  nextChangeAt?: number;
  /** Not read yet since the start (the buses are being searched, or its first read is under way): a null is no fault yet. */
  pending?: boolean;
}

/** Outputs an IO module lost by itself (on, found off: a power-on reset) or a safe state switched off, and when (the runtime's clock). */
export interface LostOutputs {
  /** Bit n = channel n+1. */
  bits: number;
  at: number;
}

/** When `channel`'s output was lost (IoArray.lostAt), or null. */
export function lostAt(lost: LostOutputs | null | undefined, channel: number): number | null {
  return lost && channel >= 1 && lost.bits & (1 << (channel - 1)) ? lost.at : null;
}

export interface IoReading {
  /** Active polarity: bit n set = channel n+1 pin reads low ("active"). */
  pins: number;
  /** Active polarity: bit n set = output n+1 latch on. */
  latches: number;
  connected: boolean;
  bus: string;
  /** The latches the hardware is asked to hold; null before any were asked for. */
  desired: number | null;
  /** Outputs the module lost by itself (on, found off: a power-on reset), and when (the runtime's clock). */
  lost: LostOutputs | null;
}

/** The id discovery gives the OneWireBus block of a master; device blocks link to it by this id. */
export const oneWireBusBlockId = (busName: string): string => `OneWire Bus ${busName}`;

/**
 * How an I2C chip a block names (its `bus` and `address`) is listed among the devices that are
 * missing or not known yet; a 1-Wire device is listed by its ROM address.
 */
export const i2cChipKey = (bus: string, address: number): string => `${bus}/0x${address.toString(16).padStart(2, '0')}`;

export interface OneWireBusInfo {
  name: string;
  kind: string;
  /** Addresses found by the last successful search. */
  addresses: DeviceAddress[];
  crcErrors: number;
  /** CRC failures absorbed by a retry (masters that retry; 0 otherwise). */
  crcRetries: number;
  presenceErrors: number;
  shortErrors: number;
  readErrors: number;
  searches: number;
  lastError: string | null;
}

/**
 * 1-Wire devices by address. Asking for an address is what makes the hardware layer find and
 * poll it; addresses nobody asked about for a while are dropped again.
 */
export interface OneWireAccess {
  temperature(address: DeviceAddress, now: number): TemperatureReading;
  /** Cached IO module state; null until the module has been found on a bus. */
  io(address: DeviceAddress, kind: OneWireIoKind): IoReading | null;
  /** Desired output latches (active polarity); written on the next refresh, re-asserted if they drift. */
  setLatches(address: DeviceAddress, kind: OneWireIoKind, latches: number): void;
  /**
   * Every output but `keep` (bit n - 1 for output n) off, those as the module was found, unless
   * latches were asked for the address already (in this run, since it was last let go): a block's
   * first update once the module is read switches off what nobody drives, leaving what a block
   * claims as it is for that block to write (a relay a crash left on is not switched off and on),
   * without undoing what the users of a second block on the module asked.
   */
  offUnlessAsked(address: DeviceAddress, kind: OneWireIoKind, keep: number): void;
  /** Stop polling an address (its block was deleted or re-addressed). */
  release(address: DeviceAddress): void;
  /** These latches (bit n - 1 for output n) off, the module's others as they are: a second block on it goes. */
  outputsOff(address: DeviceAddress, outputs: number): void;
  buses(): OneWireBusInfo[];
  bus(name: string): OneWireBusInfo | null;
}

export interface GpioLineInfo {
  name: string;
  line: number;
  direction: 'out' | 'in';
  activeLow: boolean;
  safeState: boolean;
}

/** The GPIO lines of the configuration, by name, in configuration order. */
export interface GpioAccess {
  lines(): GpioLineInfo[];
  /** Logical level (after activeLow) from the last refresh; null when unknown or unreadable. */
  read(name: string): boolean | null;
  /** Queued; failures are counted and logged by the hardware layer. */
  write(name: string, active: boolean): void;
  /** Software PWM on an output line (80 or 100 Hz); a later write() ends it. */
  pwm?(name: string, duty: number, hz: number): void;
  /** The duty commanded on a line (0/100 for a steady level), or null when unknown. */
  duty?(name: string): number | null;
  /** When a safe state last switched the line off from active (control disabled), or null. */
  lostAt?(name: string): number | null;
}

/** An IO chip's name in the registry (drivers/i2c/chips.ts), e.g. `MCP23017`. */
export type I2cIoKind = string;

export interface I2cIoReading {
  /** Physical pin levels (bit n = channel n+1 high); a PWM driver: 0. */
  pins: number;
  /** The chip answered its last poll and its outputs read back as asked. */
  connected: boolean;
  /** PWM drivers: the duty (0-100) each channel reads back, index = channel - 1; null before the first read-back. */
  duties: Array<number | null>;
  lastError: string | null;
  /** Expanders: the outputs a power-on reset took (bit n = channel n+1), and when (the runtime's clock). */
  lost: LostOutputs | null;
}

/**
 * The IO chips (expanders and PWM drivers of drivers/i2c/chips.ts) by bus name and address.
 * Asking for a chip makes the hardware layer poll it; chips nobody asked about for a while are
 * made safe and dropped.
 */
export interface I2cIoAccess {
  io(bus: string, address: number, kind: I2cIoKind): I2cIoReading;
  /**
   * Expanders: pins in `drive` become outputs at the physical `levels`; the others stay inputs.
   * Written when they differ from the read-back. Outputs that were on (`active`, whatever their
   * level; default all driven) and that a power-on reset took stay in their power-on state until
   * their channel is asked for again: `asked`. Those that were off are written back at once (on
   * an active-high board the reset switched them on). Only the `asked` channels change (default:
   * all), so two blocks on one chip each drive their own. Bit n = channel n+1.
   */
  setOutputs(
    bus: string,
    address: number,
    kind: I2cIoKind,
    drive: number,
    levels: number,
    asked?: number,
    active?: number,
  ): void;
  /** PWM drivers: one channel's duty (0-100 %). */
  setDuty(bus: string, address: number, kind: I2cIoKind, channel: number, duty: number): void;
  /** PWM drivers: the chip's PWM frequency (Hz, within the chip's range). */
  setFrequency(bus: string, address: number, kind: I2cIoKind, hz: number): void;
  /** Stop using the chip: it is made safe (its power-on state) and no longer polled. */
  release(bus: string, address: number): void;
  /**
   * Another block takes the chip over: nothing is driven until its writers ask again (in the
   * same synchronous step, before any poll), and the chip is never made safe between, so an
   * output on before and after stays on.
   */
  handOver(bus: string, address: number): void;
  /**
   * These outputs (bit n - 1 for output n) back to their safe state (an expander's pin an input,
   * a PWM channel at 0 %), the chip's others as they are: a second block on the chip goes.
   */
  outputsOff(bus: string, address: number, outputs: number): void;
}

export function i2cIoAccess(hardware: Hardware): I2cIoAccess | null {
  return hardware.services.i2cIo ?? null;
}
