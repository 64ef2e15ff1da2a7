// PCA9685 16-channel 12-bit PWM driver (0x40-0x7F; 0x70 is the all-call address every chip
// answers by default, never probed). One frequency per chip, set through PRE_SCALE while the
// oscillator sleeps. Duty per channel as ON = 0, OFF = counts, with the full-on / full-off bits
// for 100 % and 0 %. After a power-on reset MODE1 has SLEEP set and every channel is off: the
// driver sees SLEEP and configures the chip again.
import type { I2cIoDriver, IoPoll, IoPollEvents, IoTarget } from './chip-def.js';
import type { I2cBus } from './types.js';

export const PCA_REG = {
  MODE1: 0x00,
  MODE2: 0x01,
  SUBADR1: 0x02,
  SUBADR2: 0x03,
  SUBADR3: 0x04,
  ALLCALLADR: 0x05,
  LED0_ON_L: 0x06,
  PRE_SCALE: 0xfe,
} as const;
export const MODE1 = { RESTART: 0x80, AI: 0x20, SLEEP: 0x10, ALLCALL: 0x01 } as const;
const MODE2_OUTDRV = 0x04;
const FULL = 0x10;
const OSC_HZ = 25_000_000;

/** Probed addresses: every one the address pins can select, except the all-call address. */
export const PCA9685_ADDRESSES = Array.from({ length: 0x40 }, (_, i) => 0x40 + i).filter((a) => a !== 0x70);
export const PCA9685_MIN_HZ = 24;
export const PCA9685_MAX_HZ = 1526;

export function prescaleFor(hz: number): number {
  return Math.min(255, Math.max(3, Math.round(OSC_HZ / (4096 * hz)) - 1));
}

export function frequencyOf(prescale: number): number {
  return OSC_HZ / (4096 * (prescale + 1));
}

/** The four LEDn registers (ON_L, ON_H, OFF_L, OFF_H) for a duty in percent. */
export function dutyRegisters(duty: number): [number, number, number, number] {
  const counts = Math.round((Math.min(100, Math.max(0, duty)) * 4096) / 100);
  if (counts >= 4096) return [0, FULL, 0, 0];
  if (counts <= 0) return [0, 0, 0, FULL];
  return [0, 0, counts & 0xff, counts >> 8];
}

/** The duty in percent the LEDn registers give. */
export function dutyOf(regs: [number, number, number, number]): number {
  const [onL, onH, offL, offH] = regs;
  if (offH & FULL) return 0;
  if (onH & FULL) return 100;
  const on = onL | ((onH & 0x0f) << 8);
  const off = offL | ((offH & 0x0f) << 8);
  return (((off - on + 4096) % 4096) * 100) / 4096;
}

export class Pca9685 implements I2cIoDriver {
  readonly channels = 16;
  /** The duty each channel read back after its last write (null: not known). */
  private readDuties: Array<number | null> = Array(16).fill(null);
  private confirmed = false;

  constructor(
    readonly bus: I2cBus,
    readonly address: number,
  ) {}

  /** One poll: configure the chip if it lost its frequency (or was reset), then write the duties that differ and read each back. */
  async poll(target: IoTarget, events: IoPollEvents): Promise<IoPoll> {
    const prescale = prescaleFor(target.hz);
    if (!(await this.configured(prescale))) {
      if (this.confirmed) {
        events.verifyError();
        events.reset('MODE1/PRE_SCALE');
        this.confirmed = false;
      }
      await this.configure(prescale);
      this.readDuties.fill(null);
      events.wrote();
    }
    for (let ch = 1; ch <= this.channels; ch++) {
      const asked = target.duties[ch - 1];
      if (asked === null || asked === undefined || this.readDuties[ch - 1] === asked) continue;
      await this.writeDuty(ch, asked);
      events.wrote();
      const got = await this.readDuty(ch);
      // 12 bits: the read-back is within one count of the asked duty.
      if (Math.abs(got - asked) > 100 / 4096) {
        events.verifyError();
        throw new Error(`channel ${ch} reads back ${got.toFixed(2)} %, asked ${asked} %`);
      }
      this.readDuties[ch - 1] = asked;
    }
    this.confirmed = true;
    return { pins: 0, duties: this.readDuties.slice() };
  }

  lost(): void {}

  /** Whether the chip runs at `prescale` (false after a power-on reset: SLEEP set, default prescale). */
  async configured(prescale: number): Promise<boolean> {
    const mode1 = await this.bus.readByte(this.address, PCA_REG.MODE1);
    if (mode1 & MODE1.SLEEP) return false;
    return (await this.bus.readByte(this.address, PCA_REG.PRE_SCALE)) === prescale;
  }

  /** Sleep, set the prescaler, wake with totem-pole outputs (PRE_SCALE is only writable asleep). */
  async configure(prescale: number): Promise<void> {
    await this.bus.writeByte(this.address, PCA_REG.MODE1, MODE1.SLEEP | MODE1.ALLCALL);
    await this.bus.writeByte(this.address, PCA_REG.PRE_SCALE, prescale);
    await this.bus.writeByte(this.address, PCA_REG.MODE2, MODE2_OUTDRV);
    await this.bus.writeByte(this.address, PCA_REG.MODE1, MODE1.ALLCALL);
  }

  async writeDuty(channel: number, duty: number): Promise<void> {
    const base = PCA_REG.LED0_ON_L + 4 * (channel - 1);
    const regs = dutyRegisters(duty);
    for (let i = 0; i < 4; i++) await this.bus.writeByte(this.address, base + i, regs[i]!);
  }

  async readDuty(channel: number): Promise<number> {
    const base = PCA_REG.LED0_ON_L + 4 * (channel - 1);
    const regs: number[] = [];
    for (let i = 0; i < 4; i++) regs.push(await this.bus.readByte(this.address, base + i));
    return dutyOf(regs as [number, number, number, number]);
  }

  /** Every channel full off, read back. */
  async safeState(): Promise<void> {
    for (let ch = 1; ch <= this.channels; ch++) await this.writeDuty(ch, 0);
    for (let ch = 1; ch <= this.channels; ch++) {
      const duty = await this.readDuty(ch);
      if (duty !== 0) throw new Error(`channel ${ch} reads back ${duty.toFixed(1)} % after full off`);
    }
    this.readDuties.fill(0);
    this.confirmed = false;
  }
}

/** Read-only identity check: the sub-addresses and all-call address hold their power-on values. */
export async function isPca9685(bus: I2cBus, address: number): Promise<boolean> {
  const expected = [0xe2, 0xe4, 0xe8, 0xe0];
  for (let i = 0; i < expected.length; i++) {
    if ((await bus.readByte(address, PCA_REG.SUBADR1 + i)) !== expected[i]) return false;
  }
  return true;
}
