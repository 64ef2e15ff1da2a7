// I2C drivers against their datasheets' worked examples and register tables: Bosch BMP280
// (section 3.12, the compensation example the BME280 shares), Sensirion SHT3x/SHT4x (the CRC-8
// example and the conversion formulas), Microchip MCP9600 (Equation 5-1, register 5-5 types),
// TI ADS1115 (config register, Table "output codes"), NXP PCA9685 (section 7.3.3 examples, 7.3.5
// prescale, register reset values) and TI TMP117 (the result format, the reset values). Each
// vector goes through the driver's functions and, where it can, through the emulator as well.
import t from 'tap';
import { adsConfig, ADS_CONFIG_DEFAULT, adsVolts, looksLikeAds1x15 } from '../../../drivers/i2c/ads1115.js';
import {
  BME280_REG,
  compensatePressure,
  compensateTemperature,
  parseCalibration,
} from '../../../drivers/i2c/bme280.js';
import { mcp9600Celsius, Mcp9600, THERMOCOUPLE_TYPES } from '../../../drivers/i2c/mcp9600.js';
import { dutyOf, dutyRegisters, frequencyOf, isPca9685, PCA_REG, prescaleFor } from '../../../drivers/i2c/pca9685.js';
import { sensirionCrc8, sensirionWords } from '../../../drivers/i2c/sensor-common.js';
import { sht3xHumidity, sht3xTemperature } from '../../../drivers/i2c/sht3x.js';
import { sht4xHumidity, sht4xTemperature } from '../../../drivers/i2c/sht4x.js';
import { isTmp117, tmp117Celsius, TMP117_REG } from '../../../drivers/i2c/tmp117.js';
import { Ads1115Sim } from '../../../drivers/sim/ads1115-sim.js';
import { Bme280Sim } from '../../../drivers/sim/bme280-sim.js';
import { SimI2cBus } from '../../../drivers/sim/ds2482-sim.js';
import { Mcp9600Sim } from '../../../drivers/sim/mcp9600-sim.js';
import { SimPca9685 } from '../../../drivers/sim/pca9685-sim.js';
import { Sht3xSim } from '../../../drivers/sim/sht3x-sim.js';
import { Tmp117Sim } from '../../../drivers/sim/tmp117-sim.js';

// BMP280 datasheet (BST-BMP280-DS001), section 3.12 "Calculating pressure and temperature",
// the example's trimming values, ADC readings and results.
const BMP280_EXAMPLE = {
  calibration: {
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
  },
  adcT: 519888,
  adcP: 415148,
  tFine: 128422.287,
  celsius: 25.08247793,
  pascal: 100653.27,
};

/** The calibration registers 0x88..0x9F as the datasheet's memory map stores them (little-endian words). */
function calibrationRegisters(c: typeof BMP280_EXAMPLE.calibration): Uint8Array {
  const words = [c.T1, c.T2, c.T3, c.P1, c.P2, c.P3, c.P4, c.P5, c.P6, c.P7, c.P8, c.P9];
  return Uint8Array.from([...words.flatMap((w) => [w & 0xff, (w >> 8) & 0xff]), 0, 0]);
}

t.test(
  'BMP280 datasheet 3.12 example: dig_T1 27504 ... adc_T 519888 -> 25.08 degC, adc_P 415148 -> 100653.27 Pa',
  async (t) => {
    const c = parseCalibration(calibrationRegisters(BMP280_EXAMPLE.calibration), null);
    t.match(
      c,
      BMP280_EXAMPLE.calibration,
      'the register image parses back to the trimming values (signed where the map says)',
    );
    const temp = compensateTemperature(BMP280_EXAMPLE.adcT, c);
    t.ok(Math.abs(temp.tFine - BMP280_EXAMPLE.tFine) < 0.001, `t_fine ${temp.tFine}`);
    t.ok(Math.abs(temp.celsius - BMP280_EXAMPLE.celsius) < 1e-8, `T ${temp.celsius}`);
    const p = compensatePressure(BMP280_EXAMPLE.adcP, temp.tFine, c);
    t.ok(Math.abs(p - BMP280_EXAMPLE.pascal) < 0.005, `p ${p} Pa`);
  },
);

