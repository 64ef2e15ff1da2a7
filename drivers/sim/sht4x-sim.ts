// Emulated SHT4x: measure (0xFD, 8.3 ms; a read before it is done NACKs), serial number
// (0x89), soft reset (0x94). Unknown commands NACK. Replies carry CRC-8 per word.
import { SHT4X_CMD } from '../i2c/sht4x.js';
import { I2cSensorSim } from './i2c-sensor-sim.js';

const MEASURE_MS = 8.3;

export class Sht4xSim extends I2cSensorSim {
  readonly chip = 'SHT4x';
  humidity = 50;
  serial = 0x0a1b2c3d;
  private pending: { words: number[]; readyAt: number } | null = null;

  constructor(address = 0x44, now?: () => number) {
    super(address, now);
  }

  protected reset(): void {
    this.pending = null;
  }

  protected write(bytes: Uint8Array): void {
    if (bytes.length !== 1) this.nack(`expects a 1-byte command, got ${bytes.length}`);
    const now = this.now();
    switch (bytes[0]) {
      case SHT4X_CMD.MEASURE_HIGH: {
        const t = Math.round(((this.temperature + 45) * 65535) / 175);
        const rh = Math.round(((this.humidity + 6) * 65535) / 125);
        const clamp = (v: number) => Math.min(0xffff, Math.max(0, v));
        this.pending = { words: [clamp(t), clamp(rh)], readyAt: now + MEASURE_MS };
        return;
      }
      case SHT4X_CMD.SERIAL:
        this.pending = { words: [this.serial >>> 16, this.serial & 0xffff], readyAt: now };
        return;
      case SHT4X_CMD.SOFT_RESET:
        this.reset();
        return;
      default:
        this.nack(`unknown command 0x${bytes[0]!.toString(16)}`);
    }
  }

  protected read(length: number): Uint8Array {
    const p = this.pending;
    if (!p || this.now() < p.readyAt) this.nack(p ? 'measuring' : 'no data');
    this.pending = null;
    return this.sensirionReply(p.words, length);
  }
}
