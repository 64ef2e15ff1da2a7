// DS2482-100 / DS2482-800 I2C-to-1-Wire bridge over the I2cBus interface.
import type { I2cBus } from '../i2c/types.js';
import { ProtocolBus } from './protocol-bus.js';
import { SerialLock } from './serial-lock.js';
import { BusShortError, OneWireError, type OneWireMaster, type TripletResult } from './types.js';

export type Ds2482Variant = 'ds2482-100' | 'ds2482-800';

export const DS2482_ADDRESSES = [0x18, 0x19, 0x1a, 0x1b] as const;

const CMD = {
  DEVICE_RESET: 0xf0,
  SET_READ_POINTER: 0xe1,
  WRITE_CONFIG: 0xd2,
  CHANNEL_SELECT: 0xc3,
  ONEWIRE_RESET: 0xb4,
  SINGLE_BIT: 0x87,
  WRITE_BYTE: 0xa5,
  READ_BYTE: 0x96,
  TRIPLET: 0x78,
} as const;

const POINTER = { status: 0xf0, data: 0xe1, config: 0xc3, channel: 0xd2 } as const;
type Pointer = keyof typeof POINTER;

export const STATUS = {
  BUSY: 0x01,
  PPD: 0x02,
  SD: 0x04,
  LL: 0x08,
  RST: 0x10,
  SBR: 0x20,
  TSB: 0x40,
  DIR: 0x80,
} as const;
export const CONFIG = { APU: 0x01, PPM: 0x02, SPU: 0x04, ONE_WIRE_SPEED: 0x08 } as const;

/** Channel select codes written with 0xC3, and what the channel register reads back, for channels 0..7. */
export const CHANNEL_CODES = [0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87] as const;
export const CHANNEL_READBACK = [0xb8, 0xb1, 0xaa, 0xa3, 0x9c, 0x95, 0x8e, 0x87] as const;

export interface Ds2482Options {
  /** Status reads allowed while waiting for 1WB to clear. Default 100. */
  pollLimit?: number;
  /** Active pull-up (APU). Default true. */
  activePullup?: boolean;
}

export interface Ds2482Stats {
  busyTimeouts: number;
  reinits: number;
  i2cErrors: number;
  chipResetsSeen: number;
}

/** One bridge chip. All its channels share one lock, so chip operations never interleave. */
export class Ds2482Chip {
  readonly name: string;
  readonly stats: Ds2482Stats = { busyTimeouts: 0, reinits: 0, i2cErrors: 0, chipResetsSeen: 0 };
  private readonly lock = new SerialLock();
  private readonly pollLimit: number;
  private readonly configByte: number;
  private pointer: Pointer | null = null;
  private channelSelected: number | null = null;
  private needsInit = true;
  private readonly channelMasters: Ds2482Master[] = [];

  constructor(
    readonly i2c: I2cBus,
    readonly address: number,
    readonly variant: Ds2482Variant,
    options: Ds2482Options = {},
  ) {
    this.name = `ds2482-${i2c.name ?? 'i2c'}-0x${address.toString(16)}`;
    this.pollLimit = options.pollLimit ?? 100;
    this.configByte = options.activePullup === false ? 0 : CONFIG.APU;
    const count = variant === 'ds2482-800' ? 8 : 1;
    for (let ch = 0; ch < count; ch++) this.channelMasters.push(new Ds2482Master(this, ch));
  }

  get channelCount(): number {
    return this.channelMasters.length;
  }

  channel(index: number): Ds2482Master {
    const m = this.channelMasters[index];
    if (!m) throw new OneWireError('IO', `${this.name}: no channel ${index} on a ${this.variant}`);
    return m;
  }

  masters(): Ds2482Master[] {
    return this.channelMasters.slice();
  }

  private async i2c_<T>(what: string, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (e) {
      this.stats.i2cErrors++;
      this.pointer = null;
      this.channelSelected = null;
      const msg = e instanceof Error ? e.message : String(e);
      throw new OneWireError('IO', `${this.name}: I2C ${what} failed: ${msg}`);
    }
  }

  private send(cmd: number): Promise<void> {
    return this.i2c_(`command 0x${cmd.toString(16)}`, () => this.i2c.sendByte(this.address, cmd));
  }

