// Emulated I2C bus carrying DS2482-100/-800 bridges. Register-level behaviour: status register
// (1WB PPD SD LL RST SBR TSB DIR), read pointer, configuration register with the complement
// rule, -800 channel select codes, NACK while busy. Each channel drives an emulated segment.
import type { I2cBus } from '../i2c/types.js';
import { OneWireSegment } from './onewire-wire.js';

export type Ds2482Variant = 'ds2482-100' | 'ds2482-800';

/** What one emulated I2C target implements; the bus routes transactions by address. */
export interface SimI2cDevice {
  sendByte(byte: number): void;
  writeByte(command: number, byte: number): void;
  receiveByte(): number;
  /** Plain I2C transfers; a device without them NACKs. */
  i2cWrite?(bytes: Uint8Array): void;
  i2cRead?(length: number): Uint8Array;
  /** Register read (write pointer, repeated start, read); devices without registers omit it. */
  readByte?(command: number): number;
}

/** An Error shaped like the ones i2c-bus rejects with (errno/code). */
export function i2cError(code: 'EREMOTEIO' | 'EIO' | 'ENXIO' | 'EBUSY', message: string): Error {
  const errno = { EREMOTEIO: 121, EIO: 5, ENXIO: 6, EBUSY: 16 }[code];
  return Object.assign(new Error(`${code}: ${message}`), { code, errno });
}

export const CHANNEL_SELECT_CODES = [0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87] as const;
export const CHANNEL_READBACK_CODES = [0xb8, 0xb1, 0xaa, 0xa3, 0x9c, 0x95, 0x8e, 0x87] as const;

const ST = { BUSY: 0x01, PPD: 0x02, SD: 0x04, LL: 0x08, RST: 0x10, SBR: 0x20, TSB: 0x40, DIR: 0x80 } as const;

export interface Ds2482SimOptions {
  address: number;
  variant: Ds2482Variant;
  /** Segments per channel (1 for -100, 8 for -800); created empty when omitted. */
  segments?: OneWireSegment[];
  /** Clock handed to created segments. */
  now?: () => number;
  /** Status reads that still show 1WB after each 1-Wire command. Default 1. */
  busyPolls?: number;
}

export class Ds2482Sim implements SimI2cDevice {
  readonly address: number;
  readonly variant: Ds2482Variant;
  readonly channels: OneWireSegment[];
  busyPolls: number;
  /**
   * Faults: `hangOneWire`: every accepted 1-Wire command leaves 1WB stuck until a Device Reset;
   * `failTransactions`: the next N I2C transactions fail with EIO.
   */
  readonly faults = { hangOneWire: false, failTransactions: 0 };
  readonly stats = { transactions: 0, deviceResets: 0, nacks: 0 };
  private channel = 0;
  private config = 0;
  private pointer: 'status' | 'data' | 'config' | 'channel' = 'status';
  private readData = 0xff;
  private bits = ST.RST as number;
  private busyLeft = 0;
  private hung = false;

  constructor(options: Ds2482SimOptions) {
    this.address = options.address;
    this.variant = options.variant;
    const count = options.variant === 'ds2482-800' ? 8 : 1;
    const given = options.segments ?? [];
    this.channels = [];
    for (let i = 0; i < count; i++) {
      this.channels.push(
        given[i] ??
          new OneWireSegment({ name: `${options.variant}-0x${options.address.toString(16)}-ch${i}`, now: options.now }),
      );
    }
    this.busyPolls = options.busyPolls ?? 1;
  }

  /** The selected channel's segment. */
  get segment(): OneWireSegment {
    return this.channels[this.channel]!;
  }

  get selectedChannel(): number {
    return this.channel;
  }

  get configuration(): number {
    return this.config;
  }

  /** Supply glitch: the chip comes back as after Device Reset (RST set, config cleared, channel 0). */
  brownOut(): void {
    this.chipReset();
  }

  private chipReset(): void {
    this.stats.deviceResets++;
    this.bits = ST.RST;
    this.config = 0;
    this.channel = 0;
    this.pointer = 'status';
    this.busyLeft = 0;
    this.hung = false;
  }

