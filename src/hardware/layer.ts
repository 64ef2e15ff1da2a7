// The hardware of the app: every 1-Wire master (one BusPoller each, behind a OneWireHub), the
// configured GPIO lines, and in sim mode the emulation they run on. It gives blocks their
// synchronous access objects (hardware.services), the tick hook that refreshes the caches,
// discovery, a status section, and the safe state at stop.
import type { GpioLineConfig } from '../../drivers/gpio/types.js';
import type { I2cBus } from '../../drivers/i2c/types.js';
import type { BusPollerOptions } from '../../drivers/onewire/poller.js';
import type { OneWireBus } from '../../drivers/onewire/types.js';
import type { SimHardware } from '../../drivers/sim/sim-hardware.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Clock } from '../runtime/clock.js';
import type { Hardware, I2cIoKind } from '../runtime/hardware.js';
import type { Discoverer } from '../runtime/runtime.js';
import { oneWireDiscoverer } from './discovery.js';
import { i2cChipStates } from './i2c-chip-states.js';
import { i2cDiscoverer, i2cMissing, i2cStatus, sysfsClaimed } from './i2c-discovery.js';
import { I2cSensorHub } from './i2c-sensors.js';
import { openI2cBus } from '../../drivers/i2c/i2c-bus.js';
import { linuxGpioBackend } from './gpio-backend.js';
import { GpioLines } from './gpio-lines.js';
import { I2cQueues } from './i2c-queues.js';
import { I2cIoHub } from './i2c-io-hub.js';
import {
  i2cBusNumber,
  listI2cBuses,
  openI2cMasters,
  openSerialLinkMaster,
  openSerialMasters,
  openW1Masters,
  probeI2c,
} from './masters.js';
import { GARBLED_REASON, OneWireHub } from './onewire-hub.js';
import { settlesWithin } from './settles-within.js';
import { HARDWARE_POLL_MS } from '../runtime/loop.js';

/** Longest a tick waits for the buses; slower IO finishes in the background and later ticks see it. */
const SERVICE_WAIT_MS = 100;

/** The outputs a safeState() drove: GPIO lines (logical level) and 1-Wire IO modules switched off. */
export interface DrivenSafe {
  gpio: Array<{ name: string; line: number; active: boolean }>;
  io: Array<{ address: string; kind: string }>;
  /** 1-Wire buses whose read did not return in time: their IO modules are not known to be off. */
  unreached: string[];
  /** I2C IO chips back in their power-on state. */
  i2c: Array<{ bus: string; address: number; kind: I2cIoKind }>;
}

export interface HardwareLayerOptions {
  config: Pick<Config, 'hardware' | 'simConfig' | 'gpio' | 'gpioChipLabel' | 'w1Root' | 'i2cBuses' | 'serialPorts'>;
  clock: Clock;
  log: Logger;
  pollerOptions?: BusPollerOptions;
  /** How long a stop waits for a 1-Wire bus whose read has not returned (default HUNG_BUS_MS). */
  hungBusMs?: number;
}

/**
 * What a stop gives a 1-Wire bus to finish its read and switch its IO modules off: a kernel w1
 * round of a few sensors without therm_bulk_read takes seconds, and systemd kills a stop after
 * 15 s (the failsafe command then tries the bus again).
 */
export const HUNG_BUS_MS = 8000;

/** The hubs that own a bus each: their refreshes run side by side, one in flight per hub. */
type Hub = 'gpio' | 'i2cIo';

export class HardwareLayer {
  readonly mode: 'linux' | 'sim';
  readonly onewire: OneWireHub;
  readonly gpio: GpioLines;
  readonly i2cSensors: I2cSensorHub;
  readonly i2cIo: I2cIoHub;
  readonly sim: SimHardware | null;
  readonly hardware: Hardware;
  readonly discoverer: Discoverer;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly i2cBuses: I2cBus[] = [];
  private readonly i2cQueues: I2cQueues;
  /**
   * The refresh in progress of each hub. One per hub, not one for all: a GPIO relay's PWM must not
   * wait for a 1-Wire round, which on a kernel w1 bus converts sensor by sensor (seconds).
   */
  private readonly inflight: Record<Hub, Promise<void> | null> = { gpio: null, i2cIo: null };
  /**
   * The 1-Wire refreshes not finished: the hub is serviced on every tick, since it waits only for
   * the buses not still busy from an earlier one (a blocked kernel read holds its own bus only).
   */
  private readonly onewireRuns = new Set<Promise<void>>();
  private readonly hungBusMs: number;
  /** 1-Wire buses a stop found not answering: closing does not wait for them again. */
  private unreached: string[] = [];
  private closed = false;
  /** Set by the first service(): the blocks' writes reach the hardware from then on. */
  serviced = false;

