// Sensirion SHT3x (SHT30/31/35) temperature and humidity, single shot without clock
// stretching. Every reply word is CRC-8 checked. Setup switches the heater off and clears the
// status register; the status register's reset bit (4) then shows a power-on or soft reset
// since, which is checked before every measurement (the chip is set up again: heater off).
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

export const SHT3X_ADDRESSES = [0x44, 0x45] as const;
export const SHT3X_CMD = {
  MEASURE_HIGH: [0x24, 0x00],
  READ_STATUS: [0xf3, 0x2d],
  CLEAR_STATUS: [0x30, 0x41],
  HEATER_OFF: [0x30, 0x66],
  SOFT_RESET: [0x30, 0xa2],
} as const;
export const SHT3X_STATUS = { HEATER: 1 << 13, RESET: 1 << 4 } as const;
/** High repeatability: 15.5 ms max. */
export const SHT3X_MEASURE_MS = 16;

export function sht3xTemperature(raw: number): number {
  return -45 + (175 * raw) / 65535;
}

export function sht3xHumidity(raw: number): number {
  return Math.min(100, Math.max(0, (100 * raw) / 65535));
}

export async function readSht3xStatus(bus: I2cBus, address: number): Promise<number> {
  await bus.i2cWrite(address, Uint8Array.from(SHT3X_CMD.READ_STATUS));
  return sensirionWords(await bus.i2cRead(address, 3), `SHT3x ${hex2(address)} status`)[0]!;
}

export class Sht3x implements I2cSensorDriver {
  /** Resets seen since init (power-on or soft reset), each followed by a new setup. */
  resets = 0;
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
      await readSht3xStatus(this.bus, this.address);
    } catch (e) {
      if (e instanceof I2cSensorError)
        throw new I2cSensorError('IDENTITY', `${hex2(this.address)} is not an SHT3x: ${e.message}`);
      throw e;
    }
    await this.bus.i2cWrite(this.address, Uint8Array.from(SHT3X_CMD.HEATER_OFF));
    await this.bus.i2cWrite(this.address, Uint8Array.from(SHT3X_CMD.CLEAR_STATUS));
    const status = await readSht3xStatus(this.bus, this.address);
    if (status & SHT3X_STATUS.HEATER)
      throw new I2cSensorError('FAULT', `SHT3x ${hex2(this.address)}: heater still on after heater-off`);
  }

  async measure(): Promise<Measurement> {
    const status = await readSht3xStatus(this.bus, this.address);
    if (status & (SHT3X_STATUS.RESET | SHT3X_STATUS.HEATER)) {
      this.resets++;
      await this.init();
    }
    await this.bus.i2cWrite(this.address, Uint8Array.from(SHT3X_CMD.MEASURE_HIGH));
    await this.sleep(SHT3X_MEASURE_MS);
    const [t, rh] = sensirionWords(await this.bus.i2cRead(this.address, 6), `SHT3x ${hex2(this.address)}`);
    return { temperature: sht3xTemperature(t!), humidity: sht3xHumidity(rh!) };
  }
}
