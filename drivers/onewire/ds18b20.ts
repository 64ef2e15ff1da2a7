// DS18B20 (family 0x28) protocol over a OneWireMaster.
//
// Power-on detection: at power-up the chip reloads TH/TL/config from EEPROM and its temperature
// register reads 85.000 degC (0x0550) with a valid CRC. `configureDs18b20` recalls the EEPROM,
// then writes a marker value to TH in RAM only (never to EEPROM), chosen to differ from the
// EEPROM TH. A scratchpad whose TH is not the marker proves the sensor reloaded since it was
// configured, so its temperature is not trusted; the caller re-configures and waits for the
// next conversion. The markers are 125/126 degC, so TH never raises an alarm by accident.
// Independent of the marker, the chip's own power-on signatures (0x0550 or 0x07FF with byte 6
// = 0x0C) are always rejected, and before a sensor has been configured once an exact 85.000 is
// rejected too (nothing proves it is a real conversion).
import { crc8 } from './crc.js';
import { hex, readBytes, selectDevice } from './rom-commands.js';
import { OneWireError, type OneWireMaster, type RomAddress } from './types.js';

export const DS18B20_CMD = {
  CONVERT_T: 0x44,
  WRITE_SCRATCHPAD: 0x4e,
  READ_SCRATCHPAD: 0xbe,
  COPY_SCRATCHPAD: 0x48,
  RECALL_E2: 0xb8,
  READ_POWER_SUPPLY: 0xb4,
} as const;

/** 12-bit conversion time. */
export const CONVERSION_MS = 750;
export const CONFIG_12_BIT = 0x7f;
export const TH_MARKERS = [0x7e, 0x7d] as const;
export const POWER_ON_RAW = 0x0550;
export const LOW_POWER_RAW = 0x07ff;

/** Thrown (code INVALID_DATA) when a scratchpad shows the sensor went through a power-on reset. */
export class PowerOnResetError extends OneWireError {
  constructor(message: string) {
    super('INVALID_DATA', message);
    this.name = 'PowerOnResetError';
  }
}

/** Skip ROM + Convert T: every DS18B20 on the bus starts converting at once. */
export async function convertAll(master: OneWireMaster): Promise<void> {
  await selectDevice(master, null);
  await master.writeByte(DS18B20_CMD.CONVERT_T);
}

export async function convertOne(master: OneWireMaster, address: RomAddress): Promise<void> {
  await selectDevice(master, address);
  await master.writeByte(DS18B20_CMD.CONVERT_T);
}

/** Raw 9 scratchpad bytes, unchecked. */
export async function readScratchpadRaw(master: OneWireMaster, address: RomAddress): Promise<Uint8Array> {
  await selectDevice(master, address);
  await master.writeByte(DS18B20_CMD.READ_SCRATCHPAD);
  return Uint8Array.from(await readBytes(master, 9));
}

/** Throws NO_PRESENCE for all 0xFF (nobody drove the bus), INVALID_DATA for all 0x00 (CRC 0 passes!), CRC on mismatch. */
export function checkScratchpad(bytes: ArrayLike<number>, who = 'DS18B20'): void {
  if (bytes.length !== 9)
    throw new OneWireError('INVALID_DATA', `${who}: scratchpad needs 9 bytes, got ${bytes.length}`);
  const arr = Array.from(bytes);
  if (arr.every((b) => b === 0xff)) throw new OneWireError('NO_PRESENCE', `${who}: no answer (scratchpad all 0xFF)`);
  if (arr.every((b) => b === 0x00))
    throw new OneWireError('INVALID_DATA', `${who}: all-zero scratchpad (data line held low?)`);
  const crc = crc8(arr.slice(0, 8));
  if (crc !== arr[8])
    throw new OneWireError('CRC', `${who}: scratchpad CRC ${hex([crc])} != ${hex([arr[8]!])} (${hex(arr)})`);
}

