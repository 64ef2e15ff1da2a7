// Bosch BME280 (temperature, humidity, pressure) and BMP280 (no humidity), forced mode with
// 1x oversampling. Values are compensated with the chip's own calibration registers (the
// datasheet's floating-point formulas). Identity: the chip id register 0xD0 (0x60 BME280,
// 0x58 BMP280). A data register still at its reset value (0x80000) means no measurement
// happened since a power-on reset, which is refused rather than compensated into nonsense.
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

export const BME280_ADDRESSES = [0x76, 0x77] as const;
export const BME280_REG = {
  CHIP_ID: 0xd0,
  RESET: 0xe0,
  CALIB_TP: 0x88,
  CALIB_H: 0xe1,
  CTRL_HUM: 0xf2,
  STATUS: 0xf3,
  CTRL_MEAS: 0xf4,
  DATA: 0xf7,
} as const;
export const BME280_CHIP_ID = 0x60;
export const BMP280_CHIP_IDS = [0x56, 0x57, 0x58] as const;
/** Data registers after reset: 0x80000 (20-bit temperature and pressure), 0x8000 humidity. */
export const BME280_SKIPPED = 0x80000;
/** osrs_t x1, osrs_p x1, forced mode. */
export const CTRL_MEAS_FORCED = (1 << 5) | (1 << 2) | 0b01;
/** 1x oversampling of all three: 9.3 ms max. */
export const BME280_MEASURE_MS = 10;

export interface Bme280Calibration {
  T1: number;
  T2: number;
  T3: number;
  P1: number;
  P2: number;
  P3: number;
  P4: number;
  P5: number;
  P6: number;
  P7: number;
  P8: number;
  P9: number;
  H1: number;
  H2: number;
  H3: number;
  H4: number;
  H5: number;
  H6: number;
}

const u16 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8);
const s16 = (b: Uint8Array, i: number) => int16(b[i + 1]!, b[i]!);
const s12 = (v: number) => (v & 0x800 ? v - 0x1000 : v);

/** `tp`: 26 bytes from 0x88 (0xA1 = H1 last); `h`: 7 bytes from 0xE1, or null for a BMP280. */
export function parseCalibration(tp: Uint8Array, h: Uint8Array | null): Bme280Calibration {
  const c: Bme280Calibration = {
    T1: u16(tp, 0),
    T2: s16(tp, 2),
    T3: s16(tp, 4),
    P1: u16(tp, 6),
    P2: s16(tp, 8),
    P3: s16(tp, 10),
    P4: s16(tp, 12),
    P5: s16(tp, 14),
    P6: s16(tp, 16),
    P7: s16(tp, 18),
    P8: s16(tp, 20),
    P9: s16(tp, 22),
    H1: 0,
    H2: 0,
    H3: 0,
    H4: 0,
    H5: 0,
    H6: 0,
  };
  if (h) {
    c.H1 = tp[25]!;
    c.H2 = s16(h, 0);
    c.H3 = h[2]!;
    c.H4 = s12((h[3]! << 4) | (h[4]! & 0x0f));
    c.H5 = s12((h[5]! << 4) | (h[4]! >> 4));
    c.H6 = h[6]! & 0x80 ? h[6]! - 0x100 : h[6]!;
  }
  return c;
}

/** degC and t_fine (which the other two compensations need). */
export function compensateTemperature(adcT: number, c: Bme280Calibration): { celsius: number; tFine: number } {
  const var1 = (adcT / 16384 - c.T1 / 1024) * c.T2;
  const d = adcT / 131072 - c.T1 / 8192;
  const var2 = d * d * c.T3;
  const tFine = var1 + var2;
  return { celsius: tFine / 5120, tFine };
}

/** Pascal. */
export function compensatePressure(adcP: number, tFine: number, c: Bme280Calibration): number {
  let var1 = tFine / 2 - 64000;
  let var2 = (var1 * var1 * c.P6) / 32768;
  var2 = var2 + var1 * c.P5 * 2;
  var2 = var2 / 4 + c.P4 * 65536;
  var1 = ((c.P3 * var1 * var1) / 524288 + c.P2 * var1) / 524288;
  var1 = (1 + var1 / 32768) * c.P1;
  if (var1 === 0) return 0;
  let p = 1048576 - adcP;
  p = ((p - var2 / 4096) * 6250) / var1;
  var1 = (c.P9 * p * p) / 2147483648;
  var2 = (p * c.P8) / 32768;
  return p + (var1 + var2 + c.P7) / 16;
}

