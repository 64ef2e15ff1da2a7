// Drives one OneWireBus for the block runtime. No timers inside: the owner calls
// `service(nowMs)` with a monotonic clock when `nextServiceAt` says (or more often), which also
// lets tests run it on a manual clock. Each temperature cycle is one bus-wide conversion followed, once the
// conversion time has passed, by one scratchpad read per watched sensor. IO modules are polled
// on their own cadence and latch writes go out on the next service call.
import { familyOf } from './families.js';
import { IoModules, isCrc, type IoKind, type IoState } from './io-modules.js';
import type { ThermocoupleFault } from './max31850.js';
import { SerialLock } from './serial-lock.js';
import { OneWireError, type OneWireBus, type RomAddress } from './types.js';

/** Beyond its conversion, what one sensor's read may take in a round (a kernel w1 read, retries), ms. */
const READ_ALLOWANCE_MS = 250;

export interface PollerCounters {
  crcErrors: number;
  presenceErrors: number;
  shortErrors: number;
  /** Every other failure: invalid data (85 degC power-on, all-zero), timeouts, I/O. */
  readErrors: number;
  /** Thermocouple converter reads that reported a fault (open circuit, short to GND or VCC). */
  thermocoupleFaults: number;
  searches: number;
}

export interface BusPollerOptions {
  /** Wait between Convert T and the reads. Default 750 ms (12-bit). */
  conversionMs?: number;
  /** Temperature cycle period. Default 1000 ms. */
  cycleMs?: number;
  /**
   * A temperature reads null once this much older than its next read was due: `staleMs` after
   * its read, plus the time a round of reads takes. Default 2000 ms.
   */
  staleMs?: number;
  /** IO module poll period. Default 1000 ms. */
  ioPollMs?: number;
  /**
   * The monotonic clock (ms) service() is called with, read again when each read finishes: a
   * kernel w1 read without bulk conversion blocks for its sensor's own conversion, so the reads
   * of one round take 750 ms a sensor. Default: the time service() was called with.
   */
  clock?: () => number;
}

export interface SensorInfo {
  address: RomAddress;
  /** Last valid reading, regardless of age. */
  lastValue: number | null;
  /** Service time of the last valid reading. */
  validAt: number | null;
  /** False after a failed read, true after a good one. */
  connected: boolean;
  /** Its last read failed a CRC check (it answered, its reply damaged); false after a good one. */
  garbled: boolean;
  /** A read of it (or the conversion before it) has been tried since it was watched, good or not. */
  tried: boolean;
  /** Service time the first try since it was watched ended (null: none yet): readingPending. */
  firstTriedAt: number | null;
  lastError: string | null;
  /** Thermocouple converters: cold-junction degC of the last good read, null otherwise. */
  coldJunction: number | null;
  /** Thermocouple converters: the fault of the last read that arrived intact, null when none. */
  fault: ThermocoupleFault | null;
  /** Thermocouple converters: reads that reported a fault. */
  faultCount: number;
}

export class BusPoller {
  readonly counters: PollerCounters = {
    crcErrors: 0,
    presenceErrors: 0,
    shortErrors: 0,
    readErrors: 0,
    thermocoupleFaults: 0,
    searches: 0,
  };
  lastError: string | null = null;
  /** Result of the last successful search(). */
  addresses: RomAddress[] = [];
  private readonly conversionMs: number;
  private readonly cycleMs: number;
  private readonly staleMs: number;
  private readonly ioPollMs: number;
  private readonly clock: (() => number) | null;
  private readonly sensors = new Map<RomAddress, SensorInfo>();
  private readonly ioModules: IoModules;
  private readonly lock = new SerialLock();
  private running: Promise<void> | null = null;
  private converting = false;
  /** The reads after a conversion are running (a kernel w1 read can take most of a second). */
  private reading = false;
  private convertStartedAt = 0;
  /** When the round of reads in progress began, and how long the last one took (ms). */
  private readStartedAt = 0;
  private lastReadSpan = 0;
  private nextCycleAt: number | null = null;
  private nextIoAt: number | null = null;

  constructor(
    readonly bus: OneWireBus,
    options: BusPollerOptions = {},
  ) {
    this.conversionMs = options.conversionMs ?? 750;
    this.cycleMs = options.cycleMs ?? 1000;
    this.staleMs = options.staleMs ?? 2000;
    this.ioPollMs = options.ioPollMs ?? 1000;
    this.clock = options.clock ?? null;
    this.ioModules = new IoModules(bus, (e, context) => this.record(e, context));
  }

  watchTemperature(address: RomAddress): void {
    if (!this.sensors.has(address)) {
      this.sensors.set(address, {
        address,
        lastValue: null,
        validAt: null,
        connected: false,
        garbled: false,
        tried: false,
        firstTriedAt: null,
        lastError: null,
        coldJunction: null,
        fault: null,
        faultCount: 0,
      });
    }
  }

