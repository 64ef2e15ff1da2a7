// The IO chips (the expanders and PWM drivers of drivers/i2c/chips.ts) on the I2C buses behind
// one synchronous I2cIoAccess. Blocks ask by bus name, address and chip; the hub polls each
// asked-for chip through its bus's transaction queue (never blocking a tick) with the chip's
// driver, which writes outputs only where the read-back differs from what was asked and reads
// them back again: a chip that stops answering is disconnected, one that lost its registers
// (power-on reset) is set up again and counted.
import type { I2cIoDriver, IoPollEvents, IoTarget } from '../../drivers/i2c/chip-def.js';
import { I2C_IO_CHIPS } from '../../drivers/i2c/chips.js';
import { probeChips, type FoundChip, type ProbeOptions } from '../../drivers/i2c/probe.js';
import { queued, type QueuedI2cBus } from '../../drivers/i2c/queue.js';
import type { I2cBus } from '../../drivers/i2c/types.js';
import type { Logger } from '../log.js';
import type { I2cIoAccess, I2cIoKind, I2cIoReading } from '../runtime/hardware.js';
import {
  chipCounters,
  hex,
  isTheBlocksChip,
  missingChips,
  newWant,
  pendingChips,
  wrongChipsOf,
  wrongChipText,
  type Want,
} from './i2c-io-want.js';

/** A chip is polled at most this often. */
export const I2C_POLL_MS = 100;
/** A chip nobody asked about for this long is made safe and no longer polled. */
export const I2C_WANT_EXPIRY_MS = 10_000;

const key = (bus: string, address: number) => `${bus}/${address}`;
const text = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0]!;

export interface I2cBusEntry {
  bus: QueuedI2cBus;
  found: FoundChip[];
  probeOptions: ProbeOptions;
}

export class I2cIoHub implements I2cIoAccess {
  private readonly buses = new Map<string, I2cBusEntry>();
  private readonly wants = new Map<string, Want>();
  private now = 0;
  private stopped = false;

  constructor(private readonly log: Logger) {}

  /** Adds a bus (wrapped in its transaction queue) and probes it. Returns the queue. */
  async addBus(i2c: I2cBus, probeOptions: ProbeOptions = {}): Promise<QueuedI2cBus> {
    const bus = queued(i2c);
    const name = bus.name ?? String(this.buses.size);
    const entry: I2cBusEntry = { bus, found: [], probeOptions: { ...probeOptions, chips: I2C_IO_CHIPS } };
    this.buses.set(name, entry);
    await this.probe(name, entry);
    return bus;
  }

  private async probe(name: string, entry: I2cBusEntry): Promise<void> {
    try {
      entry.found = await probeChips(entry.bus, entry.probeOptions);
    } catch (e) {
      this.log.info(`I2C bus ${name}: IO chip probe failed: ${text(e)}`);
      return;
    }
    for (const c of entry.found) {
      if (c.status === 'claimed') this.log.warn(`I2C bus ${name}: ${c.detail}`);
      else
        this.log.info(
          { bus: name, address: hex(c.address) },
          `I2C bus ${name}: ${c.chip?.name ?? 'unknown chip'} at ${hex(c.address)}${c.detail ? ` (${c.detail})` : ''}`,
        );
    }
  }

  /** Probes every bus again (blocks/discover). */
  async probeAll(): Promise<void> {
    for (const [name, entry] of this.buses) await this.probe(name, entry);
  }

  busNames(): string[] {
    return [...this.buses.keys()];
  }

  found(): Array<FoundChip & { bus: string }> {
    return [...this.buses].flatMap(([bus, e]) => e.found.map((c) => ({ ...c, bus })));
  }

  // ---- I2cIoAccess ---------------------------------------------------------------------

  io(bus: string, address: number, kind: I2cIoKind): I2cIoReading {
    const w = this.want(bus, address, kind);
    return {
      pins: w.pins,
      connected: w.connected,
      duties: w.readDuties.slice(),
      lastError: w.lastError,
      lost: w.lost,
    };
  }

  setOutputs(
    bus: string,
    address: number,
    kind: I2cIoKind,
    drive: number,
    levels: number,
    asked = ~0,
    active = drive,
  ): void {
    if (this.stopped) return;
    const w = this.want(bus, address, kind);
    // Only the asked channels change: two blocks on one chip (a backup holds them) each drive
    // their own channels, never undoing the other's.
    const keep = ~asked;
    w.drive = (w.drive & keep) | (drive & asked);
    w.levels = (w.levels & keep) | (levels & drive & asked);
    w.active = (w.active & keep) | (active & drive & asked);
    w.held &= ~asked;
  }

  setDuty(bus: string, address: number, kind: I2cIoKind, channel: number, duty: number): void {
    if (this.stopped) return;
    const w = this.want(bus, address, kind);
    if (channel < 1 || channel > w.duties.length) return;
    w.duties[channel - 1] = Math.min(100, Math.max(0, duty));
  }