/** %RH, clamped to 0..100. */
export function compensateHumidity(adcH: number, tFine: number, c: Bme280Calibration): number {
  let h = tFine - 76800;
  h =
    (adcH - (c.H4 * 64 + (c.H5 / 16384) * h)) *
    ((c.H2 / 65536) * (1 + (c.H6 / 67108864) * h * (1 + (c.H3 / 67108864) * h)));
  h = h * (1 - (c.H1 * h) / 524288);
  return Math.min(100, Math.max(0, h));
}

export class Bme280 implements I2cSensorDriver {
  calibration: Bme280Calibration | null = null;
  /** True for a BME280, false for a BMP280 (known after init). */
  humidity = false;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly bus: I2cBus,
    readonly address: number,
    /** 'BMP280' accepts only a BMP280; 'BME280' accepts either (a BMP280 then reads no humidity). */
    readonly chip: 'BME280' | 'BMP280' = 'BME280',
    options: DriverOptions = {},
  ) {
    this.sleep = options.sleep ?? delay;
  }

  async init(): Promise<void> {
    const [id] = await readRegisters(this.bus, this.address, BME280_REG.CHIP_ID, 1);
    const bmp = (BMP280_CHIP_IDS as readonly number[]).includes(id!);
    if (id !== BME280_CHIP_ID && !bmp)
      throw new I2cSensorError(
        'IDENTITY',
        `${hex2(this.address)}: chip id ${hex2(id!)} is not a BME280 (0x60) or BMP280 (0x58)`,
      );
    if (this.chip === 'BMP280' && !bmp)
      throw new I2cSensorError(
        'IDENTITY',
        `${hex2(this.address)}: chip id ${hex2(id!)} is a BME280, configured as BMP280`,
      );
    this.humidity = !bmp;
    const tp = await readRegisters(this.bus, this.address, BME280_REG.CALIB_TP, 26);
    const h = this.humidity ? await readRegisters(this.bus, this.address, BME280_REG.CALIB_H, 7) : null;
    const c = parseCalibration(tp, h);
    // An unreadable NVM (all zero or all ones) would compensate to garbage.
    if (c.T1 === 0 || c.P1 === 0 || c.T1 === 0xffff)
      throw new I2cSensorError('IDENTITY', `${hex2(this.address)}: calibration registers are blank`);
    this.calibration = c;
  }

  async measure(): Promise<Measurement> {
    const c = this.calibration;
    if (!c) throw new I2cSensorError('IDENTITY', `${hex2(this.address)}: not initialised`);
    // ctrl_hum only takes effect after a write to ctrl_meas, so it goes first.
    if (this.humidity) await writeRegister(this.bus, this.address, BME280_REG.CTRL_HUM, 0x01);
    await writeRegister(this.bus, this.address, BME280_REG.CTRL_MEAS, CTRL_MEAS_FORCED);
    await this.sleep(BME280_MEASURE_MS);
    for (let i = 0; ; i++) {
      const [status] = await readRegisters(this.bus, this.address, BME280_REG.STATUS, 1);
      if (!(status! & 0x08)) break;
      if (i >= 5)
        throw new I2cSensorError('TIMEOUT', `${hex2(this.address)}: still measuring after ${BME280_MEASURE_MS + i} ms`);
      await this.sleep(1);
    }
    const d = await readRegisters(this.bus, this.address, BME280_REG.DATA, this.humidity ? 8 : 6);
    const adcP = (d[0]! << 12) | (d[1]! << 4) | (d[2]! >> 4);
    const adcT = (d[3]! << 12) | (d[4]! << 4) | (d[5]! >> 4);
    if (adcT === BME280_SKIPPED || adcP === BME280_SKIPPED) {
      throw new I2cSensorError(
        'POWER_ON',
        `${hex2(this.address)}: data registers hold their reset value (chip reset, no measurement)`,
      );
    }
    const t = compensateTemperature(adcT, c);
    const out: Measurement = { temperature: t.celsius, pressure: compensatePressure(adcP, t.tFine, c) / 100 };
    if (this.humidity) {
      const adcH = (d[6]! << 8) | d[7]!;
      if (adcH === 0x8000)
        throw new I2cSensorError('POWER_ON', `${hex2(this.address)}: humidity register holds its reset value`);
      out.humidity = compensateHumidity(adcH, t.tFine, c);
    }
    return out;
  }
}
