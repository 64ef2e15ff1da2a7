// Emulated DS2408: PIO registers 0x88..0x8F, output latches (chip bit 0 = transistor on),
// Read PIO Registers with inverted CRC16, Channel-Access Read/Write, conditional search register
// writes, activity latch reset, PORL power-on flag.
import { invertedCrc16Bytes } from '../onewire/crc.js';
import { FAMILY } from '../onewire/types.js';
import { SimSlave, type SlaveOptions } from './onewire-slave.js';

export interface SimDs2408Options extends SlaveOptions {
  /** Chip latch register after power-on (datasheet: random). Default 0xFF (all transistors off). */
  powerOnLatches?: number | 'random';
  /**
   * Datasheet, power-up timing: a fast power-on slew can leave P0 in a test mode in which it
   * ignores Channel-Access Write, until the Disable Test Mode sequence (reset, 96h, ROM, 3Ch).
   */
  testModeAtPowerOn?: boolean;
}

type Ds2408Step = 'command' | 'ta1' | 'ta2' | 'cw1' | 'cw2' | 'csTa1' | 'csTa2' | 'csData' | 'done';

export class SimDs2408 extends SimSlave {
  protected override readonly supportsResume = true;
  protected override readonly supportsTestModeCommand = true;
  /** P0 ignores Channel-Access Write (see testModeAtPowerOn). */
  testMode = false;
  /** Raw output latch register (bit 0 = transistor on, pin pulled low). */
  latch = 0xff;
  activity = 0;
  condMask = 0;
  condPolarity = 0;
  /** Control/status bits 0..3 (PLS, CT, ROS, PORL); bit 7 VCCP is always reported set. */
  control = 0x08;
  /** Channel-Access Writes accepted (diagnostics). */
  writes = 0;
  /** Outputs switched off since the chip was made, bit n = channel n+1 (diagnostics: did one glitch). */
  switchedOff = 0;
  private externalLow = 0;
  private readonly powerOnLatches: number | 'random';
  private readonly testModeAtPowerOn: boolean;
  private step: Ds2408Step = 'command';
  private ta = 0;
  private first = 0;

  constructor(options: SimDs2408Options = {}) {
    super(FAMILY.DS2408, options);
    this.powerOnLatches = options.powerOnLatches ?? 0xff;
    this.testModeAtPowerOn = options.testModeAtPowerOn ?? false;
    this.powerOn();
  }

  protected powerOn(): void {
    this.latch = this.powerOnLatches === 'random' ? Math.floor(Math.random() * 256) : this.powerOnLatches & 0xff;
    this.activity = 0;
    this.condMask = 0;
    this.condPolarity = 0;
    this.control = 0x08;
    this.step = 'command';
    this.testMode = this.testModeAtPowerOn;
  }

  /** PIO logic state: a pin reads 0 when its transistor is on or something outside pulls it low. */
  pinState(): number {
    return this.latch & ~this.externalLow & 0xff;
  }

  /** Outputs that are on (transistor conducting), bit n = channel n+1. What the plant reads. */
  activeOutputs(): number {
    return ~this.latch & 0xff;
  }

  /** Inputs driven low from outside (e.g. a switch to ground), bit n = channel n+1. */
  setExternalLow(mask: number): void {
    this.changePins(() => {
      this.externalLow = mask & 0xff;
    });
  }

  /** Channel-Access Write of a raw latch byte (also used by the kernel tree emulation). */
  channelWrite(raw: number): void {
    const on = this.activeOutputs();
    this.changePins(() => {
      this.latch = this.testMode ? (raw & 0xfe) | (this.latch & 0x01) : raw & 0xff;
    });
    this.switchedOff |= on & ~this.activeOutputs();
    this.writes++;
  }

