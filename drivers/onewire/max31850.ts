// MAX31850 (family 0x3B) thermocouple-to-1-Wire converter. It speaks the DS18B20 function
// commands (Convert T 0x44, Read Scratchpad 0xBE), so it joins the bus-wide conversion, but its
// 9-byte scratchpad is its own:
//   byte 0-1  thermocouple temperature, 14-bit signed in 0.25 degC steps in bits 15..2;
//             bit 1 reserved, bit 0 = fault (any of the three below)
//   byte 2-3  cold-junction temperature, 12-bit signed in 0.0625 degC steps in bits 15..4;
//             bit 3 reserved, bit 2 = short to VCC, bit 1 = short to GND, bit 0 = open circuit
//   byte 4    configuration: bits 7..4 read 1, bits 3..0 = the AD3..AD0 address pins
//   byte 5-7  reserved (0xFF), byte 8 = CRC-8 of bytes 0..7
// Family 0x3B is shared with the DS1825 (a DS18B20 with address pins), whose configuration bit
// 7 reads 0; the kernel's w1_therm tells them apart the same way.
import { checkScratchpad, checkPowerOnSignature, decodeTemperature } from './ds18b20.js';
import { OneWireError } from './types.js';

export const MAX31850_FAMILY = 0x3b;
/** Datasheet maximum conversion time. */
export const MAX31850_CONVERSION_MS = 100;

export type ThermocoupleFault = 'open circuit' | 'short to GND' | 'short to VCC' | 'fault bit without detail';

export interface Max31850Reading {
  /** Hot-junction degC; null while the thermocouple has a fault. */
  temperature: number | null;
  /** Chip (cold-junction) degC; null for a DS1825, which has none. */
  coldJunction: number | null;
  /** The fault the chip reports, null when none. */
  fault: ThermocoupleFault | null;
  /** AD3..AD0 pin levels (0..15), the chip's location id. */
  addressPins: number;
  chip: 'MAX31850' | 'DS1825';
}

/** Thermocouple faults in the order the chip's bits 0..2 of byte 2 name them. */
export const FAULT_BITS: ReadonlyArray<[number, ThermocoupleFault]> = [
  [0x01, 'open circuit'],
  [0x02, 'short to GND'],
  [0x04, 'short to VCC'],
];

function signed(word: number, bits: number): number {
  return word & (1 << (bits - 1)) ? word - (1 << bits) : word;
}

/** True for a MAX31850 scratchpad, false for a DS1825 (configuration bit 7). */
export function isMax31850Scratchpad(bytes: ArrayLike<number>): boolean {
  return (bytes[4]! & 0x80) !== 0;
}

/** Hot-junction degC from bytes 0-1 (fault and reserved bits dropped). */
export function thermocoupleDegC(bytes: ArrayLike<number>): number {
  const word = ((bytes[1]! << 8) | bytes[0]!) & 0xffff;
  return signed(word >> 2, 14) / 4;
}

/** Cold-junction degC from bytes 2-3 (fault bits dropped). */
export function coldJunctionDegC(bytes: ArrayLike<number>): number {
  const word = ((bytes[3]! << 8) | bytes[2]!) & 0xffff;
  return signed(word >> 4, 12) / 16;
}

/** The named fault, or null. The summary bit 0 of byte 0 without a detail bit is still a fault. */
export function thermocoupleFault(bytes: ArrayLike<number>): ThermocoupleFault | null {
  for (const [bit, name] of FAULT_BITS) if (bytes[2]! & bit) return name;
  return bytes[0]! & 0x01 ? 'fault bit without detail' : null;
}

/**
 * Decodes a family-0x3B scratchpad after checking it (length, all-0xFF, all-zero, CRC-8).
 * Throws a OneWireError (CRC / NO_PRESENCE / INVALID_DATA); a thermocouple fault is not an
 * error here: it comes back as `fault` with `temperature` null.
 */
export function decodeFamily3b(bytes: ArrayLike<number>, who = 'MAX31850'): Max31850Reading {
  checkScratchpad(bytes, who);
  const addressPins = bytes[4]! & 0x0f;
  if (!isMax31850Scratchpad(bytes)) {
    checkPowerOnSignature(bytes, who);
    const t = decodeTemperature(bytes);
    if (t < -55 || t > 125) throw new OneWireError('INVALID_DATA', `${who}: ${t} degC is outside -55..125`);
    return { temperature: t, coldJunction: null, fault: null, addressPins, chip: 'DS1825' };
  }
  const fault = thermocoupleFault(bytes);
  return {
    temperature: fault ? null : thermocoupleDegC(bytes),
    coldJunction: coldJunctionDegC(bytes),
    fault,
    addressPins,
    chip: 'MAX31850',
  };
}

/** The 8 data bytes a MAX31850 holds for these values (used by the emulator and tests). */
export function encodeMax31850(t: number, coldJunction: number, faultBits: number, addressPins: number): number[] {
  const tc = Math.round(Math.max(-2048, Math.min(2047.75, t)) * 4) & 0x3fff;
  const cj = Math.round(Math.max(-128, Math.min(127.9375, coldJunction)) * 16) & 0x0fff;
  const tcWord = (tc << 2) | (faultBits & 0x07 ? 1 : 0);
  const cjWord = (cj << 4) | (faultBits & 0x07);
  return [tcWord & 0xff, tcWord >> 8, cjWord & 0xff, cjWord >> 8, 0xf0 | (addressPins & 0x0f), 0xff, 0xff, 0xff];
}
