// The I2C sensors of the machine (the sensor chips of drivers/i2c/chips.ts) behind one
// synchronous I2cSensorAccess. A block asking for a chip at a bus and address is what makes it
// polled (once a second, in the background, never awaited by the tick); devices nobody asked
// about for a while are dropped. Each bus has one transaction queue (drivers/i2c/queue.ts),
// shared with every other driver there, so the transfers of every chip on it go out one at a
// time. Any failed poll (CRC, NACK, stuck bus, power-on reset, thermocouple fault) makes the
// values null and is counted; the next poll sets the chip up again from its identity check.
import { I2C_SENSOR_CHIPS, i2cSensorChip } from '../../drivers/i2c/chips.js';
import { probeChips } from '../../drivers/i2c/probe.js';
import { queued, type QueuedI2cBus } from '../../drivers/i2c/queue.js';
import {
  errorCode,
  hex2,
  I2cSensorError,
  type I2cSensorDriver,
  type Measurement,
} from '../../drivers/i2c/sensor-common.js';
import type { I2cBus } from '../../drivers/i2c/types.js';
import type { Logger } from '../log.js';
import type { I2cSensorAccess, I2cSensorReading, I2cSensorRequest } from '../runtime/i2c-sensors.js';
import { HARDWARE_POLL_MS } from '../runtime/loop.js';

export const POLL_MS = 1000;
/** A reading older than this is not served (null, not connected). */
export const STALE_MS = 3000;
export const I2C_WANT_EXPIRY_MS = 10_000;

export interface FoundI2cSensor {
  bus: string;
  address: number;
  /** The chip's name in the registry. */
  chip: string;
}

interface Device {
  key: string;
  request: I2cSensorRequest;
  driver: I2cSensorDriver | null;
  inflight: boolean;
  nextAt: number;
  lastAsked: number;
  values: Measurement | null;
  at: number;
  errors: number;
  crcErrors: number;
  lastError: string | null;
  /** A poll has finished (good or not) since it was first asked for. */
  polled: boolean;
}

export function requestKey(r: I2cSensorRequest): string {
  return [r.bus, hex2(r.address), r.chip, r.channel ?? '', r.gain ?? '', r.thermocouple ?? ''].join('/');
}

export class I2cSensorHub implements I2cSensorAccess {
  private readonly queues = new Map<string, QueuedI2cBus>();
  private readonly opening = new Map<string, Promise<QueuedI2cBus | null>>();
  private readonly devices = new Map<string, Device>();
  private readonly claimed = new Map<string, FoundI2cSensor | { bus: string; address: number }>();
  private found: FoundI2cSensor[] = [];
  /** Polls of one chip (say two inputs of one ADC) run one after the other: a conversion is a write, a wait and reads. */
  private readonly chipTurns = new Map<string, Promise<void>>();
  private now = 0;
  private closed = false;

  constructor(
    private readonly log: Logger,
    /** Bus names discovery probes (the sim bus, or the configured / present /dev/i2c-N). */
    private readonly busNames: () => Promise<string[]>,
    private readonly openBus: (name: string) => Promise<I2cBus>,
    private readonly sleep?: (ms: number) => Promise<void>,
  ) {}

  /** Registers an already open bus through its queue (the one its other drivers use when it is one already). */
  addBus(bus: I2cBus): QueuedI2cBus {
    const q = queued(bus);
    this.queues.set(q.name ?? 'i2c', q);
    return q;
  }

  read(request: I2cSensorRequest, now: number): I2cSensorReading {
    const key = requestKey(request);
    let d = this.devices.get(key);
    if (!d) {
      d = {
        key,
        request: { ...request },
        driver: null,
        inflight: false,
        nextAt: 0,
        lastAsked: now,
        values: null,
        at: -Infinity,
        errors: 0,
        crcErrors: 0,
        lastError: null,
        polled: false,
      };
      this.devices.set(key, d);
    }
    d.lastAsked = Math.max(d.lastAsked, now);
    const fresh = d.values !== null && now - d.at <= STALE_MS;
    const v = fresh ? d.values! : {};
    return {
      connected: fresh,
      temperature: v.temperature ?? null,
      humidity: v.humidity ?? null,
      pressure: v.pressure ?? null,
      volts: v.volts ?? null,
      coldJunction: v.coldJunction ?? null,
      errors: d.errors,
      lastError: d.lastError,
      pending: !d.polled,
    };
  }

  /** When service() is next needed: the next poll due (soon again while one is running), else never. */
  nextServiceAt(now: number): number {
    let at = Infinity;
    for (const d of this.devices.values()) at = Math.min(at, d.inflight ? now + HARDWARE_POLL_MS : d.nextAt);
    return at;
  }

  /** The tick hook: starts the polls that are due and returns at once. */
  service(now: number): void {
    if (this.closed) return;
    this.now = now;
    for (const d of [...this.devices.values()]) {
      if (now - d.lastAsked > I2C_WANT_EXPIRY_MS) this.devices.delete(d.key);
      else if (!d.inflight && now >= d.nextAt) {
        d.inflight = true;
        d.nextAt = now + POLL_MS;
        const chip = `${d.request.bus}/${d.request.address}`;
        const turn = (this.chipTurns.get(chip) ?? Promise.resolve()).then(() => this.poll(d));
        const done = turn.finally(() => {
          d.inflight = false;
          if (this.chipTurns.get(chip) === done) this.chipTurns.delete(chip);
        });
        this.chipTurns.set(chip, done);
      }
    }
  }

