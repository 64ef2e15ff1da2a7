// TI TMP117: a ±0.1 °C (-20..50 °C) digital temperature sensor, 16-bit result at 7.8125 m°C per
// count, for a reference probe in a fermenter's thermowell or a calibration check of the
// others. Addresses 0x48 (ADD0 to GND), 0x49 (V+), 0x4A (SDA), 0x4B (SCL). Registers are 16 bits,
// MSB first: 0x00 temperature result, 0x01 configuration, 0x0F device ID (0x0117 in bits 11-0).
// The chip converts continuously from power-on (8 averages, a result every second); this
// driver only reads, and writes the configuration only when it is not converting continuously
// (EEPROM-programmed shutdown or one-shot), keeping its averaging and cycle bits. The EEPROM is
// never written. After a power-on reset the result reads 0x8000 (-256 °C) until the first
// conversion is done: that value is refused as POWER_ON, as a DS18B20's 85 °C is.
import {
  hex2,
  I2cSensorError,
  int16,
  readRegisters,
  writeRegister,
  type I2cSensorDriver,
  type Measurement,
} from './sensor-common.js';
import type { I2cBus } from './types.js';

export const TMP117_ADDRESSES = [0x48, 0x49, 0x4a, 0x4b] as const;
export const TMP117_REG = { TEMP_RESULT: 0x00, CONFIGURATION: 0x01, TEMP_OFFSET: 0x07, DEVICE_ID: 0x0f } as const;
/** Device ID register bits 11-0 (bits 15-12 are the revision). */
export const TMP117_DEVICE_ID = 0x117;
/** Configuration after power-on with the factory EEPROM: continuous, 1 s cycle, 8 averages. */
export const TMP117_CONFIG_DEFAULT = 0x0220;
/** MOD[1:0], bits 11-10: 00 and 10 continuous, 01 shutdown, 11 one-shot. */
export const TMP117_MODE_MASK = 0x0c00;
export const TMP117_MODE_SHUTDOWN = 0x0400;
/** CONV[2:0], AVG[1:0], T/nA, POL, DR/Alert: what a mode change keeps. */
const TMP117_KEEP_BITS = 0x03fc;
/** The result register before the first conversion after power-on. */
export const TMP117_NO_RESULT = 0x8000;
/** °C per count of the result (and offset) register. */
export const TMP117_RESOLUTION = 0.0078125;

export function tmp117Celsius(hi: number, lo: number): number {
  return int16(hi, lo) * TMP117_RESOLUTION;
}

async function word(bus: I2cBus, address: number, register: number): Promise<number> {
  const [hi, lo] = await readRegisters(bus, address, register, 2);
  return (hi! << 8) | lo!;
}

/** Read-only identity check: the device ID register. */
export async function isTmp117(bus: I2cBus, address: number): Promise<boolean> {
  return ((await word(bus, address, TMP117_REG.DEVICE_ID)) & 0x0fff) === TMP117_DEVICE_ID;
}

export class Tmp117 implements I2cSensorDriver {
  /** Results refused because the chip had not converted since a power-on reset. */
  powerOnReads = 0;

  constructor(
    private readonly bus: I2cBus,
    readonly address: number,
  ) {}

  async init(): Promise<void> {
    if (!(await isTmp117(this.bus, this.address)))
      throw new I2cSensorError('IDENTITY', `${hex2(this.address)}: device id is not a TMP117's`);
    const config = await word(this.bus, this.address, TMP117_REG.CONFIGURATION);
    const mode = config & TMP117_MODE_MASK;
    // Shutdown or one-shot (set in its EEPROM): continuous, keeping the cycle, averaging and
    // alert pin bits (9-2); the flags (15-12) are read-only, MOD 00 is continuous, no soft reset.
    if (mode === TMP117_MODE_SHUTDOWN || mode === TMP117_MODE_MASK) {
      const continuous = config & TMP117_KEEP_BITS;
      await writeRegister(this.bus, this.address, TMP117_REG.CONFIGURATION, continuous >> 8, continuous & 0xff);
    }
  }

  async measure(): Promise<Measurement> {
    const [hi, lo] = await readRegisters(this.bus, this.address, TMP117_REG.TEMP_RESULT, 2);
    if (((hi! << 8) | lo!) === TMP117_NO_RESULT) {
      this.powerOnReads++;
      throw new I2cSensorError('POWER_ON', `${hex2(this.address)}: no conversion since power-on (result 0x8000)`);
    }
    return { temperature: tmp117Celsius(hi!, lo!) };
  }
}
