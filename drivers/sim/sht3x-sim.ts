// Emulated SHT3x: 2-byte commands; single shot high repeatability without clock stretching
// (0x2400, 15.5 ms; an early read NACKs), status register with heater (13) and reset (4)
// bits, clear status, heater on/off, soft reset. Replies carry CRC-8 per word.
import { SHT3X_STATUS } from '../i2c/sht3x.js';
import { I2cSensorSim } from './i2c-sensor-sim.js';

const MEASURE_MS = 15.5;

export class Sht3xSim extends I2cSensorSim {
  readonly chip = 'SHT3x';
  humidity = 50;
  status = SHT3X_STATUS.RESET as number;
  private pending: { words: number[]; readyAt: number } | null = null;

  constructor(address = 0x44, now?: () => number) {
    super(address, now);
  }

  get heater(): boolean {
    return (this.status & SHT3X_STATUS.HEATER) !== 0;
  }

  protected reset(): void {
    this.pending = null;
    this.status = SHT3X_STATUS.RESET;
  }

  protected write(bytes: Uint8Array): void {
    if (bytes.length !== 2) this.nack(`expects a 2-byte command, got ${bytes.length}`);
    const cmd = (bytes[0]! << 8) | bytes[1]!;
    const now = this.now();
    switch (cmd) {
      case 0x2400: {
        const clamp = (v: number) => Math.min(0xffff, Math.max(0, Math.round(v)));
        this.pending = {
          words: [clamp(((this.temperature + 45) * 65535) / 175), clamp((this.humidity * 65535) / 100)],
          readyAt: now + MEASURE_MS,
        };
        return;
      }
      case 0xf32d:
        this.pending = { words: [this.status], readyAt: now };
        return;
      case 0x3041:
        this.status &= ~SHT3X_STATUS.RESET;
        return;
      case 0x306d:
        this.status |= SHT3X_STATUS.HEATER;
        return;
      case 0x3066:
        this.status &= ~SHT3X_STATUS.HEATER;
        return;
      case 0x30a2:
        this.reset();
        return;
      default:
        this.nack(`unknown command 0x${cmd.toString(16)}`);
    }
  }

  protected read(length: number): Uint8Array {
    const p = this.pending;
    if (!p || this.now() < p.readyAt) this.nack(p ? 'measuring' : 'no data');
    this.pending = null;
    return this.sensirionReply(p.words, length);
  }
}