  private write(cmd: number, param: number): Promise<void> {
    return this.i2c_(`command 0x${cmd.toString(16)}`, () => this.i2c.writeByte(this.address, cmd, param));
  }

  private receive(): Promise<number> {
    return this.i2c_('read', () => this.i2c.receiveByte(this.address));
  }

  private async readRegister(p: Pointer): Promise<number> {
    if (this.pointer !== p) {
      await this.write(CMD.SET_READ_POINTER, POINTER[p]);
      this.pointer = p;
    }
    return this.receive();
  }

  /** Device Reset; checks the status a fresh DS2482 shows (RST set, nothing else but LL). */
  async deviceReset(): Promise<void> {
    await this.send(CMD.DEVICE_RESET);
    this.pointer = 'status';
    // Re-select explicitly on a -800 rather than rely on the reset default.
    this.channelSelected = this.variant === 'ds2482-100' ? 0 : null;
    const status = await this.receive();
    if ((status & ~STATUS.LL) !== STATUS.RST) {
      throw new OneWireError('IO', `${this.name}: status 0x${status.toString(16)} after Device Reset, not a DS2482`);
    }
  }

  async writeConfig(): Promise<void> {
    const c = this.configByte & 0x0f;
    await this.write(CMD.WRITE_CONFIG, ((~c & 0x0f) << 4) | c);
    this.pointer = 'config';
    const back = await this.receive();
    if (back !== c)
      throw new OneWireError('IO', `${this.name}: config read back 0x${back.toString(16)}, wrote 0x${c.toString(16)}`);
  }

  async selectChannel(ch: number): Promise<void> {
    if (this.variant !== 'ds2482-800') {
      if (ch !== 0) throw new OneWireError('IO', `${this.name}: a DS2482-100 has only channel 0`);
      this.channelSelected = 0;
      return;
    }
    await this.write(CMD.CHANNEL_SELECT, CHANNEL_CODES[ch]!);
    this.pointer = 'channel';
    const back = await this.receive();
    if (back !== CHANNEL_READBACK[ch]) {
      this.channelSelected = null;
      throw new OneWireError('IO', `${this.name}: channel ${ch} select read back 0x${back.toString(16)}`);
    }
    this.channelSelected = ch;
  }

  /** Device reset + configuration (active pull-up), verified by read-back. */
  async init(): Promise<void> {
    await this.lock.run(() => this.initUnlocked());
  }

  private async initUnlocked(): Promise<void> {
    await this.deviceReset();
    await this.writeConfig();
    this.needsInit = false;
  }

  private async waitIdle(): Promise<number> {
    for (let i = 0; i < this.pollLimit; i++) {
      const status = await this.readRegister('status');
      if (!(status & STATUS.BUSY)) return status;
    }
    this.stats.busyTimeouts++;
    this.needsInit = true;
    throw new OneWireError('TIMEOUT', `${this.name}: 1-Wire busy after ${this.pollLimit} status polls`);
  }

  /**
   * Runs one 1-Wire command on `channel` and returns the status once idle. A status with RST
   * means the chip restarted (brown-out) and lost its configuration and channel: re-initialise
   * and report the command as failed, since it may have run on the wrong channel.
   */
  async command(channel: number, issue: () => Promise<void>): Promise<number> {
    if (this.needsInit) {
      this.stats.reinits++;
      await this.initUnlocked();
    }
    if (this.channelSelected !== channel) await this.selectChannel(channel);
    await issue();
    this.pointer = 'status';
    const status = await this.waitIdle();
    if (status & STATUS.RST) {
      this.stats.chipResetsSeen++;
      this.needsInit = true;
      this.channelSelected = null;
      throw new OneWireError('IO', `${this.name}: bridge reset itself (RST); re-initialising`);
    }
    return status;
  }

  run<T>(job: () => Promise<T>): Promise<T> {
    return this.lock.run(job);
  }

  // Raw command issuers used by Ds2482Master
  issueReset(): Promise<void> {
    return this.send(CMD.ONEWIRE_RESET);
  }
  issueWriteByte(b: number): Promise<void> {
    return this.write(CMD.WRITE_BYTE, b & 0xff);
  }
  issueReadByte(): Promise<void> {
    return this.send(CMD.READ_BYTE);
  }
  readDataRegister(): Promise<number> {
    return this.readRegister('data');
  }
  issueBit(bit: 0 | 1): Promise<void> {
    return this.write(CMD.SINGLE_BIT, bit ? 0x80 : 0x00);
  }
  issueTriplet(dir: 0 | 1): Promise<void> {
    return this.write(CMD.TRIPLET, dir ? 0x80 : 0x00);
  }
}

