// An emulated 1-Wire segment: a wired-AND line with a pull-up, slave models answering at bit
// level, and segment-wide faults (short, cut wire). Masters (DS2482/DS2480B emulations) drive
// it slot by slot, so the real drivers' protocol code is what gets exercised.
import type { RomAddress } from '../onewire/types.js';
import type { Bit, SimSlave, SlaveHost } from './onewire-slave.js';

export { SimSlave, type Bit, type SlaveHost, type SlaveOptions } from './onewire-slave.js';
export { SimDs18b20, type SimDs18b20Options } from './onewire-ds18b20.js';
export { SimDs2408, type SimDs2408Options } from './onewire-ds2408.js';
export { SimDs2413 } from './onewire-ds2413.js';
export { SimMax31850, type SimMax31850Options, type SimThermocoupleFault } from './onewire-max31850.js';

export type ResetResult = 'presence' | 'none' | 'short';

export interface SegmentOptions {
  name?: string;
  /** Clock for conversion timing (ms). Default Date.now; tests pass a manual clock. */
  now?: () => number;
}

export class OneWireSegment implements SlaveHost {
  readonly name: string;
  readonly stats = { resets: 0, slots: 0 };
  private readonly clock: () => number;
  private readonly slaves: SimSlave[] = [];
  private shorted = false;
  private cut = false;

  constructor(options: SegmentOptions = {}) {
    this.name = options.name ?? 'segment';
    this.clock = options.now ?? Date.now;
  }

  now(): number {
    return this.clock();
  }

  attach<T extends SimSlave>(device: T): T {
    if (!this.slaves.includes(device)) {
      this.slaves.push(device);
      device.attach(this);
    }
    return device;
  }

  detach(device: SimSlave): void {
    const i = this.slaves.indexOf(device);
    if (i >= 0) this.slaves.splice(i, 1);
    device.attach(null);
  }

  get devices(): readonly SimSlave[] {
    return this.slaves;
  }

  find(address: RomAddress): SimSlave | undefined {
    return this.slaves.find((d) => d.address === address);
  }

  /** Data line shorted to ground: resets report a short, every slot reads 0. */
  setShort(on: boolean): void {
    this.shorted = on;
  }

  get isShorted(): boolean {
    return this.shorted;
  }

  /** Cable cut between master and all devices: no presence, reads see the pull-up only. */
  setConnected(on: boolean): void {
    this.cut = !on;
  }

  get isConnected(): boolean {
    return !this.cut;
  }

  /** Devices that are plugged in and reachable. */
  reachable(): SimSlave[] {
    return this.cut || this.shorted ? [] : this.slaves.filter((d) => d.plugged);
  }

  reset(): ResetResult {
    this.stats.resets++;
    if (this.shorted) return 'short';
    if (this.cut) return 'none';
    let presence = false;
    for (const d of this.slaves) if (d.resetPulse()) presence = true;
    return presence ? 'presence' : 'none';
  }

  /** One time slot. The master writes `bit` (1 = release: write-1 or read slot); returns the sampled level. */
  slot(bit: Bit): Bit {
    this.stats.slots++;
    if (this.shorted) return 0;
    if (this.cut) return bit;
    let level: Bit = bit;
    if (bit === 1) for (const d of this.slaves) if (d.drive() === 0) level = 0;
    for (const d of this.slaves) d.sample(level);
    return level;
  }

  /** Eight slots, LSB first; returns what was sampled (a read is touchByte(0xff)). */
  touchByte(byte: number): number {
    let out = 0;
    for (let i = 0; i < 8; i++) out |= this.slot(((byte >> i) & 1) as Bit) << i;
    return out;
  }

  /** Search triplet as the DS2482 performs it: two read slots, then the chosen direction is written. */
  triplet(direction: Bit): { id: Bit; cmp: Bit; dir: Bit } {
    const id = this.slot(1);
    const cmp = this.slot(1);
    const dir: Bit = id === cmp ? (id === 1 ? 1 : direction) : id;
    this.slot(dir);
    return { id, cmp, dir };
  }
}
