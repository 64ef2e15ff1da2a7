// DS2408 (family 0x29) 8-channel switch over a OneWireMaster. Chip latch bit 0 = transistor on.
import { checkInvertedCrc16 } from './crc.js';
import { romToBytes } from './address.js';
import { hex, readBytes, selectDevice } from './rom-commands.js';
import { OneWireError, type OneWireMaster, type RomAddress } from './types.js';

export const DS2408_CMD = {
  READ_PIO_REGISTERS: 0xf0,
  CHANNEL_ACCESS_READ: 0xf5,
  CHANNEL_ACCESS_WRITE: 0x5a,
  WRITE_CONDITIONAL_SEARCH: 0xcc,
  RESET_ACTIVITY_LATCHES: 0xc3,
  /** The Disable Test Mode sequence: this ROM-level byte, the ROM, then DISABLE_TEST_MODE. */
  TEST_MODE_ROM: 0x96,
  DISABLE_TEST_MODE: 0x3c,
} as const;

export const DS2408_REG = {
  PIO_LOGIC_STATE: 0x88,
  OUTPUT_LATCH: 0x89,
  ACTIVITY_LATCH: 0x8a,
  COND_SEARCH_MASK: 0x8b,
  COND_SEARCH_POLARITY: 0x8c,
  CONTROL_STATUS: 0x8d,
} as const;

export const DS2408_ACK = 0xaa;
/** Control/status bit 3: the chip powered up since it was last cleared. */
export const DS2408_PORL = 0x08;

/** Raw registers 0x88..0x8D in chip polarity. */
export interface Ds2408Registers {
  pinState: number;
  outputLatch: number;
  activityLatch: number;
  condSearchMask: number;
  condSearchPolarity: number;
  controlStatus: number;
}

/** Read PIO Registers from 0x0088: 8 register bytes and the inverted CRC16 over command, address and data. */
export async function readDs2408Registers(master: OneWireMaster, address: RomAddress): Promise<Ds2408Registers> {
  await selectDevice(master, address);
  const header = [DS2408_CMD.READ_PIO_REGISTERS, DS2408_REG.PIO_LOGIC_STATE, 0x00];
  for (const b of header) await master.writeByte(b);
  const data = await readBytes(master, 10);
  if (data.every((b) => b === 0xff))
    throw new OneWireError('NO_PRESENCE', `${address}: no answer to Read PIO Registers`);
  if (!checkInvertedCrc16([...header, ...data.slice(0, 8)], data[8]!, data[9]!)) {
    throw new OneWireError('CRC', `${address}: DS2408 register CRC16 mismatch (${hex(data)})`);
  }
  return {
    pinState: data[0]!,
    outputLatch: data[1]!,
    activityLatch: data[2]!,
    condSearchMask: data[3]!,
    condSearchPolarity: data[4]!,
    controlStatus: data[5]!,
  };
}

/**
 * Whether a control/status register byte (0x8D) can be a chip's: bits 4-6 always read 0 (bit 7
 * VCCP, bit 3 PORL, bits 0-2 PLS, CT, ROS). 0xFF is the idle bus: no chip drove it.
 */
export function ds2408ControlStatusValid(byte: number): boolean {
  return (byte & 0x70) === 0;
}

/** Pins and latches in "active" polarity (1 = pin low / transistor on). */
export function ds2408Active(regs: Ds2408Registers): { pins: number; latches: number } {
  return { pins: ~regs.pinState & 0xff, latches: ~regs.outputLatch & 0xff };
}

/** Channel-Access Write of the raw latch byte; returns the pin state byte the chip sends after its 0xAA. */
export async function writeDs2408Output(
  master: OneWireMaster,
  address: RomAddress,
  chipLatch: number,
): Promise<number> {
  const b = chipLatch & 0xff;
  await selectDevice(master, address);
  await master.writeByte(DS2408_CMD.CHANNEL_ACCESS_WRITE);
  await master.writeByte(b);
  await master.writeByte(~b & 0xff);
  const ack = await master.readByte();
  const pins = await master.readByte();
  if (ack !== DS2408_ACK) {
    if (ack === 0xff && pins === 0xff)
      throw new OneWireError('NO_PRESENCE', `${address}: no answer to Channel-Access Write`);
    throw new OneWireError('IO', `${address}: Channel-Access Write answered ${hex([ack])}, expected aa`);
  }
  return pins;
}

/** Writes latches given in "active" polarity (bit set = transistor on). */
export function writeDs2408Latches(master: OneWireMaster, address: RomAddress, activeLatches: number): Promise<number> {
  return writeDs2408Output(master, address, ~activeLatches & 0xff);
}

/**
 * Datasheet, power-up timing: a fast power-on slew can leave P0 in a test mode in which it
 * ignores Channel-Access Write; the Disable Test Mode sequence ends it (reset, 96h, the ROM,
 * 3Ch, reset). Then PORL is cleared (Write Conditional Search Register at 0x8D, keeping PLS, CT
 * and ROS), so that the next power-on shows.
 */
export async function afterDs2408PowerOn(
  master: OneWireMaster,
  address: RomAddress,
  controlStatus: number,
): Promise<void> {
  if (!(await master.reset())) throw new OneWireError('NO_PRESENCE', `${address}: no presence for Disable Test Mode`);
  await master.writeByte(DS2408_CMD.TEST_MODE_ROM);
  for (const b of romToBytes(address)) await master.writeByte(b);
  await master.writeByte(DS2408_CMD.DISABLE_TEST_MODE);
  await selectDevice(master, address);
  for (const b of [DS2408_CMD.WRITE_CONDITIONAL_SEARCH, DS2408_REG.CONTROL_STATUS, 0x00, controlStatus & 0x07])
    await master.writeByte(b);
}
