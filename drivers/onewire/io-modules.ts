// The IO modules (DS2408, DS2413) one BusPoller watches: their cached pins and latches, the
// latches asked for, and outputs a module lost by itself (a power dip). The poller calls
// pushWrites and poll under its bus lock, between temperature steps; nothing here holds the lock.
import { channelMask, oneWireFamily, type OneWireIoFamily } from './families.js';
import { OneWireError, type OneWireBus, type RomAddress } from './types.js';

/** An IO family's name (families.ts), e.g. `DS2408`. */
export type IoKind = string;

export interface IoState {
  /** Active polarity: bit set = pin low. */
  pins: number;
  /** Active polarity: bit set = output on. */
  latches: number;
  connected: boolean;
  /**
   * Its last read or write failed a CRC check: the module answered (it is on the bus), its
   * reply damaged on the way (noise, a long cable, a failing chip). False after a good one.
   */
  garbled: boolean;
  /** It has been read (or a read was tried) since it was watched. */
  polled: boolean;
  /** The latches to be written and re-asserted (active polarity); null before any were asked for. */
  desired: number | null;
  /** Outputs last found off that were on (a power-on reset of the module), and when. */
  lost: LostOutputs | null;
}

/** Outputs a module lost by itself: they stay off until asked for again (see poll). */
export interface LostOutputs {
  /** Active polarity: the outputs that were on and were found off. */
  bits: number;
  /** When that was found (the poller's clock). */
  at: number;
}

interface IoDevice extends IoState {
  address: RomAddress;
  kind: IoKind;
  family: OneWireIoFamily;
  pendingWrite: boolean;
  lastError: string | null;
}

/** Counts a failure and names it: the poller's counters and its `lastError`. */
export type RecordError = (e: unknown, context: string) => string;

export class IoModules {
  private readonly devices = new Map<RomAddress, IoDevice>();

  constructor(
    private readonly bus: OneWireBus,
    private readonly record: RecordError,
  ) {}

  get size(): number {
    return this.devices.size;
  }

  /** Whether `address` was newly watched (or its kind changed): then it is read on the next poll. */
  watch(address: RomAddress, kind: IoKind): boolean {
    const existing = this.devices.get(address);
    if (existing && existing.kind === kind) return false;
    const family = oneWireFamily(kind);
    if (family?.kind !== 'io') throw new Error(`watchIo: ${kind} is not a 1-Wire IO family`);
    this.devices.set(address, {
      address,
      kind,
      family,
      pins: 0,
      latches: 0,
      connected: false,
      garbled: false,
      polled: false,
      desired: null,
      pendingWrite: false,
      lost: null,
      lastError: null,
    });
    return true;
  }

  unwatch(address: RomAddress): void {
    this.devices.delete(address);
  }

  get watched(): Array<{ address: RomAddress; kind: IoKind }> {
    return [...this.devices.values()].map((d) => ({ address: d.address, kind: d.kind }));
  }

  /** Cached state from the last poll; null when not watched. `connected` is false until the first good read. */
  state(address: RomAddress): IoState | null {
    const d = this.devices.get(address);
    if (!d) return null;
    return {
      pins: d.pins,
      latches: d.latches,
      connected: d.connected,
      garbled: d.garbled,
      polled: d.polled,
      desired: d.desired,
      lost: d.lost,
    };
  }

  /** A latch write is queued: the poller services at once. */
  get writePending(): boolean {
    for (const d of this.devices.values()) if (d.pendingWrite) return true;
    return false;
  }

  setLatches(address: RomAddress, latches: number): void {
    const d = this.devices.get(address);
    if (!d) throw new Error(`setLatches: ${address} is not a watched IO module`);
    d.desired = latches & channelMask(d.family);
    d.pendingWrite = true;
  }

  /**
   * A module found on this bus after it was watched on another (moved to another port): what it
   * held there counts as held here until it is read, so outputs that were on and come back off
   * (it was unplugged, so powered up again) count as lost, as after a power dip, instead of being
   * switched straight back on.
   */
  adopt(address: RomAddress, from: IoState): void {
    const d = this.devices.get(address);
    if (!d) throw new Error(`adopt: ${address} is not a watched IO module`);
    d.latches = from.latches;
    d.lost = from.lost;
    if (from.desired !== null) {
      d.desired = from.desired & channelMask(d.family);
      d.pendingWrite = true;
    }
  }

  switchOff(address: RomAddress, now: number): void {
    const d = this.devices.get(address);
    if (!d) throw new Error(`switchOff: ${address} is not a watched IO module`);
    const on = (d.desired ?? 0) & d.latches;
    if (on) d.lost = { bits: on, at: now };
    d.desired = 0;
    d.pendingWrite = true;
  }

  async pushWrites(now: number): Promise<void> {
    for (const d of this.devices.values()) {
      if (!d.pendingWrite || d.desired === null) continue;
      d.pendingWrite = false;
      // A write that keeps outputs on reads first: a module that lost them since the last poll (a
      // power dip) must have them counted as lost, not switched on again with another channel's
      // change. A read that fails leaves the write to the next poll.
      if (d.desired & d.latches) {
        const confirmed = d.latches;
        if (!(await this.read(d)) || !takeLost(d, confirmed, now)) continue;
      }
      await this.write(d, d.desired);
    }
  }

  /** Reads every module, and writes back those whose latches differ from what is asked. */
  async poll(now: number): Promise<void> {
    for (const d of [...this.devices.values()]) {
      const confirmed = d.latches;
      if (!(await this.read(d))) continue;
      if (takeLost(d, confirmed, now)) await this.write(d, d.desired!);
    }
  }

  private async write(d: IoDevice, latches: number): Promise<boolean> {
    try {
      await d.family.writeIo(this.bus, d.address, latches);
      d.latches = latches;
    } catch (e) {
      d.connected = false;
      d.garbled = isCrc(e);
      d.polled = true;
      d.lastError = this.record(e, `${d.address} write`);
      return false;
    }
    // Refresh pins (and confirm the latches) right away.
    return this.read(d);
  }

  private async read(d: IoDevice): Promise<boolean> {
    try {
      const r = await d.family.readIo(this.bus, d.address);
      d.pins = r.pins;
      d.latches = r.latches;
      d.connected = true;
      d.garbled = false;
      d.polled = true;
      d.lastError = null;
      return true;
    } catch (e) {
      d.connected = false;
      d.garbled = isCrc(e);
      d.polled = true;
      d.lastError = this.record(e, `${d.address} read`);
      return false;
    }
  }
}

/**
 * After a read: outputs that were on (`confirmed`) and are off now were lost by the module (a
 * power-on reset): they stay off until asked for again, so a compressor is not started right
 * after it stopped and the actuator's minimum off time counts from now. Returns whether the
 * rest still differs from what is asked (random latches after a power cycle, a write that did
 * not take): to be written.
 */
function takeLost(d: IoDevice, confirmed: number, now: number): boolean {
  if (d.desired === null || d.latches === d.desired) return false;
  const lostBits = confirmed & d.desired & ~d.latches;
  if (lostBits) {
    d.desired &= ~lostBits;
    // Outputs lost before and not asked for since stay named (a supply that bounces): their
    // writers may not have heard of the first loss yet.
    d.lost = { bits: lostBits | ((d.lost?.bits ?? 0) & ~d.desired), at: now };
  }
  return d.latches !== d.desired;
}

/** A failure that is a reply arriving damaged (its CRC does not match), not one that did not come. */
export const isCrc = (e: unknown): boolean => e instanceof OneWireError && e.code === 'CRC';
