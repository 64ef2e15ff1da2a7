// ROM-layer helpers shared by the device protocols.
import { romToBytes } from './address.js';
import { OneWireError, type OneWireMaster, type RomAddress } from './types.js';

export const ROM = {
  READ: 0x33,
  MATCH: 0x55,
  SKIP: 0xcc,
  SEARCH: 0xf0,
  ALARM_SEARCH: 0xec,
  RESUME: 0xa5,
} as const;

/** Reset, require presence, then Match ROM (address) or Skip ROM (null). */
export async function selectDevice(master: OneWireMaster, address: RomAddress | null): Promise<void> {
  const present = await master.reset();
  if (!present) {
    throw new OneWireError('NO_PRESENCE', `${master.name}: no presence pulse${address ? ` selecting ${address}` : ''}`);
  }
  if (address === null) {
    await master.writeByte(ROM.SKIP);
    return;
  }
  const rom = romToBytes(address);
  await master.writeByte(ROM.MATCH);
  for (const b of rom) await master.writeByte(b);
}

export async function readBytes(master: OneWireMaster, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(await master.readByte());
  return out;
}

export async function writeBytes(master: OneWireMaster, bytes: ArrayLike<number>): Promise<void> {
  for (let i = 0; i < bytes.length; i++) await master.writeByte(bytes[i]!);
}

export function hex(bytes: ArrayLike<number>): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
}
