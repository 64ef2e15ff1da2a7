// MCP23017, PCF8574 and PCA9685 chips on the I2C buses behind one synchronous I2cIoAccess.
// Blocks ask by bus name and address; the hub polls each asked-for chip through its bus's
// transaction queue (never blocking a tick), writes outputs only where the read-back differs
// from what was asked, and reads them back again: a chip that stops answering is disconnected,
// one that lost its registers (power-on reset) is set up again and counted.
import { Mcp23017 } from '../../drivers/i2c/mcp23017.js';
import { Pca9685, prescaleFor } from '../../drivers/i2c/pca9685.js';
import { Pcf8574 } from '../../drivers/i2c/pcf8574.js';
import { probeI2cIo, type FoundI2cChip, type ProbeI2cIoOptions } from '../../drivers/i2c/io-probe.js';
import { queued, type QueuedI2cBus } from '../../drivers/i2c/queue.js';
import type { I2cBus } from '../../drivers/i2c/types.js';
import type { Logger } from '../log.js';
import type { I2cIoAccess, I2cIoKind, I2cIoReading } from '../runtime/hardware.js';

/** A chip is polled at most this often. */
export const I2C_POLL_MS = 100;
/** A chip nobody asked about for this long is made safe and no longer polled. */
export const I2C_WANT_EXPIRY_MS = 10_000;

type Chip = Mcp23017 | Pcf8574 | Pca9685;

interface Want {
  bus: string;
  address: number;
  kind: I2cIoKind;
  chip: Chip | null;
  lastAsked: number;
  lastPoll: number;
  polling: Promise<void> | null;
  drive: number;
  levels: number;
  /** PCA9685: asked duty per channel (null = never asked), the read-back, and the prescaler. */
  duties: Array<number | null>;
  readDuties: Array<number | null>;
  prescale: number;
  /** Set once outputs were written and read back as asked; a later mismatch is a reset or interference. */
  confirmed: boolean;
  /** MCP23017: directions and latches last read back as asked. */
  held: { iodir: number; olat: number } | null;
  /** PCF8574: the port byte last written. */
  written: number | null;
  connected: boolean;
  pins: number;
  lastError: string | null;
  counters: { polls: number; failures: number; writes: number; verifyErrors: number; resets: number };
}

const hex = (a: number) => `0x${a.toString(16).padStart(2, '0')}`;
const key = (bus: string, address: number) => `${bus}/${address}`;
const text = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0]!;

export interface I2cBusEntry {
  bus: QueuedI2cBus;
  found: FoundI2cChip[];
  probeOptions: ProbeI2cIoOptions;
}

export class I2cIoHub implements I2cIoAccess {
  private readonly buses = new Map<string, I2cBusEntry>();
  private readonly wants = new Map<string, Want>();
  private now = 0;
  private stopped = false;

  constructor(private readonly log: Logger) {}

  /** Adds a bus (wrapped in its transaction queue) and probes it. Returns the queue. */
  async addBus(i2c: I2cBus, probeOptions: ProbeI2cIoOptions = {}): Promise<QueuedI2cBus> {
    const bus = queued(i2c);
    const name = bus.name ?? String(this.buses.size);
    const entry: I2cBusEntry = { bus, found: [], probeOptions };
    this.buses.set(name, entry);
    await this.probe(name, entry);
    return bus;
  }