  setFrequency(bus: string, address: number, kind: I2cIoKind, hz: number): void {
    if (this.stopped) return;
    this.want(bus, address, kind).hz = hz;
  }

  release(bus: string, address: number): void {
    const w = this.wants.get(key(bus, address));
    if (!w) return;
    this.wants.delete(key(bus, address));
    void this.makeSafe(w);
  }

  handOver(bus: string, address: number): void {
    const w = this.wants.get(key(bus, address));
    if (!w) return;
    // The driver stays (it knows what the chip holds): the next poll writes only what the new
    // owner's writers asked that the chip does not hold. Outputs lost to a reset (held) stay
    // held until their writers ask.
    w.drive = 0;
    w.levels = 0;
    w.active = 0;
    w.duties.fill(null);
    w.lastAsked = Math.max(w.lastAsked, this.now);
  }

  outputsOff(bus: string, address: number, outputs: number): void {
    const w = this.wants.get(key(bus, address));
    if (!w) return;
    w.drive &= ~outputs;
    w.levels &= ~outputs;
    w.active &= ~outputs;
    w.held &= ~outputs;
    w.duties.forEach((d, i) => {
      if (d !== null && outputs & (1 << i)) w.duties[i] = 0;
    });
  }

  private want(bus: string, address: number, kind: I2cIoKind): Want {
    let w = this.wants.get(key(bus, address));
    if (w && w.kind !== kind) {
      this.release(bus, address);
      w = undefined;
    }
    if (!w) {
      w = newWant(bus, address, kind, this.now);
      this.wants.set(key(bus, address), w);
    }
    w.lastAsked = Math.max(w.lastAsked, this.now);
    return w;
  }

  private chipOf(w: Want): I2cIoDriver | null {
    if (w.driver) return w.driver;
    if (!w.def) {
      w.lastError = `no IO chip '${w.kind}'; chips: ${I2C_IO_CHIPS.map((c) => c.name).join(', ')}`;
      return null;
    }
    const entry = this.buses.get(w.bus);
    if (!entry) {
      w.lastError = `no I2C bus '${w.bus}'; buses: ${this.busNames().join(', ') || 'none'}`;
      return null;
    }
    w.driver = w.def.create(entry.bus, w.address);
    return w.driver;
  }

  /**
   * What a poll tells the hub: counters, and one warning for a chip that lost what it held. An
   * expander's reset leaves the outputs it took in their power-on state (taken out of `target`
   * before the driver writes it), so a relay board's compressor is not started right after it
   * stopped: each channel's writer asks again when its constraints allow (IoArray.lostAt). A PWM
   * driver is set up again at once.
   */
  private events(w: Want, target: IoTarget): IoPollEvents {
    return {
      wrote: () => void w.counters.writes++,
      verifyError: () => void w.counters.verifyErrors++,
      reset: (what) => {
        w.counters.resets++;
        const expander = w.def?.kind === 'expander';
        // Only the outputs that were on wait for their writers; those that were off are written
        // back at once (on an active-high board the reset switched them on).
        const took = expander ? target.drive & w.active : 0;
        if (took) {
          // Outputs still held from an earlier reset stay held (a supply that bounces resets the
          // chip again before every writer has asked): their writers have not heard of it yet.
          w.held |= took;
          w.lost = { bits: w.held, at: this.now };
          target.drive &= ~took;
          target.levels &= ~took;
        }
        this.log.warn(
          `${w.kind} ${hex(w.address)} on I2C bus ${w.bus}: ${what} changed behind our back (power-on reset?); ${expander ? 'the outputs that were on stay in their power-on state until their blocks ask again, the others are written again' : 'writing again'}`,
        );
      },
    };
  }

  /** Whether the chip at the address is the block's (i2c-io-want.ts): nothing is written before. */
  private check(w: Want): Promise<boolean> {
    return isTheBlocksChip(w, this.buses.get(w.bus)?.bus);
  }

  // ---- polling ---------------------------------------------------------------------------

  /** When service() is next needed: every poll period while a chip is in use, else never. */
  nextServiceAt(now: number): number {
    return this.wants.size ? now + I2C_POLL_MS : Infinity;
  }

  /** The tick hook: starts a poll of every chip due one and resolves when they are done. */
  async service(now: number): Promise<void> {
    this.now = now;
    // Outputs held safe (control disabled, or stopping): a poll would write the asked outputs back.
    if (this.stopped) return;
    const running: Array<Promise<void>> = [];
    for (const w of [...this.wants.values()]) {
      if (now - w.lastAsked > I2C_WANT_EXPIRY_MS) {
        this.release(w.bus, w.address);
        continue;
      }
      if (!w.polling && now - w.lastPoll >= I2C_POLL_MS) {
        w.lastPoll = now;
        w.polling = this.poll(w).finally(() => {
          w.polling = null;
          w.polled = true;
        });
      }
      if (w.polling) running.push(w.polling);
    }
    await Promise.all(running);
  }