  private transaction(): void {
    this.stats.transactions++;
    if (this.faults.failTransactions > 0) {
      this.faults.failTransactions--;
      throw i2cError('EIO', `DS2482 0x${this.address.toString(16)} transfer failed`);
    }
  }

  private nack(why: string): never {
    this.stats.nacks++;
    throw i2cError('EREMOTEIO', `DS2482 0x${this.address.toString(16)} NACK: ${why}`);
  }

  private get busy(): boolean {
    return this.hung || this.busyLeft > 0;
  }

  private oneWire(run: () => void): void {
    if (this.busy) this.nack('1-Wire busy');
    run();
    this.pointer = 'status';
    this.busyLeft = this.busyPolls;
    if (this.faults.hangOneWire) this.hung = true;
  }

  private setBit(mask: number, on: boolean): void {
    this.bits = on ? this.bits | mask : this.bits & ~mask;
  }

  sendByte(byte: number): void {
    this.transaction();
    switch (byte) {
      case 0xf0:
        this.chipReset();
        return;
      case 0xb4:
        return this.oneWire(() => {
          const r = this.segment.reset();
          this.setBit(ST.PPD, r === 'presence');
          this.setBit(ST.SD, r === 'short');
        });
      case 0x96:
        return this.oneWire(() => {
          this.readData = this.segment.touchByte(0xff);
        });
      default:
        this.nack(`command 0x${byte.toString(16)} without parameter`);
    }
  }

  writeByte(command: number, byte: number): void {
    this.transaction();
    switch (command) {
      case 0xe1: {
        const map: Record<number, typeof this.pointer> = { 0xf0: 'status', 0xe1: 'data', 0xc3: 'config' };
        if (this.variant === 'ds2482-800') map[0xd2] = 'channel';
        const p = map[byte];
        if (!p) this.nack(`invalid read pointer code 0x${byte.toString(16)}`);
        this.pointer = p;
        return;
      }
      case 0xd2:
        if (this.busy) this.nack('1-Wire busy');
        // Accepted only when the high nibble is the complement of the low nibble.
        if (((byte >> 4) & 0x0f) === (~byte & 0x0f)) {
          this.config = byte & 0x0f;
          this.setBit(ST.RST, false);
        }
        this.pointer = 'config';
        return;
      case 0xc3: {
        if (this.variant !== 'ds2482-800') this.nack('channel select on a DS2482-100');
        if (this.busy) this.nack('1-Wire busy');
        const ch = CHANNEL_SELECT_CODES.indexOf(byte as (typeof CHANNEL_SELECT_CODES)[number]);
        if (ch >= 0) this.channel = ch;
        this.pointer = 'channel';
        return;
      }
      case 0xa5:
        return this.oneWire(() => {
          this.segment.touchByte(byte);
        });
      case 0x87:
        return this.oneWire(() => {
          this.setBit(ST.SBR, this.segment.slot(byte & 0x80 ? 1 : 0) === 1);
        });
      case 0x78:
        return this.oneWire(() => {
          const t = this.segment.triplet(byte & 0x80 ? 1 : 0);
          this.setBit(ST.SBR, t.id === 1);
          this.setBit(ST.TSB, t.cmp === 1);
          this.setBit(ST.DIR, t.dir === 1);
        });
      default:
        this.nack(`unknown command 0x${command.toString(16)}`);
    }
  }

  receiveByte(): number {
    this.transaction();
    switch (this.pointer) {
      case 'status': {
        const ll = this.segment.isShorted ? 0 : ST.LL;
        let s = (this.bits & ~(ST.BUSY | ST.LL)) | ll;
        if (this.busy) {
          s |= ST.BUSY;
          if (this.busyLeft > 0) this.busyLeft--;
        }
        return s;
      }
      case 'data':
        return this.readData;
      case 'config':
        return this.config; // high nibble reads 0
      case 'channel':
        return CHANNEL_READBACK_CODES[this.channel]!;
    }
  }
}