export async function readScratchpad(master: OneWireMaster, address: RomAddress): Promise<Uint8Array> {
  const bytes = await readScratchpadRaw(master, address);
  checkScratchpad(bytes, address);
  return bytes;
}

export function rawTemperature(bytes: ArrayLike<number>): number {
  const raw = ((bytes[1]! << 8) | bytes[0]!) & 0xffff;
  return raw;
}

/** degC from a scratchpad; the undefined low bits of 9..11-bit conversions are masked off. */
export function decodeTemperature(bytes: ArrayLike<number>): number {
  const resolutionBits = 9 + ((bytes[4]! >> 5) & 3);
  let raw = rawTemperature(bytes);
  raw &= ~((1 << (12 - resolutionBits)) - 1) & 0xffff;
  const signed = raw & 0x8000 ? raw - 0x10000 : raw;
  return signed / 16;
}

/**
 * Throws PowerOnResetError for the chip's own "no conversion happened" signatures: 0x0550
 * (85.000, power-on) or 0x07FF (insufficient power) with byte 6 = 0x0C. After a real conversion
 * a genuine chip has byte 6 = 0x10 - (byte 0 & 0x0F), so a real 85.000 has byte 6 = 0x10.
 */
export function checkPowerOnSignature(bytes: ArrayLike<number>, who = 'DS18B20'): void {
  const raw = rawTemperature(bytes);
  if ((raw === POWER_ON_RAW || raw === LOW_POWER_RAW) && bytes[6] === 0x0c) {
    throw new PowerOnResetError(
      `${who}: power-on/low-power value ${raw === POWER_ON_RAW ? '85.000' : '127.94'} degC, not a conversion`,
    );
  }
}

/**
 * Validates a CRC-checked scratchpad and returns degC. `marker` is the TH value written by
 * configureDs18b20, or null when the sensor has not been configured yet.
 */
export function temperatureFromScratchpad(bytes: ArrayLike<number>, marker: number | null, who = 'DS18B20'): number {
  checkPowerOnSignature(bytes, who);
  const raw = rawTemperature(bytes);
  if (marker !== null && bytes[2] !== marker) {
    throw new PowerOnResetError(`${who}: TH ${bytes[2]} is not the marker ${marker}: sensor was power cycled`);
  }
  if (marker === null && raw === POWER_ON_RAW) {
    throw new PowerOnResetError(`${who}: 85.000 degC before configuration cannot be told from the power-on value`);
  }
  const t = decodeTemperature(bytes);
  if (t < -55 || t > 125) throw new OneWireError('INVALID_DATA', `${who}: ${t} degC is outside -55..125`);
  return t;
}

/**
 * Recall EEPROM, then write TH = marker (RAM only), TL unchanged, 12-bit config, and verify by
 * read-back. Returns the marker to pass to temperatureFromScratchpad.
 */
export async function configureDs18b20(master: OneWireMaster, address: RomAddress, recallPolls = 50): Promise<number> {
  await selectDevice(master, address);
  await master.writeByte(DS18B20_CMD.RECALL_E2);
  let done = false;
  for (let i = 0; i < recallPolls && !done; i++) done = (await master.readBit()) === 1;
  if (!done) throw new OneWireError('TIMEOUT', `${address}: EEPROM recall did not finish`);
  const eeprom = await readScratchpad(master, address);
  const marker = eeprom[2] === TH_MARKERS[0] ? TH_MARKERS[1] : TH_MARKERS[0];
  await selectDevice(master, address);
  await master.writeByte(DS18B20_CMD.WRITE_SCRATCHPAD);
  await master.writeByte(marker);
  await master.writeByte(eeprom[3]!);
  await master.writeByte(CONFIG_12_BIT);
  const check = await readScratchpad(master, address);
  if (check[2] !== marker) {
    throw new OneWireError('INVALID_DATA', `${address}: TH read back ${check[2]} after writing ${marker}`);
  }
  return marker;
}