t.test(
  'BMP280 datasheet 3.12 example, backwards: the emulator with those trimming values and results produces those ADC readings',
  async (t) => {
    const now = { t: 0 };
    const sim = new Bme280Sim(0x77, 'BMP280', () => now.t, {
      ...BMP280_EXAMPLE.calibration,
      H1: 0,
      H2: 0,
      H3: 0,
      H4: 0,
      H5: 0,
      H6: 0,
    });
    const bus = new SimI2cBus();
    bus.attach(0x77, sim);
    sim.temperature = BMP280_EXAMPLE.celsius;
    sim.pressure = BMP280_EXAMPLE.pascal / 100;
    await bus.i2cWrite(0x77, Uint8Array.of(BME280_REG.CTRL_MEAS, 0x25)); // osrs_t x1, osrs_p x1, forced
    now.t += 10;
    await bus.i2cWrite(0x77, Uint8Array.of(BME280_REG.DATA));
    const d = await bus.i2cRead(0x77, 6);
    t.equal((d[3]! << 12) | (d[4]! << 4) | (d[5]! >> 4), BMP280_EXAMPLE.adcT, 'adc_T');
    t.equal((d[0]! << 12) | (d[1]! << 4) | (d[2]! >> 4), BMP280_EXAMPLE.adcP, 'adc_P');
  },
);

t.test('Sensirion SHT3x datasheet 4.12 (and SHT4x): CRC-8 of 0xBEEF is 0x92', async (t) => {
  t.equal(sensirionCrc8(0xbe, 0xef), 0x92);
  t.same(sensirionWords(Uint8Array.of(0xbe, 0xef, 0x92), 'example'), [0xbeef], 'a reply word with that CRC is taken');
  t.throws(() => sensirionWords(Uint8Array.of(0xbe, 0xef, 0x93), 'example'), /CRC/, 'one bit off is refused');
});

t.test('Sensirion SHT3x datasheet 4.13: T = -45 + 175 * S_T / (2^16 - 1), RH = 100 * S_RH / (2^16 - 1)', async (t) => {
  t.equal(sht3xTemperature(0), -45);
  t.equal(sht3xTemperature(0xffff), 130);
  t.equal(sht3xHumidity(0), 0);
  t.equal(sht3xHumidity(0xffff), 100);
  t.ok(Math.abs(sht3xTemperature(0x6666) - (-45 + (175 * 26214) / 65535)) < 1e-12);
  // The emulator encodes with the same formula: 25 degC, 50 %RH come back through the CRC'd reply.
  const now = { t: 0 };
  const sim = new Sht3xSim(0x44, () => now.t);
  const bus = new SimI2cBus();
  bus.attach(0x44, sim);
  sim.temperature = 25;
  sim.humidity = 50;
  await bus.i2cWrite(0x44, Uint8Array.of(0x24, 0x00)); // single shot, high repeatability, no clock stretching
  now.t += 16;
  const [st, srh] = sensirionWords(await bus.i2cRead(0x44, 6), 'SHT3x');
  t.equal(st, Math.round((70 * 65535) / 175), 'S_T for 25 degC');
  t.equal(srh, Math.round(0.5 * 65535), 'S_RH for 50 %RH');
  t.ok(Math.abs(sht3xTemperature(st!) - 25) < 0.003);
});

t.test(
  'Sensirion SHT4x datasheet 4.6: T = -45 + 175 * S_T / 65535, RH = -6 + 125 * S_RH / 65535 (cropped to 0..100)',
  async (t) => {
    t.equal(sht4xTemperature(0), -45);
    t.equal(sht4xTemperature(65535), 130);
    t.equal(sht4xHumidity(0), 0, '-6 %RH is cropped to 0');
    t.equal(sht4xHumidity(65535), 100, '119 %RH is cropped to 100');
    t.ok(Math.abs(sht4xHumidity(Math.round((56 * 65535) / 125)) - 50) < 0.001, 'S_RH of 56/125 full scale is 50 %RH');
  },
);