/** An emulated I2C adapter; a missing address NACKs like real hardware. */
export class SimI2cBus implements I2cBus {
  readonly name: string;
  private readonly targets = new Map<number, SimI2cDevice>();
  private closed = false;
  /**
   * Bus faults: `stuck`: a target holds SDA low, every transaction fails (EIO) until cleared;
   * `claimed`: addresses a kernel driver has bound (I2C_SLAVE refused with EBUSY).
   */
  readonly faults = { stuck: false, claimed: new Set<number>() };
  /** Transactions that reached the wire (claimed addresses are refused before). */
  readonly stats = { transactions: 0 };

  constructor(name = 'sim') {
    this.name = name;
  }

  attach(address: number, device: SimI2cDevice): void {
    this.targets.set(address, device);
  }

  detach(address: number): void {
    this.targets.delete(address);
  }

  device(address: number): SimI2cDevice | undefined {
    return this.targets.get(address);
  }

  addDs2482(options: Ds2482SimOptions): Ds2482Sim {
    const chip = new Ds2482Sim(options);
    this.attach(options.address, chip);
    return chip;
  }

  private target(address: number): SimI2cDevice {
    if (this.closed) throw i2cError('EIO', 'bus closed');
    if (this.faults.claimed.has(address))
      throw i2cError('EBUSY', `0x${address.toString(16)} is in use by a kernel driver`);
    this.stats.transactions++;
    if (this.faults.stuck) throw i2cError('EIO', 'bus stuck: SDA held low');
    const t = this.targets.get(address);
    if (!t) throw i2cError('EREMOTEIO', `no device acknowledges 0x${address.toString(16)}`);
    return t;
  }

  async sendByte(address: number, byte: number): Promise<void> {
    this.target(address).sendByte(byte & 0xff);
  }

  async writeByte(address: number, command: number, byte: number): Promise<void> {
    this.target(address).writeByte(command & 0xff, byte & 0xff);
  }

  async receiveByte(address: number): Promise<number> {
    return this.target(address).receiveByte();
  }

  async i2cWrite(address: number, bytes: Uint8Array): Promise<void> {
    const t = this.target(address);
    if (!t.i2cWrite) throw i2cError('EREMOTEIO', `0x${address.toString(16)} NACKs a plain write`);
    t.i2cWrite(Uint8Array.from(bytes));
  }

  async i2cRead(address: number, length: number): Promise<Uint8Array> {
    const t = this.target(address);
    if (!t.i2cRead) throw i2cError('EREMOTEIO', `0x${address.toString(16)} NACKs a plain read`);
    return t.i2cRead(length);
  }

  async readByte(address: number, command: number): Promise<number> {
    const t = this.target(address);
    if (!t.readByte)
      throw i2cError('EREMOTEIO', `0x${address.toString(16)} has no registers (NACK on the command byte)`);
    return t.readByte(command & 0xff);
  }

  async scan(first: number, last: number): Promise<number[]> {
    if (this.faults.stuck) throw i2cError('EIO', 'bus stuck: SDA held low');
    return [...this.targets.keys()].filter((a) => a >= first && a <= last).sort((a, b) => a - b);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

export interface Ds2482SimSpec {
  chips: Array<{ address: number; variant: Ds2482Variant; busyPolls?: number }>;
  now?: () => number;
  busName?: string;
}

export interface Ds2482SimSetup {
  i2c: SimI2cBus;
  chips: Ds2482Sim[];
  /** The segment behind `channel` of the chip at `address`. */
  segment(address: number, channel?: number): OneWireSegment;
}

/** Builds an emulated I2C bus with the given bridges, every channel an empty segment. */
export function createDs2482Sim(spec: Ds2482SimSpec): Ds2482SimSetup {
  const i2c = new SimI2cBus(spec.busName);
  const chips = spec.chips.map((c) => i2c.addDs2482({ ...c, now: spec.now }));
  return {
    i2c,
    chips,
    segment(address: number, channel = 0): OneWireSegment {
      const chip = chips.find((c) => c.address === address);
      const seg = chip?.channels[channel];
      if (!seg) throw new Error(`no DS2482 channel ${channel} at 0x${address.toString(16)}`);
      return seg;
    },
  };
}
