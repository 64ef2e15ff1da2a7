// Emulated MCP9600: hot and cold junction registers (0.0625 degC, two's complement), status
// (input range bit for an open thermocouple), sensor and device configuration, device id 0x40.
import { MCP9600_REG, MCP9600_STATUS } from '../i2c/mcp9600.js';
import { RegisterSensorSim } from './i2c-sensor-sim.js';

export class Mcp9600Sim extends RegisterSensorSim {
  readonly chip = 'MCP9600';
  coldJunction = 22;
  /** An unplugged or broken thermocouple: the EMF is out of range. */
  open = false;
  sensorConfig = 0;
  deviceConfig = 0;

  constructor(address = 0x60, now?: () => number) {
    super(address, now);
  }

  protected reset(): void {
    this.sensorConfig = 0;
    this.deviceConfig = 0;
  }

  private word(register: number): number {
    const q = (t: number) => Math.round(t * 16) & 0xffff;
    switch (register) {
      case MCP9600_REG.HOT:
        return this.open ? 0 : q(this.temperature);
      case MCP9600_REG.DELTA:
        return this.open ? 0 : q(this.temperature - this.coldJunction);
      case MCP9600_REG.COLD:
        return q(this.coldJunction);
      case MCP9600_REG.DEVICE_ID:
        return 0x4012;
      default:
        return 0;
    }
  }

  protected readRegister(register: number): number {
    const p = this.pointer;
    if (p === MCP9600_REG.STATUS) return this.open ? MCP9600_STATUS.INPUT_RANGE : MCP9600_STATUS.UPDATED;
    if (p === MCP9600_REG.SENSOR_CONFIG) return this.sensorConfig;
    if (p === MCP9600_REG.DEVICE_CONFIG) return this.deviceConfig;
    const w = this.word(p);
    return register === p ? w >> 8 : w & 0xff;
  }

  protected writeRegister(register: number, value: number): void {
    if (register === MCP9600_REG.SENSOR_CONFIG) this.sensorConfig = value;
    else if (register === MCP9600_REG.DEVICE_CONFIG) this.deviceConfig = value;
  }
}
