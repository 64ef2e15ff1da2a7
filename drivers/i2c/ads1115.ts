// TI ADS1115 (16 bit) and ADS1015 (12 bit) ADC, single-shot, one input against GND at a time
// (MUX 100..111), programmable gain, comparator off. Identity: the config register's mode and
// comparator bits read as after reset (single-shot, comparator disabled: 0x8583 & 0x011F),
// which is also what this driver writes. After each conversion the config register is read
// back: a power-on reset in between shows as the reset MUX/PGA and the value is refused.
import {
  delay,
  hex2,
  I2cSensorError,
  int16,
  readRegisters,
  writeRegister,
  type DriverOptions,
  type I2cSensorDriver,
  type Measurement,
} from './sensor-common.js';
import type { I2cBus } from './types.js';

export const ADS1115_ADDRESSES = [0x48, 0x49, 0x4a, 0x4b] as const;
export const ADS_REG = { CONVERSION: 0, CONFIG: 1 } as const;
export const ADS_CONFIG_DEFAULT = 0x8583;
const IDENTITY_MASK = 0x011f;
const CONFIG_OS = 0x8000;

/** Full-scale range (volts) per PGA code 0..5. */
export const ADS_FULL_SCALE = [6.144, 4.096, 2.048, 1.024, 0.512, 0.256] as const;
export type AdsChip = 'ADS1115' | 'ADS1015';
/** Data rate code 4: 128 SPS (ADS1115) / 1600 SPS (ADS1015). */
const DATA_RATE = 4;
export const ADS_CONVERSION_MS: Record<AdsChip, number> = { ADS1115: 9, ADS1015: 1 };

export function looksLikeAds1x15(config: number): boolean {
  return (config & IDENTITY_MASK) === (ADS_CONFIG_DEFAULT & IDENTITY_MASK);
}

/** The config word that starts a single-shot conversion of `channel` (0..3) against GND. */
export function adsConfig(channel: number, pga: number): number {
  return CONFIG_OS | ((4 + channel) << 12) | (pga << 9) | 0x0100 | (DATA_RATE << 5) | 0x03;
}

/** Volts from the conversion register. */
export function adsVolts(chip: AdsChip, hi: number, lo: number, pga: number): number {
  const raw = int16(hi, lo);
  const fs = ADS_FULL_SCALE[pga]!;
  return chip === 'ADS1115' ? (raw * fs) / 32768 : ((raw >> 4) * fs) / 2048;
}

export async function readAdsConfig(bus: I2cBus, address: number): Promise<number> {
  const b = await readRegisters(bus, address, ADS_REG.CONFIG, 2);
  return (b[0]! << 8) | b[1]!;
}

export class Ads1x15 implements I2cSensorDriver {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly bus: I2cBus,
    readonly address: number,
    readonly chip: AdsChip = 'ADS1115',
    options: DriverOptions = {},
  ) {
    this.sleep = options.sleep ?? delay;
  }

  async init(): Promise<void> {
    const config = await readAdsConfig(this.bus, this.address);
    if (!looksLikeAds1x15(config))
      throw new I2cSensorError(
        'IDENTITY',
        `${hex2(this.address)}: config register 0x${config.toString(16)} is not an ADS1x15's`,
      );
  }

  /** One single-shot conversion of `channel` at gain code `pga`. */
  async convert(channel: number, pga: number): Promise<number> {
    if (!Number.isInteger(channel) || channel < 0 || channel > 3)
      throw new I2cSensorError('FAULT', `channel ${channel} is not 0..3`);
    if (!Number.isInteger(pga) || pga < 0 || pga > 5) throw new I2cSensorError('FAULT', `gain code ${pga} is not 0..5`);
    const config = adsConfig(channel, pga);
    await writeRegister(this.bus, this.address, ADS_REG.CONFIG, config >> 8, config & 0xff);
    await this.sleep(ADS_CONVERSION_MS[this.chip]);
    let back = 0;
    for (let i = 0; ; i++) {
      back = await readAdsConfig(this.bus, this.address);
      if (back & CONFIG_OS) break;
      if (i >= 5) throw new I2cSensorError('TIMEOUT', `${hex2(this.address)}: conversion not done`);
      await this.sleep(1);
    }
    if ((back & ~CONFIG_OS) !== (config & ~CONFIG_OS)) {
      throw new I2cSensorError(
        'POWER_ON',
        `${hex2(this.address)}: config reads 0x${back.toString(16)} after writing 0x${config.toString(16)} (chip reset)`,
      );
    }
    const d = await readRegisters(this.bus, this.address, ADS_REG.CONVERSION, 2);
    return adsVolts(this.chip, d[0]!, d[1]!, pga);
  }

  /** The block's input and gain (default input 0 at ±4.096 V). */
  async measure(options: { channel?: number; gain?: number } = {}): Promise<Measurement> {
    return { volts: await this.convert(options.channel ?? 0, options.gain ?? 1) };
  }
}
