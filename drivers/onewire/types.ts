// Contracts shared by every 1-Wire master and device driver. Drivers know nothing of blocks.
import type { Max31850Reading } from './max31850.js';

/** A 64-bit ROM id as 16 lowercase hex digits, bytes in bus order: family first, CRC last. */
export type RomAddress = string;

/** Result of the DS2482-style search triplet: two read bits and the direction taken. */
export interface TripletResult {
  id: 0 | 1;
  cmp: 0 | 1;
  dir: 0 | 1;
}

/**
 * Bit/byte-level bus master (DS2482 channel, DS2480B adapter). Protocol code (ROM search,
 * device commands) runs on top of this interface and is shared by every master.
 */
export interface OneWireMaster {
  /** Stable, human-readable name, e.g. `ds2482-1-0x18-ch0` or `ds2480b-/dev/ttyUSB0`. */
  readonly name: string;
  /** Reset pulse; resolves true when at least one device answered with presence. Throws BusShortError on a short. */
  reset(): Promise<boolean>;
  writeByte(byte: number): Promise<void>;
  readByte(): Promise<number>;
  writeBit(bit: 0 | 1): Promise<void>;
  readBit(): Promise<0 | 1>;
  /** One search step: read bit, read complement, write the chosen direction (`dir` when both differ). */
  triplet(direction: 0 | 1): Promise<TripletResult>;
  /** Optional: release the underlying port or handle. */
  close?(): Promise<void>;
  /**
   * Optional: one whole search pass done by the master in hardware (DS2480B search accelerator).
   * Issues reset + `command` (0xF0 or 0xEC) itself. `directions[i]` is the branch to take at ROM
   * bit i when devices disagree. Returns the 64 bits taken and the 64 conflict flags (both read
   * slots were 0), or null when no device answered the reset. Search code falls back to
   * `triplet` when a master lacks this.
   */
  searchPass?(command: number, directions: Uint8Array): Promise<SearchPassResult | null>;
}

/** Per-bit result of a hardware search pass, each array 64 entries of 0/1, bit i = ROM bit i (LSB of byte 0 first). */
export interface SearchPassResult {
  bits: Uint8Array;
  conflicts: Uint8Array;
}

/** Device-level view of one physical bus. Implemented over a OneWireMaster, or directly by the kernel w1 tree. */
export interface OneWireBus {
  readonly name: string;
  readonly kind: 'ds2482' | 'ds2480b' | 'w1';
  /** Full ROM search; returns CRC-valid addresses. */
  search(): Promise<RomAddress[]>;
  /** Start a temperature conversion on every DS18B20 on the bus at once (skip ROM + Convert T). */
  convertAll(): Promise<void>;
  /** Read a DS18B20 scratchpad and return degC. Throws a OneWireError on CRC failure, no presence, or an invalid scratchpad. */
  readTemperature(address: RomAddress): Promise<number>;
  /** Read a family-0x3B (MAX31850/DS1825) scratchpad, CRC-checked; a thermocouple fault is a value, not an error. */
  readMax31850(address: RomAddress): Promise<Max31850Reading>;
  /**
   * DS2408: PIO logic state and output latch state, bit n = channel n+1. Both in "active"
   * polarity: a pins bit is 1 when that pin reads low, a latches bit is 1 when that output
   * transistor is on (chip latch register bit 0).
   */
  readDs2408(address: RomAddress): Promise<{ pins: number; latches: number }>;
  /** DS2408: write the output latches (bit set = latch on = pin pulled low = "active"). */
  writeDs2408(address: RomAddress, latches: number): Promise<void>;
  /** DS2413: pin and latch state for A (bit 0) and B (bit 1), same "active" polarity as the DS2408. */
  readDs2413(address: RomAddress): Promise<{ pins: number; latches: number }>;
  writeDs2413(address: RomAddress, latches: number): Promise<void>;
  close(): Promise<void>;
}

export type OneWireErrorCode = 'NO_PRESENCE' | 'CRC' | 'INVALID_DATA' | 'SHORT' | 'TIMEOUT' | 'IO';

export class OneWireError extends Error {
  constructor(
    readonly code: OneWireErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OneWireError';
  }
}

/** The error a master throws when the bus is shorted (code 'SHORT'). */
export class BusShortError extends OneWireError {
  constructor(message: string) {
    super('SHORT', message);
    this.name = 'BusShortError';
  }
}

export const FAMILY = {
  DS18B20: 0x28,
  DS2408: 0x29,
  DS2413: 0x3a,
  /** MAX31850 thermocouple converter (and DS1825), see max31850.ts. */
  MAX31850: 0x3b,
} as const;
