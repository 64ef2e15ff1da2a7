// Emulated BME280 / BMP280 register file: chip id, calibration NVM (the datasheet's example
// trimming values for temperature and pressure), ctrl_hum / ctrl_meas (forced mode), status
// (measuring bit for 9.3 ms), data registers at 0xF7. A measurement produces the ADC values
// that the chip's own calibration compensates back to the set temperature, pressure and
// humidity (found by bisection: the compensation is monotonic). A power-on reset clears the
// control registers and puts the data registers at their reset value (0x80000 / 0x8000).
import {
  BME280_CHIP_ID,
  BME280_REG,
  compensateHumidity,
  compensatePressure,
  compensateTemperature,
  parseCalibration,
} from '../i2c/bme280.js';
import { RegisterSensorSim } from './i2c-sensor-sim.js';

const MEASURE_MS = 9.3;

/** The BMP280 datasheet's worked example (section 3.12) for T and P; typical BME280 H values. */
export const EXAMPLE_CALIBRATION = {
  T1: 27504,
  T2: 26435,
  T3: -1000,
  P1: 36477,
  P2: -10685,
  P3: 3024,
  P4: 2855,
  P5: 140,
  P6: -7,
  P7: 15500,
  P8: -14600,
  P9: 6000,
  H1: 75,
  H2: 362,
  H3: 0,
  H4: 313,
  H5: 50,
  H6: 30,
};

function calibrationBytes(c: typeof EXAMPLE_CALIBRATION): { tp: number[]; h: number[] } {
  const le = (v: number) => [v & 0xff, (v >> 8) & 0xff];
  const tp = [c.T1, c.T2, c.T3, c.P1, c.P2, c.P3, c.P4, c.P5, c.P6, c.P7, c.P8, c.P9].flatMap(le);
  tp.push(0, c.H1); // 0xA0 reserved, 0xA1 H1
  const h = [
    ...le(c.H2),
    c.H3,
    (c.H4 >> 4) & 0xff,
    (c.H4 & 0x0f) | ((c.H5 & 0x0f) << 4),
    (c.H5 >> 4) & 0xff,
    c.H6 & 0xff,
  ];
  return { tp, h };
}

/** Smallest integer x in [lo, hi] with f(x) >= target for increasing f (or <= for decreasing). */
function invert(f: (x: number) => number, target: number, lo: number, hi: number, increasing: boolean): number {
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const v = f(mid);
    if (increasing ? v >= target : v <= target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export class Bme280Sim extends RegisterSensorSim {
  readonly chip: 'BME280' | 'BMP280';
  humidity = 50;
  /** hPa */
  pressure = 1013.25;
  private readonly regs = new Uint8Array(256);
  private readyAt = 0;
  private latched: number[] | null = null;

  constructor(
    address = 0x76,
    chip: 'BME280' | 'BMP280' = 'BME280',
    now?: () => number,
    calibration = EXAMPLE_CALIBRATION,
  ) {
    super(address, now);
    this.chip = chip;
    const { tp, h } = calibrationBytes(calibration);
    this.regs.set(tp, BME280_REG.CALIB_TP);
    if (chip === 'BME280') this.regs.set(h, BME280_REG.CALIB_H);
    this.regs[BME280_REG.CHIP_ID] = chip === 'BME280' ? BME280_CHIP_ID : 0x58;
    this.reset();
  }

  protected reset(): void {
    this.regs[BME280_REG.CTRL_HUM] = 0;
    this.regs[BME280_REG.CTRL_MEAS] = 0;
    this.regs.set([0x80, 0, 0, 0x80, 0, 0, 0x80, 0], BME280_REG.DATA);
    this.latched = null;
    this.readyAt = 0;
  }

  private measure(): number[] {
    const c = parseCalibration(
      this.regs.subarray(BME280_REG.CALIB_TP, BME280_REG.CALIB_TP + 26),
      this.regs.subarray(BME280_REG.CALIB_H, BME280_REG.CALIB_H + 7),
    );
    const meas = this.regs[BME280_REG.CTRL_MEAS]!;
    const adcT =
      meas >> 5 ? invert((x) => compensateTemperature(x, c).celsius, this.temperature, 0, 0xfffff, true) : 0x80000;
    const tFine = compensateTemperature(adcT, c).tFine;
    const adcP =
      (meas >> 2) & 7
        ? invert((x) => compensatePressure(x, tFine, c), this.pressure * 100, 0, 0xfffff, false)
        : 0x80000;
    const hum = this.chip === 'BME280' && (this.regs[BME280_REG.CTRL_HUM]! & 7) !== 0;
    const adcH = hum ? invert((x) => compensateHumidity(x, tFine, c), this.humidity, 0, 0xffff, true) : 0x8000;
    return [
      adcP >> 12,
      (adcP >> 4) & 0xff,
      (adcP & 0xf) << 4,
      adcT >> 12,
      (adcT >> 4) & 0xff,
      (adcT & 0xf) << 4,
      adcH >> 8,
      adcH & 0xff,
    ];
  }

  private settle(): void {
    if (this.latched && this.now() >= this.readyAt) {
      this.regs.set(this.latched, BME280_REG.DATA);
      this.latched = null;
      this.regs[BME280_REG.CTRL_MEAS] = this.regs[BME280_REG.CTRL_MEAS]! & ~3; // back to sleep
    }
  }

  protected readRegister(register: number): number {
    this.settle();
    if (register === BME280_REG.STATUS) return this.latched ? 0x08 : 0;
    return this.regs[register & 0xff]!;
  }

  protected writeRegister(register: number, value: number): void {
    this.settle();
    if (register === BME280_REG.RESET) {
      if (value === 0xb6) this.reset();
      return;
    }
    if (register !== BME280_REG.CTRL_HUM && register !== BME280_REG.CTRL_MEAS && register !== 0xf5) return; // read-only
    this.regs[register] = value;
    if (register === BME280_REG.CTRL_MEAS && (value & 3) !== 0 && !this.latched) {
      this.latched = this.measure();
      this.readyAt = this.now() + MEASURE_MS;
    }
  }
}