/** One channel of a DS2482 as a OneWireMaster. */
export class Ds2482Master implements OneWireMaster {
  readonly name: string;

  constructor(
    readonly chip: Ds2482Chip,
    readonly channel: number,
  ) {
    this.name = `${chip.name}-ch${channel}`;
  }

  reset(): Promise<boolean> {
    return this.chip.run(async () => {
      const status = await this.chip.command(this.channel, () => this.chip.issueReset());
      if (status & STATUS.SD) throw new BusShortError(`${this.name}: 1-Wire short detected`);
      return (status & STATUS.PPD) !== 0;
    });
  }

  writeByte(byte: number): Promise<void> {
    return this.chip.run(async () => {
      await this.chip.command(this.channel, () => this.chip.issueWriteByte(byte));
    });
  }

  readByte(): Promise<number> {
    return this.chip.run(async () => {
      await this.chip.command(this.channel, () => this.chip.issueReadByte());
      return this.chip.readDataRegister();
    });
  }

  private bit(bit: 0 | 1): Promise<0 | 1> {
    return this.chip.run(async () => {
      const status = await this.chip.command(this.channel, () => this.chip.issueBit(bit));
      return status & STATUS.SBR ? 1 : 0;
    });
  }

  async writeBit(bit: 0 | 1): Promise<void> {
    await this.bit(bit);
  }

  readBit(): Promise<0 | 1> {
    return this.bit(1);
  }

  triplet(direction: 0 | 1): Promise<TripletResult> {
    return this.chip.run(async () => {
      const s = await this.chip.command(this.channel, () => this.chip.issueTriplet(direction));
      return { id: s & STATUS.SBR ? 1 : 0, cmp: s & STATUS.TSB ? 1 : 0, dir: s & STATUS.DIR ? 1 : 0 };
    });
  }
}

/**
 * Identifies a bridge at `address`: Device Reset must give the DS2482 reset status; a
 * DS2482-800 is recognised by a channel select that reads back the right code. Null when
 * nothing (or something else) answers.
 */
export async function detectDs2482(i2c: I2cBus, address: number): Promise<Ds2482Variant | null> {
  const probe = new Ds2482Chip(i2c, address, 'ds2482-800');
  try {
    await probe.deviceReset();
  } catch {
    return null;
  }
  try {
    await probe.selectChannel(7);
    await probe.selectChannel(0);
    return 'ds2482-800';
  } catch {
    // A -100 NACKs the channel select; leave it freshly reset.
    try {
      await probe.deviceReset();
    } catch {
      return null;
    }
    return 'ds2482-100';
  }
}

export interface ProbeOptions extends Ds2482Options {
  addresses?: readonly number[];
}

/** Finds DS2482 bridges (0x18-0x1B by default), initialises them, and returns one master per channel. */
export async function probeDs2482(i2c: I2cBus, options: ProbeOptions = {}): Promise<Ds2482Master[]> {
  const candidates = options.addresses ?? DS2482_ADDRESSES;
  const lo = Math.min(...candidates);
  const hi = Math.max(...candidates);
  let present: number[];
  try {
    present = (await i2c.scan(lo, hi)).filter((a) => candidates.includes(a));
  } catch {
    present = [...candidates];
  }
  const masters: Ds2482Master[] = [];
  for (const address of present) {
    const variant = await detectDs2482(i2c, address);
    if (!variant) continue;
    const chip = new Ds2482Chip(i2c, address, variant, options);
    try {
      await chip.init();
    } catch {
      continue;
    }
    masters.push(...chip.masters());
  }
  return masters;
}

/** Convenience: one ProtocolBus per DS2482 channel found on `i2c`. */
export async function probeDs2482Buses(i2c: I2cBus, options: ProbeOptions = {}): Promise<ProtocolBus[]> {
  return (await probeDs2482(i2c, options)).map((m) => new ProtocolBus(m, { kind: 'ds2482' }));
}