  watchIo(address: RomAddress, kind: IoKind): void {
    // A newly watched module is read on the next service call.
    if (this.ioModules.watch(address, kind)) this.nextIoAt = null;
  }

  unwatch(address: RomAddress): void {
    this.sensors.delete(address);
    this.ioModules.unwatch(address);
  }

  get watchedTemperatures(): RomAddress[] {
    return [...this.sensors.keys()];
  }

  get watchedIo(): Array<{ address: RomAddress; kind: IoKind }> {
    return this.ioModules.watched;
  }

  /** degC, or null when there was no valid reading in the last `staleMs` (or the sensor is not watched). */
  temperature(address: RomAddress, now: number): number | null {
    const s = this.sensors.get(address);
    if (!s || s.validAt === null || now >= this.staleAt(s, now)) return null;
    return s.lastValue;
  }

  /**
   * Whether a sensor has no reading yet since it was watched (a start): not tried yet, or its
   * tries failing for less than staleMs since the first ended. A running sensor rides through a
   * missed read for staleMs on its last value; a start has none to ride on, so its first misses
   * wait as long before the sensor counts as reading nothing.
   */
  readingPending(address: RomAddress, now: number): boolean {
    const s = this.sensors.get(address);
    if (!s) return false;
    if (!s.tried || s.firstTriedAt === null) return true;
    return s.validAt === null && now < s.firstTriedAt + this.staleMs;
  }

  sensor(address: RomAddress): SensorInfo | null {
    const s = this.sensors.get(address);
    return s ? { ...s } : null;
  }

  /** Cached state from the last poll; null when not watched. `connected` is false until the first good read. */
  io(address: RomAddress): IoState | null {
    return this.ioModules.state(address);
  }

  /** Desired output latches (active polarity); written on the next service call and re-asserted if they drift. */
  /** Desired output latches (active polarity); written on the next service call and re-asserted if they drift. */
  setLatches(address: RomAddress, latches: number): void {
    this.ioModules.setLatches(address, latches);
  }

  /**
   * A watched module that was watched on another bus before (it moved): its state there (what it
   * held, what was asked, what it lost) carries over, so the first read here finds what it lost
   * on the way. See IoModules.adopt.
   */
  adoptIo(address: RomAddress, from: IoState): void {
    this.ioModules.adopt(address, from);
  }

  /**
   * Every output of the module off (a safe state); those that were on count as lost at `now`,
   * as after a power dip: they stay off until asked for again.
   */
  switchOff(address: RomAddress, now: number): void {
    this.ioModules.switchOff(address, now);
  }

  /** ROM search, run between polling steps (never interleaved with them). Counts failures, then rethrows. */
  search(): Promise<RomAddress[]> {
    return this.lock.run(async () => {
      this.counters.searches++;
      try {
        this.addresses = await this.bus.search();
        return this.addresses.slice();
      } catch (e) {
        this.record(e, `${this.bus.name} search`);
        throw e;
      }
    });
  }

  /** When the conversion in progress is done: one sum, so the time scheduled and the time checked are equal. */
  private get conversionEnd(): number {
    return this.convertStartedAt + this.conversionMs;
  }

  /**
   * When a sensor's last good reading goes stale (Infinity: it has none): staleMs after its
   * next read was due, which is a round of reads later (the last round's length, or the one in
   * progress when it takes longer). On a DS2482 a round takes milliseconds; on a kernel w1 bus
   * without bulk conversion each read converts by itself, 750 ms a sensor.
   */
  private staleAt(s: SensorInfo, now: number): number {
    if (s.validAt === null) return Infinity;
    const span = Math.max(this.lastReadSpan, this.reading ? now - this.readStartedAt : 0);
    // At most what a round of reads may take: a read that hangs (or a round slowed by retries)
    // must not keep the last values fresh, or control runs on a frozen temperature without alert.
    const longest = this.sensors.size * (this.conversionMs + READ_ALLOWANCE_MS);
    return s.validAt + this.staleMs + Math.min(span, longest);
  }

  /**
   * When service() next has something to do: a queued latch write or a newly watched module at
   * once, a conversion's end, the next temperature cycle or IO poll; never with nothing watched.
   * Calling it earlier is harmless (service() returns early), calling it later delays the reads.
   */
  nextServiceAt(now: number): number {
    let at = Infinity;
    if (this.ioModules.writePending) return now;
    if (this.ioModules.size > 0) at = this.nextIoAt ?? now;
    if (this.sensors.size > 0) at = Math.min(at, this.converting ? this.conversionEnd : (this.nextCycleAt ?? now));
    return at;
  }

