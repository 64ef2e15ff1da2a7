// Microchip MCP9600/MCP9601 thermocouple EMF to temperature converter (cold junction
// compensated), normal (continuous) mode. Identity: device id register 0x20 (0x40 MCP9600,
// 0x41 MCP9601). The thermocouple type is re-written whenever the sensor configuration
// register reads back different (a power-on reset sets type K). Status bit 4 (input range)
// means the EMF is out of range: an open or shorted thermocouple; the value is refused.
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

export const MCP9600_ADDRESSES = [0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67] as const;
export const MCP9600_REG = {
  HOT: 0x00,
  DELTA: 0x01,
  COLD: 0x02,
  STATUS: 0x04,
  SENSOR_CONFIG: 0x05,
  DEVICE_CONFIG: 0x06,
  DEVICE_ID: 0x20,
} as const;
export const MCP9600_IDS = { 0x40: 'MCP9600', 0x41: 'MCP9601' } as Record<number, string>;
export const THERMOCOUPLE_TYPES = ['K', 'J', 'T', 'N', 'S', 'E', 'B', 'R'] as const;
export type ThermocoupleType = (typeof THERMOCOUPLE_TYPES)[number];
export const MCP9600_STATUS = { BURST_COMPLETE: 0x80, UPDATED: 0x40, INPUT_RANGE: 0x10 } as const;

export function mcp9600Celsius(hi: number, lo: number): number {
  return int16(hi, lo) / 16;
}

export async function readMcp9600Id(bus: I2cBus, address: number): Promise<string | null> {
  const [id] = await readRegisters(bus, address, MCP9600_REG.DEVICE_ID, 2);
  return MCP9600_IDS[id!] ?? null;
}

export class Mcp9600 implements I2cSensorDriver {
  /** Configurations found lost (power-on reset) and written again. */
  resets = 0;
  readonly sensorConfig: number;

  constructor(
    private readonly bus: I2cBus,
    readonly address: number,
    readonly type: ThermocoupleType = 'K',
  ) {
    this.sensorConfig = THERMOCOUPLE_TYPES.indexOf(type) << 4;
  }

  async init(): Promise<void> {
    const id = await readMcp9600Id(this.bus, this.address);
    if (!id) throw new I2cSensorError('IDENTITY', `${hex2(this.address)}: device id is not an MCP9600/MCP9601's`);
    await writeRegister(this.bus, this.address, MCP9600_REG.SENSOR_CONFIG, this.sensorConfig);
    await writeRegister(this.bus, this.address, MCP9600_REG.DEVICE_CONFIG, 0x00);
  }

  async measure(): Promise<Measurement> {
    const [config] = await readRegisters(this.bus, this.address, MCP9600_REG.SENSOR_CONFIG, 1);
    if (config !== this.sensorConfig) {
      this.resets++;
      await this.init();
      throw new I2cSensorError(
        'POWER_ON',
        `${hex2(this.address)}: sensor config 0x${config!.toString(16)} != 0x${this.sensorConfig.toString(16)} (chip reset); set up again`,
      );
    }
    const [status] = await readRegisters(this.bus, this.address, MCP9600_REG.STATUS, 1);
    if (status! & MCP9600_STATUS.INPUT_RANGE)
      throw new I2cSensorError('FAULT', `${hex2(this.address)}: thermocouple input out of range (open or shorted)`);
    const hot = await readRegisters(this.bus, this.address, MCP9600_REG.HOT, 2);
    const cold = await readRegisters(this.bus, this.address, MCP9600_REG.COLD, 2);
    return { temperature: mcp9600Celsius(hot[0]!, hot[1]!), coldJunction: mcp9600Celsius(cold[0]!, cold[1]!) };
  }
}