t.test(
  "MCP9600 datasheet Equation 5-1 and register 5-1: T = UpperByte * 16 + LowerByte / 16, two's complement",
  async (t) => {
    t.equal(mcp9600Celsius(0x01, 0x90), 25, '0190h');
    t.equal(mcp9600Celsius(0x00, 0x01), 0.0625, 'one LSB is 0.0625 degC');
    t.equal(mcp9600Celsius(0xff, 0xf0), -1, 'FFF0h');
    t.equal(mcp9600Celsius(0xfc, 0x90), -55, 'FC90h');
    t.equal(mcp9600Celsius(0x4e, 0x20), 1250, '4E20h');
    // Register 5-5 (sensor configuration), bits 6-4: 000 K, 001 J, 010 T, 011 N, 100 S, 101 E, 110 B, 111 R.
    t.same([...THERMOCOUPLE_TYPES], ['K', 'J', 'T', 'N', 'S', 'E', 'B', 'R']);
    t.equal(new Mcp9600(new SimI2cBus(), 0x60, 'J').sensorConfig, 0x10, 'type J is 001 in bits 6-4');
    // The emulator's hot-junction register for 25 degC is the datasheet's 0190h.
    const sim = new Mcp9600Sim(0x60);
    const bus = new SimI2cBus();
    bus.attach(0x60, sim);
    sim.temperature = 25;
    await bus.i2cWrite(0x60, Uint8Array.of(0x00));
    t.same([...(await bus.i2cRead(0x60, 2))], [0x01, 0x90], 'emulator: hot junction 0190h');
    await bus.i2cWrite(0x60, Uint8Array.of(0x20));
    t.equal((await bus.i2cRead(0x60, 2))[0], 0x40, 'emulator: device ID 40h (MCP9600)');
  },
);

t.test(
  'ADS1115 datasheet config register (reset 8583h; OS, MUX, PGA, MODE, DR, COMP_QUE) and output codes',
  async (t) => {
    t.ok(looksLikeAds1x15(0x8583), 'the reset value is recognised');
    t.equal(ADS_CONFIG_DEFAULT, 0x8583);
    // Single-shot AIN0 vs GND (MUX 100), FSR +-4.096 V (PGA 001), single-shot (MODE 1), 128 SPS
    // (DR 100), comparator off (COMP_QUE 11): 1 100 001 1 100 0 0 0 11 = C383h.
    t.equal(adsConfig(0, 1), 0xc383);
    t.equal(adsConfig(3, 2), 0xf583, 'AIN3 vs GND (MUX 111), FSR +-2.048 V (PGA 010)');
    // Output codes: +FS (2^15 - 1) / 2^15 = 7FFFh, one LSB = FS / 2^15, -FS = 8000h.
    t.equal(adsVolts('ADS1115', 0x7f, 0xff, 2), (2.048 * 32767) / 32768, '7FFFh at +-2.048 V');
    t.equal(adsVolts('ADS1115', 0x00, 0x01, 2), 2.048 / 32768, '0001h is one LSB (62.5 uV)');
    t.equal(adsVolts('ADS1115', 0xff, 0xff, 2), -2.048 / 32768, 'FFFFh is minus one LSB');
    t.equal(adsVolts('ADS1115', 0x80, 0x00, 2), -2.048, '8000h is -FS');
    t.equal(adsVolts('ADS1015', 0x7f, 0xf0, 2), (2.048 * 2047) / 2048, 'ADS1015: 12 bits, left-justified (7FF0h)');
    // The emulator: 1.024 V on AIN0 at +-4.096 V is a quarter of full scale, 2000h.
    const sim = new Ads1115Sim(0x48, 'ADS1115');
    const bus = new SimI2cBus();
    bus.attach(0x48, sim);
    await bus.i2cWrite(0x48, Uint8Array.of(0x01));
    t.same([...(await bus.i2cRead(0x48, 2))], [0x85, 0x83], 'emulator: config reads 8583h after reset');
    sim.inputs[0] = 1.024;
    await bus.i2cWrite(0x48, Uint8Array.of(0x01, 0xc3, 0x83));
    await new Promise((r) => setTimeout(r, 12));
    await bus.i2cWrite(0x48, Uint8Array.of(0x00));
    t.same([...(await bus.i2cRead(0x48, 2))], [0x20, 0x00], 'emulator: 1.024 V at +-4.096 V is 2000h');
  },
);

t.test(
  'PCA9685 datasheet 7.3.5: prescale = round(25 MHz / (4096 * rate)) - 1, 200 Hz -> 1Eh (the reset value)',
  async (t) => {
    t.equal(prescaleFor(200), 0x1e);
    t.equal(prescaleFor(1526), 0x03, 'the highest rate: the minimum prescale 03h');
    t.ok(Math.abs(frequencyOf(0xff) - 23.84) < 0.01, 'FFh, the largest prescale: the lowest rate, 24 Hz');
    t.ok(Math.abs(frequencyOf(0x1e) - 196.9) < 0.1, 'the reset prescale: 200 Hz nominal (25 MHz / (4096 * 31))');
    const sim = new SimPca9685(0x40);
    t.equal(sim.regs[PCA_REG.PRE_SCALE], 0x1e, 'emulator: PRE_SCALE resets to 1Eh');
  },
);

