// What the MCP23017, PCF8574 and PCA9685 emulators share: a plugged state (an unplugged chip
// NACKs every transaction), a count of transactions to NACK, and a power-on reset.
import { i2cError, type SimI2cDevice } from './ds2482-sim.js';

export abstract class SimI2cChip implements SimI2cDevice {
  /** `nack`: the next N transactions are not acknowledged. */
  readonly faults = { nack: 0 };
  readonly stats = { transactions: 0, nacks: 0, resets: 0 };
  plugged = true;

  constructor(readonly address: number) {}

  protected transaction(): void {
    this.stats.transactions++;
    if (!this.plugged || this.faults.nack > 0) {
      if (this.plugged) this.faults.nack--;
      this.stats.nacks++;
      throw i2cError('EREMOTEIO', `0x${this.address.toString(16)} does not acknowledge`);
    }
  }

  /** Power dips and comes back: every register to its reset value. */
  powerOnReset(): void {
    this.stats.resets++;
    this.reset();
  }

  protected abstract reset(): void;
  abstract sendByte(byte: number): void;
  abstract writeByte(command: number, byte: number): void;
  abstract receiveByte(): number;
}