  /**
   * The chip as a previous run of the service left it: the outputs `on` (bit n = channel n+1) on,
   * and the power-on flag (PORL) cleared, as that run's driver cleared it. The module keeps its
   * latches while it has power; a crash of the service does not power-cycle it.
   */
  leftBy(on: number): void {
    this.latch = ~on & 0xff;
    this.control &= ~0x08;
    this.testMode = false;
  }

  private changePins(change: () => void): void {
    const before = this.pinState();
    change();
    this.activity |= before ^ this.pinState();
  }

  register(addr: number): number {
    switch (addr) {
      case 0x88:
        return this.pinState();
      case 0x89:
        return this.latch;
      case 0x8a:
        return this.activity;
      case 0x8b:
        return this.condMask;
      case 0x8c:
        return this.condPolarity;
      case 0x8d:
        return 0x80 | (this.control & 0x0f);
      default:
        return 0xff;
    }
  }

  private writeRegister(addr: number, value: number): void {
    if (addr === 0x8b) this.condMask = value & 0xff;
    else if (addr === 0x8c) this.condPolarity = value & 0xff;
    else if (addr === 0x8d) {
      // PORL (bit 3) can only be cleared; other writable bits are PLS, CT, ROS.
      const porl = value & 0x08 ? this.control & 0x08 : 0;
      this.control = (value & 0x07) | porl;
    }
  }

  protected override onSelected(): void {
    this.step = 'command';
  }

  protected onFunctionByte(byte: number): void {
    switch (this.step) {
      case 'command':
        return this.command(byte);
      case 'ta1':
        this.ta = byte;
        this.step = 'ta2';
        return;
      case 'ta2': {
        const addr = this.ta | (byte << 8);
        this.step = 'done';
        if (addr < 0x88 || addr > 0x8f) return this.fill();
        const data: number[] = [];
        for (let a = addr; a <= 0x8f; a++) data.push(this.register(a));
        const crc = invertedCrc16Bytes([0xf0, this.ta, byte, ...data]);
        return this.send([...this.transmitFrame(data), ...crc]);
      }
      case 'cw1':
        this.first = byte;
        this.step = 'cw2';
        return;
      case 'cw2':
        if (byte !== (~this.first & 0xff)) {
          this.step = 'done';
          return this.fill();
        }
        this.channelWrite(this.first);
        this.step = 'cw1';
        // Confirmation byte then the new pin state; then the next pair may follow without reset.
        return this.send([0xaa, this.pinState()], () => this.receive());
      case 'csTa1':
        this.ta = byte;
        this.step = 'csTa2';
        return;
      case 'csTa2':
        this.ta |= byte << 8;
        this.step = 'csData';
        return;
      case 'csData':
        if (this.ta >= 0x8b && this.ta <= 0x8d) this.writeRegister(this.ta, byte);
        this.ta++;
        return;
      default:
        return;
    }
  }

  private command(byte: number): void {
    if (this.selectedWith === 0x96) {
      if (byte === 0x3c) this.testMode = false;
      this.step = 'done';
      return this.fill();
    }
    switch (byte) {
      case 0xf0:
        this.step = 'ta1';
        return;
      case 0x5a:
        this.step = 'cw1';
        return;
      case 0xf5:
        this.step = 'done';
        return this.channelReadBlock([0xf5]);
      case 0xcc:
        this.step = 'csTa1';
        return;
      case 0xc3: {
        this.activity = 0;
        this.step = 'done';
        const ack = (): void => this.send([0xaa], ack);
        return ack();
      }
      default:
        this.step = 'done';
        this.fill();
    }
  }

  /** Channel-Access Read: 32 pin samples then the inverted CRC16, endlessly. */
  private channelReadBlock(prefix: number[]): void {
    const samples: number[] = [];
    for (let i = 0; i < 32; i++) samples.push(this.pinState());
    const crc = invertedCrc16Bytes([...prefix, ...samples]);
    this.send([...this.transmitFrame(samples), ...crc], () => this.channelReadBlock([]));
  }
}
