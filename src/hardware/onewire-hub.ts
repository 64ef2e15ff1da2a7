// Every 1-Wire bus of the machine behind one synchronous OneWireAccess. Blocks ask for devices
// by address; the hub finds the bus each address is on (from the searches), has that bus's
// poller watch it, and answers from the poller caches. Addresses nobody asks about for a while
// are released. While an asked-for address is missing, every bus is searched again every 30 s,
// so a device that was absent at start (or moved to another bus) is picked up when it appears.
import { isValidRom } from '../../drivers/onewire/address.js';
import { familyOf } from '../../drivers/onewire/families.js';
import type { IoKind } from '../../drivers/onewire/io-modules.js';
import { BusPoller, type BusPollerOptions } from '../../drivers/onewire/poller.js';
import type { OneWireBus } from '../../drivers/onewire/types.js';
import type { Logger } from '../log.js';
import type {
  OneWireAccess,
  OneWireBusInfo,
  OneWireIoKind,
  TemperatureReading,
  IoReading,
} from '../runtime/hardware.js';
import { HARDWARE_POLL_MS } from '../runtime/loop.js';
import { settlesWithin } from './settles-within.js';

export const RESEARCH_INTERVAL_MS = 30_000;
/**
 * What a device-missing alert says of a 1-Wire device that is on its bus but whose replies are
 * damaged (OneWireHub.garbled), in place of "is missing from its bus"; the alert's key is the same.
 */
export const GARBLED_REASON =
  'answers but its replies fail their checks (CRC): a noisy bus, a long cable or a failing chip';
/** An address nobody asked about for this long is no longer polled. */
export const WANT_EXPIRY_MS = 10_000;

type WantKind = 'temperature' | IoKind;

interface Want {
  address: string;
  kind: WantKind;
  poller: BusPoller | null;
  lastAsked: number;
  /** IO modules: latches asked for (active polarity), re-applied when the module is (re)bound. */
  latches: number | null;
}

/** Whether an address can be what a block asks it as: any temperature family, or the IO family of that name. */
function fits(address: string, kind: WantKind): boolean {
  const family = familyOf(address);
  return kind === 'temperature' ? family?.kind === 'temperature' : family?.kind === 'io' && family.name === kind;
}