  private async probe(name: string, entry: I2cBusEntry): Promise<void> {
    try {
      entry.found = await probeI2cIo(entry.bus, entry.probeOptions);
    } catch (e) {
      this.log.info(`I2C bus ${name}: IO chip probe failed: ${text(e)}`);
      return;
    }
    for (const c of entry.found) {
      if (c.status === 'claimed') this.log.warn(`I2C bus ${name}: ${c.detail}`);
      else
        this.log.info(
          { bus: name, address: hex(c.address) },
          `I2C bus ${name}: ${c.kind ?? 'unknown chip'} at ${hex(c.address)}${c.detail ? ` (${c.detail})` : ''}`,
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

  found(): Array<FoundI2cChip & { bus: string }> {
    return [...this.buses].flatMap(([bus, e]) => e.found.map((c) => ({ ...c, bus })));
  }

  // ---- I2cIoAccess ---------------------------------------------------------------------

  io(bus: string, address: number, kind: I2cIoKind): I2cIoReading {
    const w = this.want(bus, address, kind);
    return { pins: w.pins, connected: w.connected, duties: w.readDuties.slice(), lastError: w.lastError };
  }

  setOutputs(bus: string, address: number, kind: 'mcp23017' | 'pcf8574', drive: number, levels: number): void {
    if (this.stopped) return;
    const w = this.want(bus, address, kind);
    w.drive = drive;
    w.levels = levels & drive;
  }

  setDuty(bus: string, address: number, channel: number, duty: number): void {
    if (this.stopped || channel < 1 || channel > 16) return;
    this.want(bus, address, 'pca9685').duties[channel - 1] = Math.min(100, Math.max(0, duty));
  }

  setFrequency(bus: string, address: number, hz: number): void {
    if (this.stopped) return;
    this.want(bus, address, 'pca9685').prescale = prescaleFor(hz);
  }

  release(bus: string, address: number): void {
    const w = this.wants.get(key(bus, address));
    if (!w) return;
    this.wants.delete(key(bus, address));
    void this.makeSafe(w);
  }

  private want(bus: string, address: number, kind: I2cIoKind): Want {
    let w = this.wants.get(key(bus, address));
    if (w && w.kind !== kind) {
      this.release(bus, address);
      w = undefined;
    }
    if (!w) {
      w = {
        bus,
        address,
        kind,
        chip: null,
        lastAsked: this.now,
        lastPoll: -Infinity,
        polling: null,
        drive: 0,
        levels: 0,
        duties: Array(16).fill(null),
        readDuties: Array(16).fill(null),
        prescale: prescaleFor(1000),
        confirmed: false,
        written: null,
        held: null,
        connected: false,
        pins: 0,
        lastError: null,
        counters: { polls: 0, failures: 0, writes: 0, verifyErrors: 0, resets: 0 },
      };
      this.wants.set(key(bus, address), w);
    }
    w.lastAsked = Math.max(w.lastAsked, this.now);
    return w;
  }

  private chipOf(w: Want): Chip | null {
    if (w.chip) return w.chip;
    const entry = this.buses.get(w.bus);
    if (!entry) {
      w.lastError = `no I2C bus '${w.bus}'; buses: ${this.busNames().join(', ') || 'none'}`;
      return null;
    }
    w.chip =
      w.kind === 'mcp23017'
        ? new Mcp23017(entry.bus, w.address)
        : w.kind === 'pcf8574'
          ? new Pcf8574(entry.bus, w.address)
          : new Pca9685(entry.bus, w.address);
    return w.chip;
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
      if (chip instanceof Mcp23017) await this.pollMcp(w, chip);
      else if (chip instanceof Pcf8574) await this.pollPcf(w, chip);
      else await this.pollPca(w, chip);
      if (!w.connected) this.log.info(`${w.kind} ${hex(w.address)} on I2C bus ${w.bus} answers`);
      w.connected = true;
      w.lastError = null;
    } catch (e) {
      w.counters.failures++;
      if (w.connected || w.lastError === null)
        this.log.warn(`${w.kind} ${hex(w.address)} on I2C bus ${w.bus}: ${text(e)}`);
      w.connected = false;
      w.lastError = text(e);
      // Whatever the chip holds when it answers again is read back before it is trusted.
      w.written = null;
    }
  }

  private mismatch(w: Want, what: string): void {
    w.counters.verifyErrors++;
    if (w.confirmed) {
      w.counters.resets++;
      this.log.warn(
        `${w.kind} ${hex(w.address)} on I2C bus ${w.bus}: ${what} changed behind our back (power-on reset?); writing again`,
      );
    }
    w.confirmed = false;
  }

  private async pollMcp(w: Want, chip: Mcp23017): Promise<void> {
    const iodir = ~w.drive & 0xffff;
    const olat = w.levels & w.drive;
    let st = await chip.read();
    // What we last read back as asked: a chip that no longer holds it was reset (or overwritten).
    const held = w.held;
    if (held && (st.iodir !== held.iodir || (st.olat & ~held.iodir & 0xffff) !== (held.olat & ~held.iodir & 0xffff)))
      this.mismatch(w, 'directions or latches');
    const differs = () => st.iodir !== iodir || (st.olat & w.drive) !== olat;
    if (differs()) {
      await chip.write(olat, iodir, st);
      w.counters.writes++;
      st = await chip.read();
      if (differs()) {
        w.counters.verifyErrors++;
        w.held = null;
        throw new Error(
          `outputs read back IODIR 0x${st.iodir.toString(16)} OLAT 0x${st.olat.toString(16)}, asked 0x${iodir.toString(16)} 0x${olat.toString(16)}`,
        );
      }
    }
    w.held = { iodir: st.iodir, olat: st.olat };
    w.confirmed = true;
    w.pins = st.gpio;
  }

  private async pollPcf(w: Want, chip: Pcf8574): Promise<void> {
    // Undriven pins stay at 1: the weak pull-up that makes them inputs.
    const port = (w.levels | ~w.drive) & 0xff;
    let pins = await chip.read();
    // A pin driven low must read low; one that reads high was reset (or never written).
    const wrong = () => pins & w.drive & ~w.levels & 0xff;
    if (w.written !== port || wrong()) {
      if (w.confirmed && w.written === port) this.mismatch(w, 'outputs');
      await chip.write(port);
      w.written = port;
      w.counters.writes++;
      pins = await chip.read();
      if (wrong()) {
        w.counters.verifyErrors++;
        throw new Error(`pins read back 0x${pins.toString(16)} after writing 0x${port.toString(16)}`);
      }
    }
    w.confirmed = true;
    w.pins = pins;
  }

  private async pollPca(w: Want, chip: Pca9685): Promise<void> {
    if (!(await chip.configured(w.prescale))) {
      if (w.confirmed) this.mismatch(w, 'MODE1/PRE_SCALE');
      await chip.configure(w.prescale);
      w.readDuties.fill(null);
      w.counters.writes++;
    }
    for (let ch = 1; ch <= 16; ch++) {
      const asked = w.duties[ch - 1];
      if (asked === null || asked === undefined || w.readDuties[ch - 1] === asked) continue;
      await chip.writeDuty(ch, asked);
      w.counters.writes++;
      const got = await chip.readDuty(ch);
      // 12 bits: the read-back is within one count of the asked duty.
      if (Math.abs(got - asked) > 100 / 4096) {
        w.counters.verifyErrors++;
        throw new Error(`channel ${ch} reads back ${got.toFixed(2)} %, asked ${asked} %`);
      }
      w.readDuties[ch - 1] = asked;
    }
    w.confirmed = true;
  }

  // ---- safe state and status --------------------------------------------------------------

  private async makeSafe(w: Want): Promise<void> {
    await w.polling;
    const chip = this.chipOf(w);
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
      if (c.kind && c.status === 'found' && !targets.has(key(c.bus, c.address)))
        targets.set(key(c.bus, c.address), this.want(c.bus, c.address, c.kind));
    }
    const done: Array<{ bus: string; address: number; kind: I2cIoKind }> = [];
    for (const w of targets.values()) {
      await w.polling;
      const chip = this.chipOf(w);
      if (!chip) continue;
      try {
        await chip.safeState();
        done.push({ bus: w.bus, address: w.address, kind: w.kind });
        // What the chip holds now is its power-on state, on purpose: after resume() the next poll
        // writes the asked outputs again, without taking the change for a reset.
        w.held = null;
        w.written = null;
        w.confirmed = false;
        w.readDuties.fill(0);
      } catch (e) {
        this.log.warn(`${w.kind} ${hex(w.address)} on I2C bus ${w.bus}: not made safe: ${text(e)}`);
      }
    }
    return done;
  }

  /** Asked-for chips that do not answer (or sit on no known bus). */
  missing(): Array<{ bus: string; address: string; kind: I2cIoKind; lastError: string | null }> {
    return [...this.wants.values()]
      .filter((w) => !w.connected)
      .map((w) => ({ bus: w.bus, address: hex(w.address), kind: w.kind, lastError: w.lastError }));
  }

  /** Polled chips with their counters, for the i2c status section (i2c-discovery.ts). */
  devices(): Array<Record<string, unknown>> {
    return [...this.wants.values()].map((w) => ({
      bus: w.bus,
      address: hex(w.address),
      kind: w.kind,
      connected: w.connected,
      lastError: w.lastError,
      ...w.counters,
    }));
  }

  /** Accept output writes again after safeState() (control enabled again). */
  resume(): void {
    this.stopped = false;
  }

  async close(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.wants.values()].map((w) => w.polling));
    for (const e of this.buses.values()) await e.bus.close().catch(() => undefined);
  }
}