t.test(
  'PCA9685 datasheet 7.3.3 examples: 10 % delay 20 % duty (ON 199h, OFF 4CCh); 90 % delay 90 % duty (ON E65h, OFF CCBh)',
  async (t) => {
    t.ok(Math.abs(dutyOf([0x99, 0x01, 0xcc, 0x04]) - 20) < 0.01, 'example 1: 20 %');
    t.ok(Math.abs(dutyOf([0x65, 0x0e, 0xcb, 0x0c]) - 90) < 0.01, 'example 2: 90 %, OFF before ON (wraps)');
    // Full on / full off: bit 4 of LEDn_ON_H / LEDn_OFF_H (7.3.3, "LED full ON and full OFF").
    t.same(dutyRegisters(100), [0, 0x10, 0, 0], '100 %: LEDn_ON_H bit 4');
    t.same(dutyRegisters(0), [0, 0, 0, 0x10], '0 %: LEDn_OFF_H bit 4');
    t.equal(dutyOf([0, 0x10, 0, 0x10]), 0, 'both set: full OFF wins');
    const [onL, onH, offL, offH] = dutyRegisters(20);
    t.equal((offL | (offH << 8)) - (onL | (onH << 8)), 819, '20 % is 819 counts, as in example 1');
  },
);

t.test(
  'PCA9685 datasheet register table: MODE1 11h, MODE2 04h, SUBADR1-3 E2h E4h E8h, ALLCALLADR E0h, LEDn_OFF_H 10h',
  async (t) => {
    const sim = new SimPca9685(0x41);
    t.equal(sim.regs[PCA_REG.MODE1], 0x11);
    t.equal(sim.regs[PCA_REG.MODE2], 0x04);
    t.same([...sim.regs.subarray(PCA_REG.SUBADR1, PCA_REG.ALLCALLADR + 1)], [0xe2, 0xe4, 0xe8, 0xe0]);
    for (let ch = 0; ch < 16; ch++) t.equal(sim.regs[PCA_REG.LED0_ON_L + 4 * ch + 3], 0x10, `LED${ch} full off`);
    const bus = new SimI2cBus();
    bus.attach(0x41, sim);
    t.equal(await isPca9685(bus, 0x41), true, 'the driver recognises a chip by those reset values');
  },
);

// TI TMP117 datasheet: the Temperature Result register (16-bit two's complement, 1 LSB =
// 7.8125 m°C, reset value 8000h) and the register map (configuration reset 0220h, device ID 0117h).
const TMP117_FORMAT: Array<[number, number]> = [
  [150, 0x4b00],
  [100, 0x3200],
  [25, 0x0c80],
  [0.0078125, 0x0001],
  [0, 0x0000],
  [-0.0078125, 0xffff],
  [-25, 0xf380],
  [-55, 0xe480],
];

t.test(
  'TMP117 datasheet: 7.8125 m°C per LSB (25 °C = 0C80h, -25 °C = F380h, 150 °C = 4B00h); reset result 8000h, configuration 0220h, device ID 0117h',
  async (t) => {
    for (const [celsius, raw] of TMP117_FORMAT)
      t.equal(
        tmp117Celsius(raw >> 8, raw & 0xff),
        celsius,
        `driver: ${raw.toString(16).padStart(4, '0')}h is ${celsius} °C`,
      );
    t.equal(tmp117Celsius(0x80, 0x00), -256, '8000h, the value before the first conversion, is -256 °C');
    const now = { t: 0 };
    const sim = new Tmp117Sim(0x48, () => now.t);
    const bus = new SimI2cBus();
    bus.attach(0x48, sim);
    const word = async (register: number) => {
      await bus.i2cWrite(0x48, Uint8Array.of(register));
      const [hi, lo] = await bus.i2cRead(0x48, 2);
      return (hi! << 8) | lo!;
    };
    t.equal(await word(TMP117_REG.TEMP_RESULT), 0x8000, 'emulator: 8000h before the first conversion');
    t.equal(await word(TMP117_REG.CONFIGURATION), 0x0220, 'emulator: configuration resets to 0220h');
    t.equal(await word(TMP117_REG.DEVICE_ID), 0x0117, 'emulator: device ID 0117h');
    t.equal(await isTmp117(bus, 0x48), true, 'the driver recognises it by that ID');
    for (const [celsius, raw] of TMP117_FORMAT) {
      sim.temperature = celsius;
      now.t += 1000;
      t.equal(
        await word(TMP117_REG.TEMP_RESULT),
        raw,
        `emulator: ${celsius} °C reads ${raw.toString(16).padStart(4, '0')}h`,
      );
    }
  },
);