export class OneWireHub implements OneWireAccess {
  private readonly pollers: BusPoller[] = [];
  private readonly wants = new Map<string, Want>();
  /** IO modules released with their outputs switched off on the next service; unwatched after it. */
  private releasing: Array<{ poller: BusPoller; address: string }> = [];
  /** Pollers whose service() has not returned yet. */
  private readonly inService = new Set<BusPoller>();
  private readonly searchErrors = new Map<BusPoller, string>();
  private now = 0;
  private lastSearchAt = -Infinity;
  /** Every bus has been searched once since the start (found or failed): an unbound address is missing, not pending. */
  private searchedOnce = false;
  private searching: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly log: Logger,
    private readonly pollerOptions: BusPollerOptions = {},
  ) {}

  addBus(bus: OneWireBus): BusPoller {
    const poller = new BusPoller(bus, this.pollerOptions);
    this.pollers.push(poller);
    return poller;
  }

  get busCount(): number {
    return this.pollers.length;
  }

  // ---- OneWireAccess ------------------------------------------------------------------

  temperature(address: string, now: number): TemperatureReading {
    const w = this.want(address, 'temperature', now);
    if (!w?.poller) return { value: null, bus: null, connected: false, pending: w !== null && !this.searchedOnce };
    const value = w.poller.temperature(address, now);
    // A failing bus-wide conversion (a short) skips the reads, which leaves the poller's flag set.
    const sensor = w.poller.sensor(address);
    const connected = value !== null && (sensor?.connected ?? false);
    const nextChangeAt = w.poller.nextChangeAt(address, now) ?? now + HARDWARE_POLL_MS;
    const pending = w.poller.readingPending(address, now);
    const family = familyOf(address);
    if (family?.kind !== 'temperature' || !family.thermocouple)
      return { value, bus: w.poller.bus.name, connected, nextChangeAt, pending };
    return {
      value,
      bus: w.poller.bus.name,
      connected,
      nextChangeAt,
      pending,
      coldJunction: connected ? (sensor?.coldJunction ?? null) : null,
      fault: sensor?.fault ?? null,
      faults: sensor?.faultCount ?? 0,
    };
  }

  io(address: string, kind: OneWireIoKind): IoReading | null {
    const w = this.want(address, kind, this.now);
    const st = w?.poller?.io(address);
    if (!w?.poller || !st) return null;
    return {
      pins: st.pins,
      latches: st.latches,
      connected: st.connected,
      bus: w.poller.bus.name,
      desired: st.desired,
      lost: st.lost,
    };
  }

  setLatches(address: string, kind: OneWireIoKind, latches: number): void {
    if (this.stopped) return;
    const w = this.want(address, kind, this.now);
    if (!w) return;
    w.latches = latches;
    if (w.poller) w.poller.setLatches(address, latches);
  }

  offUnlessAsked(address: string, kind: OneWireIoKind, keep: number): void {
    if (this.stopped) return;
    const w = this.want(address, kind, this.now);
    const st = w?.poller?.io(address) ?? null;
    if (!w || w.latches !== null || (st?.desired ?? null) !== null) return;
    this.setLatches(address, kind, st?.connected ? st.latches & keep : 0);
  }

  release(address: string): void {
    const w = this.wants.get(address);
    if (!w) return;
    this.wants.delete(address);
    this.unbind(w);
  }

  outputsOff(address: string, outputs: number): void {
    const w = this.wants.get(address);
    if (!w || w.kind === 'temperature') return;
    const held = w.poller?.io(address)?.desired ?? w.latches;
    if (w.latches !== null) w.latches &= ~outputs;
    if (held !== null && !this.stopped) w.poller?.setLatches(address, held & ~outputs);
  }

  buses(): OneWireBusInfo[] {
    return this.pollers.map((p) => busInfo(p));
  }

  bus(name: string): OneWireBusInfo | null {
    const p = this.pollers.find((x) => x.bus.name === name);
    return p ? busInfo(p) : null;
  }

  // ---- driving the pollers ------------------------------------------------------------

  /**
   * When service() is next needed: what the pollers ask for (a conversion's end, the next cycle,
   * a queued write), an asked-for address expiring, the next search while one is missing, and
   * every HARDWARE_POLL_MS while a search runs. A Pi with four sensors wakes about twice a
   * second for them, not ten times.
   */
  nextServiceAt(now: number): number {
    if (this.searching || this.releasing.length) return this.searching ? now + HARDWARE_POLL_MS : now;
    let at = Infinity;
    for (const p of this.pollers) at = Math.min(at, p.nextServiceAt(now));
    for (const w of this.wants.values()) at = Math.min(at, expiresAt(w) + 1);
    if (this.pollers.length && this.anyMissing()) at = Math.min(at, this.nextSearchAt());
    return Math.max(at, now);
  }

  /** The tick hook: binds wanted addresses, starts re-searches when needed, advances every poller. */
  async service(now: number): Promise<void> {
    this.now = now;
    for (const w of [...this.wants.values()]) {
      if (now > expiresAt(w)) this.release(w.address);
    }
    this.bindAll();
    if (!this.searching && now >= this.nextSearchAt() && this.anyMissing()) void this.searchAll();
    // Each bus on its own: one whose step has not returned (a kernel w1 read blocked) is not
    // waited for again, so the others' writes and reads go on (a relay board on a DS2482).
    const started = this.pollers.filter((p) => !this.inService.has(p));
    const releasing = this.releasing.filter((r) => started.includes(r.poller));
    this.releasing = this.releasing.filter((r) => !started.includes(r.poller));
    await Promise.all(
      started.map((p) => {
        this.inService.add(p);
        return p.service(now).finally(() => this.inService.delete(p));
      }),
    );
    for (const r of releasing) {
      // Still unwanted after its outputs went off: stop polling it.
      if (!this.wants.has(r.address)) r.poller.unwatch(r.address);
    }
  }

  /** Searches every bus (serialised with its polling); failures are counted by the poller and logged. */
  searchAll(): Promise<void> {
    if (this.searching) return this.searching;
    this.lastSearchAt = this.now;
    const run = Promise.all(this.pollers.map((p) => this.searchOne(p))).then(() => {
      this.searchedOnce = true;
      this.bindAll();
    });
    this.searching = run.finally(() => {
      this.searching = null;
    });
    return this.searching;
  }

  private async searchOne(p: BusPoller): Promise<void> {
    try {
      const found = await p.search();
      if (this.searchErrors.delete(p))
        this.log.info({ bus: p.bus.name, devices: found.length }, `1-Wire bus ${p.bus.name} searches again`);
      this.log.debug({ bus: p.bus.name, found }, `1-Wire bus ${p.bus.name}: ${found.length} device(s)`);
    } catch (e) {
      const text = e instanceof Error ? e.message : String(e);
      if (this.searchErrors.get(p) !== text)
        this.log.warn({ bus: p.bus.name }, `1-Wire search on ${p.bus.name} failed: ${text}`);
      this.searchErrors.set(p, text);
    }
  }

  /**
   * Every asked-for address that is not bound to a bus or not answering, once it has had its
   * chance: the first search of every bus, then its first read.
   */
  missing(): string[] {
    const out: string[] = [];
    for (const w of this.wants.values()) {
      if (this.isPending(w)) continue;
      if (!w.poller) out.push(w.address);
      else if (
        w.kind === 'temperature'
          ? w.poller.temperature(w.address, this.now) === null
          : !w.poller.io(w.address)?.connected
      )
        out.push(w.address);
    }
    return out;
  }

  /**
   * Of the missing addresses, those that are on their bus (its last search found them, their
   * reset is answered) but whose last read failed its CRC check: the device answers, its replies
   * arrive damaged (a noisy bus, a long cable, a failing chip). It is not gone.
   */
  garbled(): string[] {
    return this.missing().filter((address) => {
      const w = this.wants.get(address);
      if (!w?.poller?.addresses.includes(address)) return false;
      return w.kind === 'temperature'
        ? (w.poller.sensor(address)?.garbled ?? false)
        : (w.poller.io(address)?.garbled ?? false);
    });
  }

  /**
   * Asked-for addresses whose state is not known yet: the buses have not all been searched since
   * the start, or the device was found and has not been read since. Start-up is a state, not a
   * fault: nothing is missing until it had its chance (DESIGN §11).
   */
  pending(): string[] {
    return [...this.wants.values()].filter((w) => this.isPending(w)).map((w) => w.address);
  }

  private isPending(w: Want): boolean {
    if (!w.poller) return !this.searchedOnce;
    return w.kind === 'temperature' ? w.poller.readingPending(w.address, this.now) : !w.poller.io(w.address)?.polled;
  }

  /** When a missing device is searched for again: one sum for the wake-up and the check. */
  private nextSearchAt(): number {
    return this.lastSearchAt + RESEARCH_INTERVAL_MS;
  }

  private anyMissing(): boolean {
    return this.missing().length > 0;
  }

  /**
   * Switches every IO module on every bus off and waits until the writes went out, each bus for
   * at most `waitMs` (a bus whose read never returns cannot take a write). Returns the modules
   * switched off and the buses that did not get there in time.
   */
  async safeState(
    now = this.now,
    waitMs = Infinity,
  ): Promise<{ off: Array<{ address: string; kind: IoKind }>; unreached: string[] }> {
    this.stopped = true;
    const perBus = await Promise.all(
      this.pollers.map(async (p) => {
        const off: Array<{ address: string; kind: IoKind }> = [];
        for (const address of p.addresses) {
          const family = familyOf(address);
          if (family?.kind === 'io' && !p.watchedIo.some((x) => x.address === address)) p.watchIo(address, family.name);
        }
        for (const { address, kind } of p.watchedIo) {
          p.switchOff(address, now);
          off.push({ address, kind });
        }
        // A service already running may be past its write step, so run one more.
        const written = (async () => {
          await p.service(now);
          await p.service(now);
        })();
        return (await settlesWithin(written, waitMs)) ? { off, unreached: null } : { off: [], unreached: p.bus.name };
      }),
    );
    return {
      off: perBus.flatMap((b) => b.off),
      unreached: perBus.flatMap((b) => (b.unreached === null ? [] : [b.unreached])),
    };
  }

  /**
   * Accept latch writes again after safeState() (control enabled again). The outputs stay off
   * until their blocks ask again (they write from the latches the hardware holds, one-wire-io.ts),
   * so each actuator's constraints count the time they were off (a compressor's minOff). The
   * blocks did not ask while control was off: their addresses are not let go for that.
   */
  resume(now = this.now): void {
    this.stopped = false;
    for (const w of this.wants.values()) w.lastAsked = Math.max(w.lastAsked, now);
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.searching?.catch(() => undefined);
    for (const p of this.pollers) {
      try {
        await p.bus.close();
      } catch (e) {
        this.log.debug({ err: e, bus: p.bus.name }, 'closing 1-Wire bus failed');
      }
    }
  }

  // ---- wants and binding ----------------------------------------------------------------

  /** The want for an address, created on first ask; null for an address no device of `kind` can have. */
  private want(address: string, kind: WantKind, now: number): Want | null {
    if (!isValidRom(address) || !fits(address, kind)) return null;
    let w = this.wants.get(address);
    if (w && w.kind !== kind) {
      this.release(address);
      w = undefined;
    }
    if (!w) {
      w = { address, kind, poller: null, lastAsked: now, latches: null };
      this.wants.set(address, w);
      this.bind(w);
    }
    w.lastAsked = Math.max(w.lastAsked, now);
    return w;
  }

  private bindAll(): void {
    for (const w of this.wants.values()) this.bind(w);
  }

  /** Points a want at the bus whose last search found its address; a missing device stays where it was. */
  private bind(w: Want): void {
    if (w.poller && w.poller.addresses.includes(w.address)) return;
    const found = this.pollers.find((p) => p.addresses.includes(w.address));
    if (!found || found === w.poller) return;
    // An IO module that moved to another bus: what it held and lost there goes with it.
    const before = w.kind === 'temperature' ? null : (w.poller?.io(w.address) ?? null);
    this.unbind(w);
    w.poller = found;
    if (w.kind === 'temperature') found.watchTemperature(w.address);
    else {
      found.watchIo(w.address, w.kind);
      if (before) found.adoptIo(w.address, before);
      if (before?.desired == null && w.latches !== null) found.setLatches(w.address, w.latches);
    }
    this.log.debug({ address: w.address, bus: found.bus.name }, 'device bound');
  }

  private unbind(w: Want): void {
    const p = w.poller;
    if (!p) return;
    w.poller = null;
    if (w.kind === 'temperature') {
      p.unwatch(w.address);
      return;
    }
    // Outputs go off before the module is let go of.
    p.setLatches(w.address, 0);
    this.releasing.push({ poller: p, address: w.address });
  }
}

function busInfo(p: BusPoller): OneWireBusInfo {
  const stats = (p.bus as { stats?: { crcRetries?: number } }).stats;
  return {
    name: p.bus.name,
    kind: p.bus.kind,
    addresses: p.addresses.slice(),
    crcErrors: p.counters.crcErrors,
    crcRetries: stats?.crcRetries ?? 0,
    presenceErrors: p.counters.presenceErrors,
    shortErrors: p.counters.shortErrors,
    readErrors: p.counters.readErrors,
    searches: p.counters.searches,
    lastError: p.lastError,
  };
}

/** After this an address nobody asks about is released (one sum for the wake-up and the check). */
function expiresAt(w: Want): number {
  return w.lastAsked + WANT_EXPIRY_MS;
}
