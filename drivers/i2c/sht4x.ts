// Sensirion SHT4x (SHT40/41/45) temperature and humidity. Every reply word is CRC-8 checked.
// The heater is never switched on: it only runs on an explicit heater command, which this
// driver never sends. Identity: the serial number command (0x89) answers two CRC-valid words.
import {
  delay,
  hex2,
  I2cSensorError,
  sensirionWords,
  type DriverOptions,
  type I2cSensorDriver,
  type Measurement,
} from './sensor-common.js';
import type { I2cBus } from './types.js';

export const SHT4X_ADDRESSES = [0x44, 0x45, 0x46] as const;
export const SHT4X_CMD = { MEASURE_HIGH: 0xfd, SERIAL: 0x89, SOFT_RESET: 0x94 } as const;
/** High repeatability measurement: 8.3 ms max. */
export const SHT4X_MEASURE_MS = 9;
export const SHT4X_SERIAL_MS = 1;

export function sht4xTemperature(raw: number): number {
  return -45 + (175 * raw) / 65535;
}

export function sht4xHumidity(raw: number): number {
  return Math.min(100, Math.max(0, -6 + (125 * raw) / 65535));
}

/** The 32-bit serial number; throws when the reply is not CRC-valid (not an SHT4x). */
export async function readSht4xSerial(bus: I2cBus, address: number, sleep = delay): Promise<number> {
  await bus.i2cWrite(address, Uint8Array.of(SHT4X_CMD.SERIAL));
  await sleep(SHT4X_SERIAL_MS);
  const [hi, lo] = sensirionWords(await bus.i2cRead(address, 6), `SHT4x ${hex2(address)} serial`);
  return ((hi! << 16) | lo!) >>> 0;
}

export class Sht4x implements I2cSensorDriver {
  serial: number | null = null;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly bus: I2cBus,
    readonly address: number,
    options: DriverOptions = {},
  ) {
    this.sleep = options.sleep ?? delay;
  }

  async init(): Promise<void> {
    try {
      this.serial = await readSht4xSerial(this.bus, this.address, this.sleep);
    } catch (e) {
      if (e instanceof I2cSensorError)
        throw new I2cSensorError('IDENTITY', `${hex2(this.address)} is not an SHT4x: ${e.message}`);
      throw e;
    }
  }

  async measure(): Promise<Measurement> {
    await this.bus.i2cWrite(this.address, Uint8Array.of(SHT4X_CMD.MEASURE_HIGH));
    await this.sleep(SHT4X_MEASURE_MS);
    const [t, rh] = sensirionWords(await this.bus.i2cRead(this.address, 6), `SHT4x ${hex2(this.address)}`);
    return { temperature: sht4xTemperature(t!), humidity: sht4xHumidity(rh!) };
  }
}
