// What every emulated I2C sensor shares: plain transfers routed to the chip model, SMBus byte
// operations mapped onto them, and the faults the tests and the sim REST can set.
import { sensirionCrc8 } from '../i2c/sensor-common.js';
import { i2cError, type SimI2cDevice } from './ds2482-sim.js';

export interface SensorSimFaults {
  /** Every transfer NACKs (chip unplugged or dead). */
  nack: boolean;
  /** The next N replies carry a wrong CRC (Sensirion chips; others ignore it). */
  badCrc: number;
}

export abstract class I2cSensorSim implements SimI2cDevice {
  readonly faults: SensorSimFaults = { nack: false, badCrc: 0 };
  readonly stats = { transactions: 0, nacks: 0, powerOnResets: 0 };
  /** Physical quantities the chip measures; settable by tests and the sim. */
  temperature = 20;

  constructor(
    readonly address: number,
    protected readonly now: () => number = () => performance.now(),
  ) {}

  abstract readonly chip: string;
  protected abstract write(bytes: Uint8Array): void;
  protected abstract read(length: number): Uint8Array;
  /** Registers and state as after power-up. */
  protected abstract reset(): void;

  powerOnReset(): void {
    this.stats.powerOnResets++;
    this.reset();
  }

  protected nack(why: string): never {
    this.stats.nacks++;
    throw i2cError('EREMOTEIO', `${this.chip} 0x${this.address.toString(16)} NACK: ${why}`);
  }

  private begin(): void {
    this.stats.transactions++;
    if (this.faults.nack) this.nack('not answering');
  }

  i2cWrite(bytes: Uint8Array): void {
    this.begin();
    this.write(bytes);
  }

  i2cRead(length: number): Uint8Array {
    this.begin();
    return this.read(length);
  }

  sendByte(byte: number): void {
    this.i2cWrite(Uint8Array.of(byte));
  }

  writeByte(command: number, byte: number): void {
    this.i2cWrite(Uint8Array.of(command, byte));
  }

  receiveByte(): number {
    return this.i2cRead(1)[0]!;
  }

  /** Sensirion reply words (msb, lsb, crc each), with a wrong CRC while the fault asks for one. */
  protected sensirionReply(words: number[], length: number): Uint8Array {
    const out: number[] = [];
    for (const w of words) {
      const hi = (w >> 8) & 0xff;
      const lo = w & 0xff;
      out.push(hi, lo, sensirionCrc8(hi, lo));
    }
    if (this.faults.badCrc > 0) {
      this.faults.badCrc--;
      out[2] = out[2]! ^ 0x5a;
    }
    return Uint8Array.from(out.slice(0, length));
  }
}

/** A register-file chip: a write sets the pointer (and writes the bytes after it), a read streams from the pointer. */
export abstract class RegisterSensorSim extends I2cSensorSim {
  protected pointer = 0;

  protected abstract readRegister(register: number): number;
  protected abstract writeRegister(register: number, value: number): void;

  protected write(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.pointer = bytes[0]!;
    for (let i = 1; i < bytes.length; i++) this.writeRegister(this.pointer + i - 1, bytes[i]!);
  }

  protected read(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = this.readRegister(this.pointer + i) & 0xff;
    return out;
  }
}
