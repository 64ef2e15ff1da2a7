// DS2413 (family 0x3A) dual switch over a OneWireMaster.
// Status byte: b0 PIOA pin, b1 PIOA latch, b2 PIOB pin, b3 PIOB latch, b7..b4 their complement.
import { hex, selectDevice } from './rom-commands.js';
import { OneWireError, type OneWireMaster, type RomAddress } from './types.js';

export const DS2413_CMD = {
  PIO_ACCESS_READ: 0xf5,
  PIO_ACCESS_WRITE: 0x5a,
} as const;

export const DS2413_ACK = 0xaa;

export function ds2413StatusValid(status: number): boolean {
  return ((status >> 4) & 0x0f) === (~status & 0x0f);
}

/** Pins and latches in "active" polarity (1 = pin low / transistor on), A = bit 0, B = bit 1. */
export function decodeDs2413(status: number): { pins: number; latches: number } {
  const pinA = status & 1;
  const latchA = (status >> 1) & 1;
  const pinB = (status >> 2) & 1;
  const latchB = (status >> 3) & 1;
  return { pins: (pinA ? 0 : 1) | (pinB ? 0 : 2), latches: (latchA ? 0 : 1) | (latchB ? 0 : 2) };
}

export async function readDs2413Status(master: OneWireMaster, address: RomAddress): Promise<number> {
  await selectDevice(master, address);
  await master.writeByte(DS2413_CMD.PIO_ACCESS_READ);
  const status = await master.readByte();
  if (status === 0xff) throw new OneWireError('NO_PRESENCE', `${address}: no answer to PIO Access Read`);
  if (!ds2413StatusValid(status))
    throw new OneWireError('CRC', `${address}: DS2413 status ${hex([status])} fails the complement check`);
  return status;
}

/** PIO Access Write with latches in "active" polarity; returns the status byte sent after 0xAA. */
export async function writeDs2413Latches(
  master: OneWireMaster,
  address: RomAddress,
  activeLatches: number,
): Promise<number> {
  const raw = 0xfc | (~activeLatches & 0x03);
  await selectDevice(master, address);
  await master.writeByte(DS2413_CMD.PIO_ACCESS_WRITE);
  await master.writeByte(raw);
  await master.writeByte(~raw & 0xff);
  const ack = await master.readByte();
  const status = await master.readByte();
  if (ack !== DS2413_ACK) {
    if (ack === 0xff && status === 0xff)
      throw new OneWireError('NO_PRESENCE', `${address}: no answer to PIO Access Write`);
    throw new OneWireError('IO', `${address}: PIO Access Write answered ${hex([ack])}, expected aa`);
  }
  if (!ds2413StatusValid(status))
    throw new OneWireError('CRC', `${address}: DS2413 status ${hex([status])} after write fails the complement check`);
  return status;
}