  /**
   * When the cached reading of a watched sensor may next change: at the end of its next read, or
   * when it goes stale. Null while its reads are running (ask again soon) or when not watched; a
   * time not after `now` means a read is due.
   */
  nextChangeAt(address: RomAddress, now: number): number | null {
    const s = this.sensors.get(address);
    if (!s || this.reading) return null;
    const read = this.converting
      ? this.conversionEnd
      : this.nextCycleAt === null
        ? now
        : this.nextCycleAt + this.conversionMs;
    const stale = this.staleAt(s, now);
    return Math.min(read, stale > now ? stale : Infinity);
  }

  /** Advances polling to `now`. Never throws. Overlapping calls share the one in progress. */
  service(now: number): Promise<void> {
    if (this.running) return this.running;
    const run = this.lock
      .run(() => this.step(now))
      .catch((e) => {
        this.record(e, `${this.bus.name} service`);
      });
    this.running = run.finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private record(e: unknown, context: string): string {
    const code = e instanceof OneWireError ? e.code : null;
    if (code === 'CRC') this.counters.crcErrors++;
    else if (code === 'NO_PRESENCE') this.counters.presenceErrors++;
    else if (code === 'SHORT') this.counters.shortErrors++;
    else this.counters.readErrors++;
    const text = `${context}: ${e instanceof Error ? e.message : String(e)}`;
    this.lastError = text;
    return text;
  }

  private static advance(next: number | null, now: number, period: number): number {
    if (next === null) return now + period;
    const n = next + period;
    return n > now ? n : now + period;
  }

  private async step(now: number): Promise<void> {
    await this.ioModules.pushWrites(now);
    await this.pollIo(now);
    await this.temperatures(now);
  }

  private async pollIo(now: number): Promise<void> {
    if (this.ioModules.size === 0) return;
    if (this.nextIoAt !== null && now < this.nextIoAt) return;
    this.nextIoAt = BusPoller.advance(this.nextIoAt, now, this.ioPollMs);
    await this.ioModules.poll(now);
  }

  /** One read by the sensor's family. A fault leaves the value to go stale (null) and is named and counted; the chip did answer. */
  private async readSensor(s: SensorInfo): Promise<boolean> {
    const family = familyOf(s.address);
    if (family?.kind !== 'temperature')
      throw new OneWireError('INVALID_DATA', `${s.address}: not a temperature sensor`);
    const r = await family.read(this.bus, s.address);
    s.coldJunction = r.coldJunction ?? null;
    s.fault = (r.fault ?? null) as ThermocoupleFault | null;
    if (r.fault || r.value === null) {
      s.validAt = null;
      s.connected = false;
      s.garbled = false;
      s.faultCount++;
      this.counters.thermocoupleFaults++;
      s.lastError = `${s.address}: thermocouple ${r.fault ?? 'without a value'}`;
      this.lastError = s.lastError;
      return false;
    }
    s.lastValue = r.value;
    return true;
  }

  private async temperatures(now: number): Promise<void> {
    if (this.sensors.size === 0) {
      this.converting = false;
      return;
    }
    if (this.converting) {
      if (now < this.conversionEnd) return;
      this.converting = false;
      this.reading = true;
      try {
        await this.readAll(now);
      } finally {
        this.reading = false;
      }
      return;
    }
    if (this.nextCycleAt !== null && now < this.nextCycleAt) return;
    this.nextCycleAt = BusPoller.advance(this.nextCycleAt, now, this.cycleMs);
    try {
      await this.bus.convertAll();
      this.converting = true;
      this.convertStartedAt = now;
    } catch (e) {
      this.record(e, `${this.bus.name} convert`);
      // No reads follow a failed conversion (a short): the sensors have had their try.
      for (const s of this.sensors.values()) this.markTried(s, now);
    }
  }

  /** One scratchpad read per watched sensor, after a conversion; each stamped when it finished. */
  private async readAll(now: number): Promise<void> {
    const clock = () => this.clock?.() ?? now;
    this.readStartedAt = clock();
    for (const s of [...this.sensors.values()]) {
      try {
        if (!(await this.readSensor(s))) continue;
        s.validAt = clock();
        s.connected = true;
        s.garbled = false;
        s.lastError = null;
      } catch (e) {
        s.connected = false;
        s.garbled = isCrc(e);
        s.coldJunction = null;
        s.lastError = this.record(e, `${s.address} temperature`);
      } finally {
        // Only once the read is over: a block looking in meanwhile still sees the sensor as not read yet.
        this.markTried(s, clock());
      }
    }
    this.lastReadSpan = clock() - this.readStartedAt;
  }

  private markTried(s: SensorInfo, at: number): void {
    s.tried = true;
    s.firstTriedAt ??= at;
  }
}
