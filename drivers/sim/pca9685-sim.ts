// Register-level PCA9685: MODE1 (SLEEP, AI, ALLCALL), MODE2, sub-addresses, LEDn ON/OFF,
// ALL_LED (writes every channel), PRE_SCALE (only takes while SLEEP is set). Power-on: MODE1
// 0x11 (asleep), prescale 30 (200 Hz), every channel full off.
import { i2cError } from './ds2482-sim.js';
import { dutyOf, frequencyOf, MODE1, PCA_REG } from '../i2c/pca9685.js';
import { SimI2cChip } from './i2c-register-sim.js';

const ALL_LED_ON_L = 0xfa;

export class SimPca9685 extends SimI2cChip {
  readonly regs = new Uint8Array(256);

  constructor(address: number) {
    super(address);
    this.reset();
  }

  protected reset(): void {
    this.regs.fill(0);
    this.regs[PCA_REG.MODE1] = MODE1.SLEEP | MODE1.ALLCALL;
    this.regs[PCA_REG.MODE2] = 0x04;
    this.regs[PCA_REG.SUBADR1] = 0xe2;
    this.regs[PCA_REG.SUBADR2] = 0xe4;
    this.regs[PCA_REG.SUBADR3] = 0xe8;
    this.regs[PCA_REG.ALLCALLADR] = 0xe0;
    this.regs[PCA_REG.PRE_SCALE] = 30;
    for (let ch = 0; ch < 16; ch++) this.regs[PCA_REG.LED0_ON_L + 4 * ch + 3] = 0x10;
  }

  get asleep(): boolean {
    return (this.regs[PCA_REG.MODE1]! & MODE1.SLEEP) !== 0;
  }

  get frequency(): number {
    return frequencyOf(this.regs[PCA_REG.PRE_SCALE]!);
  }

  /** The duty a channel (1-16) outputs, 0 while the oscillator sleeps. */
  duty(channel: number): number {
    if (this.asleep) return 0;
    const b = PCA_REG.LED0_ON_L + 4 * (channel - 1);
    return dutyOf([this.regs[b]!, this.regs[b + 1]!, this.regs[b + 2]!, this.regs[b + 3]!]);
  }

  /** Any duty switches the load on, whatever the board's polarity. */
  loadOn(channel: number): boolean {
    return this.plugged && this.duty(channel) > 0;
  }

  sendByte(): void {
    this.transaction();
  }

  writeByte(command: number, byte: number): void {
    this.transaction();
    if (command === PCA_REG.PRE_SCALE) {
      if (this.asleep) this.regs[command] = Math.max(3, byte);
      return;
    }
    if (command >= ALL_LED_ON_L && command <= ALL_LED_ON_L + 3) {
      for (let ch = 0; ch < 16; ch++) this.regs[PCA_REG.LED0_ON_L + 4 * ch + (command - ALL_LED_ON_L)] = byte;
      return;
    }
    if (command > 0x45 && command < ALL_LED_ON_L)
      throw i2cError('EREMOTEIO', `register 0x${command.toString(16)} is reserved`);
    this.regs[command] = command === PCA_REG.MODE1 ? byte & 0x7f : byte;
  }

  receiveByte(): number {
    this.transaction();
    return this.regs[PCA_REG.MODE1]!;
  }

  readByte(command: number): number {
    this.transaction();
    return command >= ALL_LED_ON_L && command < PCA_REG.PRE_SCALE ? 0 : this.regs[command]!;
  }
}
