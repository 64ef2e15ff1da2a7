// What the I2C sensor drivers share: their error type, register access helpers, the Sensirion
// CRC-8 (also used by nothing else), and a sleep that the emulator tests can shorten.
import type { I2cBus } from './types.js';

export type I2cSensorErrorCode = 'CRC' | 'NACK' | 'BUS' | 'CLAIMED' | 'POWER_ON' | 'IDENTITY' | 'FAULT' | 'TIMEOUT';

export class I2cSensorError extends Error {
  override name = 'I2cSensorError';
  constructor(
    readonly code: I2cSensorErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Maps an i2c-bus (or emulator) errno to a sensor error code; passes sensor errors through. */
export function errorCode(e: unknown): I2cSensorErrorCode {
  if (e instanceof I2cSensorError) return e.code;
  const code = (e as { code?: unknown }).code;
  if (code === 'EBUSY') return 'CLAIMED';
  if (code === 'EREMOTEIO' || code === 'ENXIO') return 'NACK';
  return 'BUS';
}

/**
 * At least `ms` of real time (a chip's conversion time). libuv counts timer time in whole
 * milliseconds, so setTimeout(ms) alone can end up to a millisecond early, and a chip read
 * before its conversion is done NACKs.
 */
export function delay(ms: number): Promise<void> {
  const until = performance.now() + ms;
  return new Promise<void>((resolve) => {
    const wait = () => {
      const left = until - performance.now();
      if (left <= 0) resolve();
      else setTimeout(wait, Math.ceil(left));
    };
    setTimeout(wait, ms);
  });
}

export const hex2 = (n: number) => `0x${n.toString(16).padStart(2, '0')}`;

/** Writes the register pointer, then reads `length` bytes from it. */
export async function readRegisters(
  bus: I2cBus,
  address: number,
  register: number,
  length: number,
): Promise<Uint8Array> {
  await bus.i2cWrite(address, Uint8Array.of(register));
  return bus.i2cRead(address, length);
}

export function writeRegister(bus: I2cBus, address: number, register: number, ...bytes: number[]): Promise<void> {
  return bus.i2cWrite(address, Uint8Array.of(register, ...bytes));
}

/** Sensirion CRC-8: polynomial 0x31, init 0xFF, no reflection, no final xor. */
export function sensirionCrc8(a: number, b: number): number {
  let crc = 0xff;
  for (const byte of [a, b]) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x31) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

/** The 16-bit words of a Sensirion reply (msb, lsb, crc per word); throws CRC on a mismatch. */
export function sensirionWords(bytes: Uint8Array, who: string): number[] {
  const words: number[] = [];
  for (let i = 0; i + 2 < bytes.length; i += 3) {
    const crc = sensirionCrc8(bytes[i]!, bytes[i + 1]!);
    if (crc !== bytes[i + 2])
      throw new I2cSensorError('CRC', `${who}: CRC ${hex2(bytes[i + 2]!)} != ${hex2(crc)} on word ${i / 3}`);
    words.push((bytes[i]! << 8) | bytes[i + 1]!);
  }
  return words;
}

export const int16 = (hi: number, lo: number) => {
  const v = (hi << 8) | lo;
  return v & 0x8000 ? v - 0x10000 : v;
};

/** One reading; each chip fills the quantities it measures. */
export interface Measurement {
  /** degC */
  temperature?: number;
  /** %RH */
  humidity?: number;
  /** hPa */
  pressure?: number;
  volts?: number;
  /** Thermocouple cold junction, degC. */
  coldJunction?: number;
}

/** A driver bound to one chip at one address: identity check and setup, then measurements. */
export interface I2cSensorDriver {
  readonly address: number;
  /** Read-only identity check, then configuration; throws IDENTITY when the chip is not what it should be. */
  init(): Promise<void>;
  /** One reading; an ADC takes the input and gain a block asks for. */
  measure(options?: { channel?: number; gain?: number }): Promise<Measurement>;
}

export interface DriverOptions {
  /** Waits for conversions; tests pass a faster one. */
  sleep?: (ms: number) => Promise<void>;
}
