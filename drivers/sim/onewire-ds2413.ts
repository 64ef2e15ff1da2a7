// Emulated DS2413: PIO Access Read (status byte with complement nibble, endless) and PIO Access
// Write (data, inverted data, 0xAA + status, repeatable). Latch bit 1 = transistor off.
import { FAMILY } from '../onewire/types.js';
import { SimSlave, type SlaveOptions } from './onewire-slave.js';

export class SimDs2413 extends SimSlave {
  protected override readonly supportsResume = true;
  /** Raw latches: bit 0 PIOA, bit 1 PIOB; 0 = transistor on (pin pulled low). */
  latch = 0x03;
  writes = 0;
  /** Outputs switched off since the chip was made, bit 0 = A (diagnostics: did one glitch). */
  switchedOff = 0;
  private externalLow = 0;
  private step: 'command' | 'w1' | 'w2' | 'done' = 'command';
  private first = 0;

  constructor(options: SlaveOptions = {}) {
    super(FAMILY.DS2413, options);
    this.powerOn();
  }

  protected powerOn(): void {
    this.latch = 0x03;
    this.step = 'command';
  }

  /** b0 PIOA pin, b1 PIOA latch, b2 PIOB pin, b3 PIOB latch, high nibble = complement. */
  status(): number {
    const pins = this.latch & ~this.externalLow & 0x03;
    const low = (pins & 1) | ((this.latch & 1) << 1) | ((pins & 2) << 1) | ((this.latch & 2) << 2);
    return ((~low & 0x0f) << 4) | low;
  }

  /** Outputs that are on: bit 0 = A, bit 1 = B. What the plant reads. */
  activeOutputs(): number {
    return ~this.latch & 0x03;
  }

  setExternalLow(mask: number): void {
    this.externalLow = mask & 0x03;
  }

  /** PIO Access Write of a raw data byte (bits 0/1 used), also used by the kernel tree emulation. */
  pioWrite(raw: number): void {
    const on = this.activeOutputs();
    this.latch = raw & 0x03;
    this.switchedOff |= on & ~this.activeOutputs();
    this.writes++;
  }

  /** The module as a previous run of the service left it: the outputs `on` (bit 0 = A) on; it kept its power. */
  leftBy(on: number): void {
    this.latch = ~on & 0x03;
  }

  protected override onSelected(): void {
    this.step = 'command';
  }

  private streamStatus(): void {
    this.send(this.transmitFrame([this.status()]), () => this.streamStatus());
  }

  protected onFunctionByte(byte: number): void {
    switch (this.step) {
      case 'command':
        if (byte === 0xf5) {
          this.step = 'done';
          return this.streamStatus();
        }
        if (byte === 0x5a) {
          this.step = 'w1';
          return;
        }
        this.step = 'done';
        return this.fill();
      case 'w1':
        this.first = byte;
        this.step = 'w2';
        return;
      case 'w2':
        if (byte !== (~this.first & 0xff)) {
          this.step = 'done';
          return this.fill();
        }
        this.pioWrite(this.first);
        this.step = 'w1';
        return this.send([0xaa, this.status()], () => this.receive());
      default:
        return;
    }
  }
}