  /** Resolves when no poll is running; for tests. */
  async idle(): Promise<void> {
    while ([...this.devices.values()].some((d) => d.inflight)) await new Promise((r) => setTimeout(r, 2));
  }

  private queue(name: string): Promise<QueuedI2cBus | null> {
    const q = this.queues.get(name);
    if (q) return Promise.resolve(q);
    let p = this.opening.get(name);
    if (!p) {
      p = this.openBus(name).then(
        (bus) => this.addBus(bus),
        (e) => {
          this.log.info(`I2C bus ${name}: ${(e as Error).message}`);
          return null;
        },
      );
      this.opening.set(name, p);
      void p.then((q) => q ?? this.opening.delete(name));
    }
    return p;
  }

  private makeDriver(bus: I2cBus, r: I2cSensorRequest): I2cSensorDriver {
    const chip = i2cSensorChip(r.chip);
    if (!chip)
      throw new I2cSensorError(
        'IDENTITY',
        `no I2C sensor chip '${r.chip}'; chips: ${I2C_SENSOR_CHIPS.map((c) => c.name).join(', ')}`,
      );
    return chip.create(bus, r.address, { sleep: this.sleep, thermocouple: r.thermocouple });
  }

  private async poll(d: Device): Promise<void> {
    const r = d.request;
    try {
      const q = await this.queue(r.bus);
      if (!q) throw new Error(`bus ${r.bus} cannot be opened`);
      if (!d.driver) {
        const driver = this.makeDriver(q, r);
        await driver.init();
        d.driver = driver;
      }
      const m = await d.driver.measure({ channel: r.channel, gain: r.gain });
      if (d.lastError !== null) this.log.info(`I2C ${r.chip} ${r.bus}/${hex2(r.address)} reads again`);
      d.values = m;
      d.at = this.now;
      d.lastError = null;
    } catch (e) {
      const code = errorCode(e);
      const text = `${code}: ${(e as Error).message}`;
      d.errors++;
      if (code === 'CRC') d.crcErrors++;
      else d.driver = null; // set the chip up again, from its identity check
      d.values = null;
      if (d.lastError !== text) this.log.warn(`I2C ${r.chip} ${r.bus}/${hex2(r.address)}: ${text}`);
      if (code === 'CLAIMED') this.claimed.set(`${r.bus}/${r.address}`, { bus: r.bus, address: r.address });
      d.lastError = text;
    } finally {
      d.polled = true;
    }
  }

  /** Read-only identity checks at the addresses these chips use, on every bus. Claimed addresses are reported, never forced. */
  async discover(): Promise<FoundI2cSensor[]> {
    const found: FoundI2cSensor[] = [];
    for (const name of await this.busNames()) {
      const q = await this.queue(name);
      if (!q) continue;
      let chips: Awaited<ReturnType<typeof probeChips>>;
      try {
        chips = await probeChips(q, { chips: I2C_SENSOR_CHIPS });
      } catch (e) {
        this.log.info(`I2C bus ${name}: sensor probe failed: ${(e as Error).message}`);
        continue;
      }
      for (const c of chips) {
        if (c.chip && c.status === 'found') found.push({ bus: name, address: c.address, chip: c.chip.name });
        else if (c.status === 'claimed') {
          this.claimed.set(`${name}/${c.address}`, { bus: name, address: c.address });
          this.log.info(`I2C ${name}/${hex2(c.address)} is claimed by a kernel driver; left alone`);
        }
      }
    }
    this.found = found;
    return found;
  }

  /** Polled chips, found chips and kernel-claimed addresses, for the i2c status section (i2c-discovery.ts). */
  status() {
    return {
      devices: [...this.devices.values()].map((d) => ({
        bus: d.request.bus,
        address: hex2(d.request.address),
        chip: d.request.chip,
        ...(d.request.channel !== undefined ? { channel: d.request.channel } : {}),
        connected: this.answers(d),
        errors: d.errors,
        crcErrors: d.crcErrors,
        lastError: d.lastError,
        kind: d.request.chip,
      })),
      found: this.found.map((f) => ({ ...f, address: hex2(f.address), kind: f.chip, status: 'found' as const })),
      claimed: [...this.claimed.values()].map((c) => ({ bus: c.bus, address: hex2(c.address) })),
    };
  }

  /** Chips a block asks for that do not answer (one entry per chip, not per ADC input). */
  missing(): Array<{ bus: string; address: string; kind: string; lastError: string | null }> {
    const out = new Map<string, { bus: string; address: string; kind: string; lastError: string | null }>();
    for (const d of this.devices.values()) {
      if (!this.answers(d))
        out.set(`${d.request.bus}/${d.request.address}`, {
          bus: d.request.bus,
          address: hex2(d.request.address),
          kind: d.request.chip,
          lastError: d.lastError,
        });
    }
    return [...out.values()];
  }

  /** Chips a block asks for that have not been polled yet: not known to be missing (start-up is a state). */
  pending(): Array<{ bus: string; address: number }> {
    return [...this.devices.values()]
      .filter((d) => !d.polled)
      .map((d) => ({ bus: d.request.bus, address: d.request.address }));
  }

  private answers(d: Device): boolean {
    return d.values !== null && this.now - d.at <= STALE_MS;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
    for (const q of this.queues.values()) await q.close().catch(() => undefined);
  }
}