  private constructor(opts: HardwareLayerOptions, sim: SimHardware | null, gpioLines: GpioLineConfig[]) {
    this.mode = opts.config.hardware;
    this.log = opts.log;
    this.i2cQueues = new I2cQueues(opts.log);
    this.clock = opts.clock;
    this.hungBusMs = opts.hungBusMs ?? HUNG_BUS_MS;
    this.sim = sim;
    // Reads are stamped when they finish: a kernel w1 read can block for its sensor's conversion.
    this.onewire = new OneWireHub(opts.log, { clock: () => opts.clock.now(), ...opts.pollerOptions });
    this.gpio = new GpioLines(gpioLines, opts.log);
    this.i2cIo = new I2cIoHub(opts.log);
    this.i2cSensors = sensorHub(opts, sim, this.i2cQueues);
    this.hardware = {
      services: { onewire: this.onewire, gpio: this.gpio, i2cSensors: this.i2cSensors, i2cIo: this.i2cIo },
    };
    const oneWire = oneWireDiscoverer(this.onewire);
    const i2c = i2cDiscoverer(this.i2cSensors, this.i2cIo);
    this.discoverer = async (existing) => [...(await oneWire(existing)), ...(await i2c(existing))];
  }

  /** Opens every bus and line there is, and starts the first search of every bus in the background. */
  static async create(opts: HardwareLayerOptions): Promise<HardwareLayer> {
    const { config, log } = opts;
    let sim: SimHardware | null = null;
    if (config.hardware === 'sim') {
      // Loaded only here: a controller on real hardware does not carry the emulation in memory.
      const { openSim } = await import('./sim-mode.js');
      sim = await openSim(config.simConfig, opts.clock);
      log.info(
        { devices: sim.devices().length, config: config.simConfig ?? 'built-in demo' },
        'hardware: emulated (sim)',
      );
    }
    const lines = sim && config.gpio.length === 0 ? sim.gpioLines : config.gpio;
    const layer = new HardwareLayer(opts, sim, lines);
    try {
      await layer.open(opts);
    } catch (e) {
      await layer.close();
      throw e;
    }
    return layer;
  }

  private async open({ config, log }: HardwareLayerOptions): Promise<void> {
    const sim = this.sim;
    const buses: OneWireBus[] = [];
    if (sim) {
      if (sim.w1Root) buses.push(...(await openW1Masters(sim.w1Root, log)));
      if (sim.i2c) {
        // One queue for the emulated bus: the bridges, the IO chips and the sensors all use it.
        const q = this.i2cQueues.of(sim.i2c);
        this.i2cSensors.addBus(q);
        buses.push(...(await probeI2c(await this.i2cIo.addBus(q), 'emulated I2C bus', log, true)));
      }
      buses.push(...(await openSerialMasters(sim.serialPorts, log)));
      for (const link of sim.serialLinks) {
        const bus = await openSerialLinkMaster(link, log);
        if (bus) buses.push(bus);
      }
    } else {
      buses.push(...(await openW1Masters(config.w1Root, log)));
      const useBus = async (i2c: I2cBus, n: number) => {
        await this.i2cIo.addBus(this.i2cQueues.of(i2c), { claimed: sysfsClaimed(n) });
        return true;
      };
      buses.push(...(await openI2cMasters(config.i2cBuses, log, (i2c) => this.i2cBuses.push(i2c), useBus)));
      buses.push(...(await openSerialMasters(config.serialPorts, log)));
    }
    for (const bus of buses) this.onewire.addBus(bus);
    if (buses.length === 0) log.info('no 1-Wire masters found');

    if (this.gpio.lines().length) {
      const backend = sim ? sim.gpio : await linuxGpioBackend(config.gpioChipLabel, log);
      if (backend) await this.gpio.open(backend);
      else this.gpio.unavailable('no GPIO backend on this machine');
    }
    void this.onewire.searchAll();
  }

