// RomAddress <-> bytes <-> Linux kernel slave names.
import { crc8 } from './crc.js';
import { OneWireError, type RomAddress } from './types.js';

const ROM_RE = /^[0-9a-f]{16}$/;
const KERNEL_NAME_RE = /^([0-9a-f]{2})-([0-9a-f]{12})$/;

/** Syntax check only (16 lowercase hex digits). */
export function isRomAddressSyntax(address: string): boolean {
  return ROM_RE.test(address);
}

/** Syntax, CRC8 over bytes 0..6 == byte 7, and a family that is not 0x00 or 0xFF. */
export function isValidRom(address: string): boolean {
  if (!ROM_RE.test(address)) return false;
  const bytes = romToBytes(address);
  return isValidRomBytes(bytes);
}

export function isValidRomBytes(bytes: ArrayLike<number>): boolean {
  if (bytes.length !== 8) return false;
  const family = bytes[0]!;
  if (family === 0x00 || family === 0xff) return false;
  return crc8(Array.from(bytes).slice(0, 7)) === bytes[7];
}

export function romToBytes(address: RomAddress): Uint8Array {
  if (!ROM_RE.test(address)) {
    throw new OneWireError('INVALID_DATA', `not a ROM address (16 lowercase hex digits): ${JSON.stringify(address)}`);
  }
  const out = new Uint8Array(8);
  for (let i = 0; i < 8; i++) out[i] = parseInt(address.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function bytesToRom(bytes: ArrayLike<number>): RomAddress {
  if (bytes.length !== 8) throw new OneWireError('INVALID_DATA', `a ROM has 8 bytes, got ${bytes.length}`);
  let s = '';
  for (let i = 0; i < 8; i++) s += (bytes[i]! & 0xff).toString(16).padStart(2, '0');
  return s;
}

export function romFamily(address: RomAddress): number {
  return parseInt(address.slice(0, 2), 16);
}

/** Builds a CRC-valid ROM from a family code and a 48-bit serial number (as the kernel prints it). */
export function makeRom(family: number, serial: bigint | number): RomAddress {
  let s = BigInt(serial);
  if (s < 0n || s >= 1n << 48n) throw new OneWireError('INVALID_DATA', `serial out of 48-bit range: ${serial}`);
  const bytes = [family & 0xff];
  for (let i = 0; i < 6; i++) {
    bytes.push(Number(s & 0xffn));
    s >>= 8n;
  }
  bytes.push(crc8(bytes));
  return bytesToRom(bytes);
}

/**
 * Kernel slave name `ff-ssssssssssss`: family, dash, the 48-bit serial printed big-endian,
 * i.e. ROM bytes 6..1. The CRC byte is not part of the name.
 */
export function romToKernelName(address: RomAddress): string {
  const b = romToBytes(address);
  let serial = '';
  for (let i = 6; i >= 1; i--) serial += b[i]!.toString(16).padStart(2, '0');
  return `${b[0]!.toString(16).padStart(2, '0')}-${serial}`;
}

/** Inverse of romToKernelName; computes the CRC byte like the kernel does for `w1_master_add`. */
export function kernelNameToRom(name: string): RomAddress {
  const m = KERNEL_NAME_RE.exec(name.trim().toLowerCase());
  if (!m) throw new OneWireError('INVALID_DATA', `not a w1 slave name (ff-ssssssssssss): ${JSON.stringify(name)}`);
  return makeRom(parseInt(m[1]!, 16), BigInt('0x' + m[2]!));
}

export function isKernelSlaveName(name: string): boolean {
  return KERNEL_NAME_RE.test(name);
}
