// Emulated TMP117: 16-bit registers behind a pointer (a write sets the pointer, and two more
// bytes write the register MSB first; a read streams the pointed register MSB first). Converts
// continuously from power-on, 8 averages of 15.5 ms: the result reads 0x8000 (-256 °C) until the
// first conversion is done, then the temperature plus the offset register, in 7.8125 m°C
// counts. Shutdown mode stops converting; one-shot converts once and shuts down. Data_Ready
// (configuration bit 13) is set by a conversion and cleared by reading either register. Device
// ID 0x0117. Pointers past 0x0F NACK.
import {
  TMP117_CONFIG_DEFAULT,
  TMP117_MODE_MASK,
  TMP117_MODE_SHUTDOWN,
  TMP117_NO_RESULT,
  TMP117_REG,
  TMP117_RESOLUTION,
} from '../i2c/tmp117.js';
import { I2cSensorSim } from './i2c-sensor-sim.js';

const CONVERSION_MS = 8 * 15.5;
const DATA_READY = 0x2000;
const WRITABLE = 0x0ffe;

export class Tmp117Sim extends I2cSensorSim {
  readonly chip = 'TMP117';
  config = TMP117_CONFIG_DEFAULT;
  /** The offset register (two's complement counts). */
  offset = 0;
  private pointer = 0;
  private result = TMP117_NO_RESULT;
  private dataReady = false;
  /** When the conversion running now is done; null while shut down. */
  private convertingUntil: number | null = null;

  constructor(address = 0x48, now?: () => number) {
    super(address, now);
    this.reset();
  }

  protected reset(): void {
    this.config = TMP117_CONFIG_DEFAULT;
    this.offset = 0;
    this.pointer = 0;
    this.result = TMP117_NO_RESULT;
    this.dataReady = false;
    this.convertingUntil = this.now() + CONVERSION_MS;
  }

  private get mode(): number {
    return this.config & TMP117_MODE_MASK;
  }

  /** Finish a conversion that is due; continuous mode starts the next one at once. */
  private settle(): void {
    const now = this.now();
    if (this.convertingUntil === null || now < this.convertingUntil) return;
    const counts = Math.round(this.temperature / TMP117_RESOLUTION) + this.offset;
    this.result = Math.max(-0x8000, Math.min(0x7fff, counts)) & 0xffff;
    this.dataReady = true;
    if (this.mode === TMP117_MODE_MASK) {
      // One-shot: done; the chip shuts down.
      this.config = (this.config & ~TMP117_MODE_MASK) | TMP117_MODE_SHUTDOWN;
      this.convertingUntil = null;
    } else this.convertingUntil = now + CONVERSION_MS;
  }

  private readWord(register: number): number {
    this.settle();
    switch (register) {
      case TMP117_REG.TEMP_RESULT:
        this.dataReady = false;
        return this.result;
      case TMP117_REG.CONFIGURATION: {
        const word = (this.config & WRITABLE & ~0x0002) | (this.dataReady ? DATA_READY : 0);
        this.dataReady = false;
        // MOD 10 reads back as 00.
        return (word & TMP117_MODE_MASK) === 0x0800 ? word & ~TMP117_MODE_MASK : word;
      }
      case TMP117_REG.TEMP_OFFSET:
        return this.offset & 0xffff;
      case TMP117_REG.DEVICE_ID:
        return 0x0117;
      default:
        return 0;
    }
  }

  private writeWord(register: number, value: number): void {
    this.settle();
    if (register === TMP117_REG.CONFIGURATION) {
      if (value & 0x0002) return this.powerOnReset(); // soft reset
      this.config = value & WRITABLE;
      if (this.mode === TMP117_MODE_SHUTDOWN) this.convertingUntil = null;
      else if (this.convertingUntil === null) this.convertingUntil = this.now() + CONVERSION_MS;
    } else if (register === TMP117_REG.TEMP_OFFSET) {
      this.offset = value & 0x8000 ? value - 0x10000 : value;
    }
  }

  protected write(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (bytes[0]! > TMP117_REG.DEVICE_ID) this.nack(`pointer 0x${bytes[0]!.toString(16)} is not a register`);
    this.pointer = bytes[0]!;
    if (bytes.length === 3) this.writeWord(this.pointer, (bytes[1]! << 8) | bytes[2]!);
    else if (bytes.length !== 1) this.nack(`a register write is 3 bytes, got ${bytes.length}`);
  }

  protected read(length: number): Uint8Array {
    const word = this.readWord(this.pointer);
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = i % 2 === 0 ? word >> 8 : word & 0xff;
    return out;
  }
}
