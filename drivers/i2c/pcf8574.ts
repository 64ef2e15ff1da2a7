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
  /**
   * The port the chip is known to hold (null: none, as at power-on or after safeState()): its 0s
   * are pins it pulls low. Kept through failed transactions (they do not change the chip), so a
   * chip off the bus for a while and back in its power-on state, or one reset while the target
   * changed, is still found reset.
   */
  private holds: number | null = null;

  constructor(
    readonly bus: I2cBus,
    readonly address: number,
  ) {}

  /** One poll: undriven pins stay at 1 (the weak pull-up that makes them inputs); a pin driven low must read low. */
  async poll(target: IoTarget, events: IoPollEvents): Promise<IoPoll> {
    const portOf = () => (target.levels | ~target.drive) & 0xff;
    let pins = await this.read();
    // A pin the chip pulled low reads high: it lost its port (a power-on reset).
    if (this.holds !== null && pins & ~this.holds & 0xff) {
      events.verifyError();
      events.reset('outputs');
      this.holds = null;
      this.written = null;
    }
    const port = portOf();
    const wrong = () => pins & target.drive & ~target.levels & 0xff;
    if (this.written !== port || wrong()) {
      // Until the write is known to have taken, only the pins low both before and after are sure.
      if (this.holds !== null) this.holds |= port;
      await this.write(port);
      this.written = port;
      this.holds = port;
      events.wrote();
      pins = await this.read();
      // A pin asked low that reads high is not held low (the write did not take there).
      this.holds = port | (pins & 0xff);
      if (wrong()) {
        events.verifyError();
        throw new Error(`pins read back 0x${pins.toString(16)} after writing 0x${port.toString(16)}`);
      }
    }
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
    this.holds = null;
    return low;
  }
}