  private async poll(w: Want): Promise<void> {
    const chip = this.chipOf(w);
    if (!chip) {
      w.connected = false;
      return;
    }
    w.counters.polls++;
    try {
      if (!(await this.check(w))) {
        const error = `${hex(w.address)} on I2C bus ${w.bus} ${wrongChipText(w)}`;
        if (w.lastError !== error) this.log.warn(error);
        w.connected = false;
        w.lastError = error;
        return;
      }
      const target = { drive: w.drive & ~w.held, levels: w.levels & ~w.held, duties: w.duties, hz: w.hz };
      const r = await chip.poll(target, this.events(w, target));
      w.pins = r.pins;
      if (r.duties.length) w.readDuties = r.duties;
      if (!w.connected) this.log.info(`${w.kind} ${hex(w.address)} on I2C bus ${w.bus} answers`);
      w.connected = true;
      w.lastError = null;
    } catch (e) {
      w.counters.failures++;
      if (w.connected || w.lastError === null)
        this.log.warn(`${w.kind} ${hex(w.address)} on I2C bus ${w.bus}: ${text(e)}`);
      w.connected = false;
      w.lastError = text(e);
      w.checked = false;
      // Whatever the chip holds when it answers again is read back before it is trusted.
      chip.lost();
    }
  }

  // ---- safe state and status --------------------------------------------------------------

  /** The driver that puts the chip at the want's address safe: the chip's own when another chip is there. */
  private async safeDriver(w: Want): Promise<I2cIoDriver | null> {
    const chip = this.chipOf(w);
    if (!chip || (await this.check(w))) return chip;
    return w.wrongChip!.create(this.buses.get(w.bus)!.bus, w.address);
  }

  private async makeSafe(w: Want): Promise<void> {
    await w.polling;
    const chip = await this.safeDriver(w);
    if (!chip) return;
    try {
      await chip.safeState();
    } catch (e) {
      this.log.warn(`${w.kind} ${hex(w.address)} on I2C bus ${w.bus}: not made safe: ${text(e)}`);
    }
  }

  /** Every polled chip and every chip found by the probes back to its power-on (safe) state. Returns those made safe. */
  async safeState(): Promise<Array<{ bus: string; address: number; kind: I2cIoKind }>> {
    this.stopped = true;
    const targets = new Map<string, Want>(this.wants);
    for (const c of this.found()) {
      if (c.chip && c.status === 'found' && !targets.has(key(c.bus, c.address)))
        targets.set(key(c.bus, c.address), this.want(c.bus, c.address, c.chip.name));
    }
    const done: Array<{ bus: string; address: number; kind: I2cIoKind }> = [];
    for (const w of targets.values()) {
      await w.polling;
      const chip = await this.safeDriver(w);
      if (!chip) continue;
      try {
        await chip.safeState();
        done.push({ bus: w.bus, address: w.address, kind: w.kind });
        // What the chip holds now is its power-on state, on purpose: the driver forgot what it
        // held, so after resume() the next poll writes the asked outputs again, not as a reset.
        w.readDuties.fill(0);
        // An expander's outputs that were on stay in that state until their blocks ask again (as
        // after a power-on reset, events()), so a compressor's minOff counts from here.
        const on = w.def?.kind === 'expander' ? w.drive & w.active : 0;
        if (on) {
          w.held |= on;
          w.lost = { bits: w.held, at: this.now };
        }
      } catch (e) {
        this.log.warn(`${w.kind} ${hex(w.address)} on I2C bus ${w.bus}: not made safe: ${text(e)}`);
      }
    }
    return done;
  }

  /** Asked-for chips that do not answer (or sit on no known bus). */
  missing() {
    return missingChips(this.wants.values());
  }

  /**
   * Asked-for chips that another IO chip answers for (a PCF8574 where the block says MCP23017),
   * with what to say of each after its name: they are missing for another reason than a wire.
   */
  wrongChips() {
    return wrongChipsOf(this.wants.values());
  }

  /** Asked-for chips not polled yet since they were asked for: not known to be missing (start-up is a state). */
  pending() {
    return pendingChips(this.wants.values());
  }

  /** Polled chips with their counters, for the i2c status section (i2c-discovery.ts). */
  devices() {
    return chipCounters(this.wants.values());
  }

  /** Accept writes again after safeState(); the chips the blocks did not ask about while control was off are not let go for that. */
  resume(now = this.now): void {
    this.stopped = false;
    for (const w of this.wants.values()) w.lastAsked = Math.max(w.lastAsked, now);
  }

  async close(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.wants.values()].map((w) => w.polling));
    for (const e of this.buses.values()) await e.bus.close().catch(() => undefined);
  }
}
