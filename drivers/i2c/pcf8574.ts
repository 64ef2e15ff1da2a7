// PCF8574 (0x20-0x27) and PCF8574A (0x38-0x3F) 8-bit quasi-bidirectional IO expanders. There
// are no registers: a write sets the port, a read returns the pins. A 1 is a weak pull-up (the
// pin is an input, or an output at high); a 0 pulls the pin low. The power-on state, all 1s,
// is the safe state.
import type { I2cIoDriver, IoPoll, IoPollEvents, IoTarget } from './chip-def.js';
import type { I2cBus } from './types.js';

export const PCF8574_ADDRESSES = [0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27] as const;
export const PCF8574A_ADDRESSES = [0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f] as const;

export class Pcf8574 implements I2cIoDriver {
  readonly channels = 8;
  /** The port byte last written (null: unknown, read back and written again). */
  private written: number | null = null;
  private confirmed = false;

  constructor(
    readonly bus: I2cBus,
    readonly address: number,
  ) {}

  /** One poll: undriven pins stay at 1 (the weak pull-up that makes them inputs); a pin driven low must read low. */
  async poll(target: IoTarget, events: IoPollEvents): Promise<IoPoll> {
    const portOf = () => (target.levels | ~target.drive) & 0xff;
    let port = portOf();
    let pins = await this.read();
    const wrong = () => pins & target.drive & ~target.levels & 0xff;
    if (this.written !== port || wrong()) {
      if (this.confirmed && this.written === port) {
        events.verifyError();
        events.reset('outputs');
        this.confirmed = false;
        port = portOf();
      }
      await this.write(port);
      this.written = port;
      events.wrote();
      pins = await this.read();
      if (wrong()) {
        events.verifyError();
        throw new Error(`pins read back 0x${pins.toString(16)} after writing 0x${port.toString(16)}`);
      }
    }
    this.confirmed = true;
    return { pins, duties: [] };
  }

  lost(): void {
    this.written = null;
  }

  /** Pin levels. */
  read(): Promise<number> {
    return this.bus.receiveByte(this.address);
  }

  write(port: number): Promise<void> {
    return this.bus.sendByte(this.address, port & 0xff);
  }

  /**
   * All pins released high and read once (the chip acknowledged both). A pin that still reads
   * low is held low from outside (a switch, an input): a PCF8574 cannot tell that from a stuck
   * output, so it is returned, not an error.
   */
  async safeState(): Promise<number> {
    await this.write(0xff);
    const low = ~(await this.read()) & 0xff;
    this.written = null;
    this.confirmed = false;
    return low;
  }
}