  /**
   * When the tick hook is next needed. Hardware that is polled asks for it every
   * HARDWARE_POLL_MS; with nothing attached it is never due and the control loop sleeps until a
   * block is (a Pi without buses wakes only for its blocks).
   */
  nextServiceAt(now: number): number {
    if (this.closed) return Infinity;
    if (this.sim || this.busy().length) return now + HARDWARE_POLL_MS;
    return Math.min(
      this.onewire.nextServiceAt(now),
      this.gpio.nextServiceAt(now),
      this.i2cIo.nextServiceAt(now),
      this.i2cSensors.nextServiceAt(now),
    );
  }

  /** The tick hook: advance the emulation, then refresh every cache and flush queued writes. */
  readonly service = async (now: number): Promise<void> => {
    if (this.closed) return;
    this.serviced = true;
    this.sim?.step(now);
    this.i2cSensors.service(now);
    this.i2cQueues.reportDrops();
    // Every hub says "never" only when it has nothing attached and nothing queued: then the
    // refresh below would find nothing to do, and its wait costs a setImmediate on every step.
    if (this.nextServiceAt(now) === Infinity) return;
    this.startOneWire(now);
    this.start('gpio', () => this.gpio.service());
    this.start('i2cIo', () => this.i2cIo.service(now));
    // Hubs with nothing attached finish within microtasks: no timer then, since a timer cleared
    // before it fires still wakes node's loop when it was due (an idle Pi woke 100 ms after
    // every step for nothing).
    const inflight = Promise.all(this.busy()).then(() => undefined);
    const pending = await Promise.race([
      inflight.then(() => false),
      new Promise<boolean>((resolve) => setImmediate(resolve, true)),
    ]);
    if (!pending) return;
    let timer: NodeJS.Timeout | undefined;
    const wait = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SERVICE_WAIT_MS);
      timer.unref();
    });
    await Promise.race([inflight, wait]);
    clearTimeout(timer);
  };

  /** Starts a refresh of `hub` unless one is in progress. */
  private start(hub: Hub, refresh: () => Promise<void>): void {
    if (this.inflight[hub]) return;
    this.inflight[hub] = refresh()
      .catch((e) => this.log.error({ err: e, hub }, `hardware service failed (${hub})`))
      .finally(() => {
        this.inflight[hub] = null;
      });
  }

  private startOneWire(now: number): void {
    const run: Promise<void> = this.onewire
      .service(now)
      .catch((e) => this.log.error({ err: e, hub: 'onewire' }, 'hardware service failed (onewire)'))
      .finally(() => {
        this.onewireRuns.delete(run);
      });
    this.onewireRuns.add(run);
  }

  private busy(): Array<Promise<void>> {
    return [...Object.values(this.inflight).filter((p): p is Promise<void> => p !== null), ...this.onewireRuns];
  }

  /** Resolves when the refresh in progress (if any) has finished; for tests on a manual clock. */
  async idle(): Promise<void> {
    await Promise.all(this.busy());
    await this.i2cSensors.idle();
  }

  status(): Record<string, unknown> {
    return {
      mode: this.mode,
      onewire: { buses: this.onewire.buses(), missing: this.onewire.missing(), garbled: this.onewire.garbled() },
      gpio: this.gpio.status(),
      i2c: i2cStatus(this.i2cQueues.all(), this.i2cSensors, this.i2cIo),
      ...(this.sim ? { sim: { devices: this.sim.devices().length, plant: this.sim.plantStatus() } } : {}),
    };
  }

  /**
   * The devices blocks use that are gone, and those not known yet (their first search or read
   * since they were asked for is to come): 1-Wire devices by ROM address, I2C chips as
   * i2cChipKey names them; `reasons`: what a missing one is when that is known (another chip
   * answers; a 1-Wire device answers but its replies fail their CRC checks).
   */
  devices(): { missing: string[]; pending: string[]; reasons: Record<string, string> } {
    const i2c = i2cChipStates(this.i2cSensors, this.i2cIo);
    return {
      missing: [...this.onewire.missing(), ...i2c.missing],
      pending: [...this.onewire.pending(), ...i2c.pending],
      reasons: { ...Object.fromEntries(this.onewire.garbled().map((a) => [a, GARBLED_REASON])), ...i2c.reasons },
    };
  }

  /** A few numbers for the state message: what is attached and whether anything is wrong. */
  summary(): Record<string, unknown> {
    const buses = this.onewire.buses();
    const errors = (b: (typeof buses)[number]) => b.crcErrors + b.presenceErrors + b.shortErrors + b.readErrors;
    const lastError = buses.map((b) => b.lastError).find((e) => e !== null) ?? null;
    // A device that answers with garbled replies is on its bus: counted apart, not as missing.
    const garbled = this.onewire.garbled().length;
    return {
      mode: this.mode,
      buses: buses.length,
      devices: buses.reduce((n, b) => n + b.addresses.length, 0),
      missing: this.onewire.missing().length - garbled,
      garbled,
      errors: buses.reduce((n, b) => n + errors(b), 0),
      lastError,
      gpioLines: this.gpio.status().length,
      i2cMissing: i2cMissing(this.i2cSensors, this.i2cIo).length,
    };
  }

  /** Every output to its safe state: GPIO lines to their safeState, IO module latches off. Returns what was driven. */
  async safeState(): Promise<DrivenSafe> {
    // The quick buses first, each after its own refresh: a 1-Wire read that blocks does not keep
    // a heater's GPIO relay on.
    await this.inflight.gpio;
    const gpio = await this.gpio.safeState(this.clock.now());
    await this.inflight.i2cIo;
    const i2c = await this.i2cIo.safeState();
    this.sim?.step(this.clock.now());
    const { off: io, unreached } = await this.onewire.safeState(this.clock.now(), this.hungBusMs);
    if (unreached.length)
      this.log.error(
        { buses: unreached },
        `1-Wire ${unreached.join(', ')}: a read did not return within ${this.hungBusMs / 1000} s; its IO modules are NOT known to be off`,
      );
    this.unreached = unreached;
    this.sim?.step(this.clock.now());
    return { gpio, io, i2c, unreached };
  }

  /** Outputs follow their blocks again after safeState() (control enabled again); a closed layer stays closed. */
  resume(): void {
    if (this.closed) return;
    const now = this.clock.now();
    this.gpio.resume();
    this.onewire.resume(now);
    this.i2cIo.resume(now);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([this.inflight.gpio, this.inflight.i2cIo]);
    const onewire = this.onewireRuns.size ? Promise.all(this.onewireRuns) : null;
    if (onewire && !(await settlesWithin(onewire, this.unreached.length ? 0 : this.hungBusMs)))
      this.log.warn('closing while a 1-Wire read has not returned');
    await this.onewire.close();
    await this.i2cIo.close();
    await this.i2cSensors.close();
    for (const i2c of this.i2cBuses) await i2c.close().catch(() => undefined);
    await this.gpio.close();
    await this.sim?.close();
  }
}

/**
 * The I2C sensor hub: the sim bus in sim mode, else /dev/i2c-N opened on first use. `queues`
 * hands out the bus's one queue, so a bus the IO chips or DS2482 bridges already use is shared.
 */
function sensorHub({ config, log }: HardwareLayerOptions, sim: SimHardware | null, queues: I2cQueues): I2cSensorHub {
  if (sim) {
    return new I2cSensorHub(
      log,
      async () => (sim.i2c ? [sim.i2c.name] : []),
      async (name) => {
        throw new Error(`no emulated I2C bus named ${name} (the sim bus is ${sim.i2c?.name ?? 'absent'})`);
      },
    );
  }
  const names = async () =>
    (config.i2cBuses.length ? config.i2cBuses : await listI2cBuses())
      .map(i2cBusNumber)
      .filter((n) => n !== null)
      .map(String);
  return new I2cSensorHub(log, names, async (name) => {
    const n = i2cBusNumber(name);
    if (n === null) throw new Error(`'${name}' is not an I2C bus (use 1 for /dev/i2c-1)`);
    return queues.named(String(n)) ?? queues.of(await openI2cBus(n));
  });
}
