// PCF8574(A): a written 0 pulls the pin low; a written 1 leaves a weak pull-up, so the pin reads
// whatever the outside pulls it to (`external`, bit clear = pulled low). Power-on: all 1s.
import { SimI2cChip } from './i2c-register-sim.js';

export class SimPcf8574 extends SimI2cChip {
  port = 0xff;
  external = 0xff;

  constructor(address: number) {
    super(address);
  }

  protected reset(): void {
    this.port = 0xff;
  }

  pins(): number {
    return this.port & this.external & 0xff;
  }

  loadOn(channel: number, activeLow: boolean): boolean {
    const high = (this.pins() & (1 << (channel - 1))) !== 0;
    return this.plugged && high !== activeLow;
  }

  sendByte(byte: number): void {
    this.transaction();
    this.port = byte & 0xff;
  }

  writeByte(command: number, byte: number): void {
    // A two-byte write: each byte in turn sets the port.
    this.transaction();
    this.port = command & 0xff;
    this.port = byte & 0xff;
  }

  readByte(command: number): number {
    // An SMBus register read: the command byte is a write like any other, then the port is read.
    this.transaction();
    this.port = command & 0xff;
    return this.pins();
  }

  receiveByte(): number {
    this.transaction();
    return this.pins();
  }
}
