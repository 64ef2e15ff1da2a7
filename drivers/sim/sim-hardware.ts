// Emulated hardware assembled from a sim config (sim-config.ts): an I2C bus with DS2482
// bridges, optionally a kernel w1 tree and DS2480B adapters, each with 1-Wire devices on its
// segments; GPIO lines; and a thermal plant whose heater and cooler follow DS2408/DS2413
// latches and GPIO lines, and whose temperatures drive the DS18B20 models. The real drivers
// run on top of it unchanged. step(now) advances everything from the caller's monotonic clock.
import type { SerialLink } from '../onewire/serial-link.js';
import type { SimGpioBackend } from '../gpio/sim-backend.js';
import type { GpioLineConfig } from '../gpio/types.js';
import { createDs2480bPty, Ds2480bSim, SimSerialLink, type Ds2480bPty } from './ds2480b-sim.js';
import { SimI2cBus } from './ds2482-sim.js';
import { attachI2cSensors, stepI2cSensors, type SimI2cSensorEntry } from './i2c-sensor-setup.js';
import { attachI2cIo, channelOn, type SimI2cIoEntry } from './i2c-io-sim.js';
import { OneWireSegment, SimDs18b20, type SimDs2408, type SimDs2413 } from './onewire-wire.js';
import { ThermalPlant } from './plant.js';
import { SimMotorValve } from './motor-valve.js';
import { loadEmulators, type Emulators } from './sim-emulators.js';
import { gpioDrives, gpioLineConfigs, simGpioBackend } from './sim-gpio.js';
import { parseSimConfig, type PlantActuator, type SimConfig, type SimDeviceSpec } from './sim-config.js';
import {
  applyFault,
  describeDevice,
  describeSegment,
  findDevice,
  findSegment,
  isTempModel,
  type SimDeviceEntry,
  type SimFault,
  type SimModel,
  type SimSegmentEntry,
} from './sim-devices.js';
import { W1Tree } from './w1-tree.js';

export interface SimHardwareOptions {
  /** Monotonic clock in ms: conversions and the plant run on it (the app's clock). */
  now: () => number;
  /** Minimum interval between re-renders of the emulated w1 tree. Default 250 ms. */
  w1RefreshMs?: number;
}

export const I2C_BUS_NAME = 'sim';

export class SimHardware {
  readonly config: SimConfig;
  readonly i2c: SimI2cBus | null;
  /** The emulated I2C sensors (on `i2c`). */
  readonly i2cSensors: SimI2cSensorEntry[] = [];
  /** Root of the emulated kernel w1 tree, or null when the config has none. */
  readonly w1Root: string | null;
  /** DS2480B adapters reached through a pseudo-terminal (open them with the serial driver). */
  readonly serialPorts: string[] = [];
  /** DS2480B adapters reached in-process. */
  readonly serialLinks: SerialLink[] = [];
  readonly gpio: SimGpioBackend;
  /** The GPIO lines the sim config declares (for the app to open). */
  readonly gpioLines: GpioLineConfig[];
  /** MCP23017/PCF8574/PCA9685 chips on the sim I2C bus. */
  readonly i2cIo: SimI2cIoEntry[];
  plant: ThermalPlant;
  private readonly now: () => number;
  private readonly w1RefreshMs: number;
  private readonly w1: W1Tree | null;
  private readonly ptys: Ds2480bPty[] = [];
  private readonly segmentList: SimSegmentEntry[] = [];
  private readonly deviceList: SimDeviceEntry[] = [];
  private readonly valveList: Array<{ device: SimDs2408; valve: SimMotorValve }> = [];
  private lastStep: number | null = null;
  private lastW1Refresh = -Infinity;
  /** Fermentation heat set through modifyPlant (the plant does not report it). */
  private fermentationW: number | null = null;

  private readonly emulators: Emulators;

  private constructor(config: SimConfig, options: SimHardwareOptions, emulators: Emulators) {
    this.config = config;
    this.emulators = emulators;
    this.now = options.now;
    this.w1RefreshMs = options.w1RefreshMs ?? 250;
    this.plant = this.makePlant(config.plant);

    if (config.ds2482.length || config.i2cSensors.length || config.i2cIo.length) {
      this.i2c = new SimI2cBus(I2C_BUS_NAME);
      this.i2cSensors = attachI2cSensors(this.i2c, config.i2cSensors, emulators.sensors, this.now);
      for (const chip of config.ds2482) {
        // Every channel the chip has exists, with or without devices in the config.
        const count = chip.variant === 'ds2482-800' ? 8 : 1;
        const segments = Array.from({ length: count }, (_, ch) =>
          this.segmentFor('ds2482', `ds2482-${I2C_BUS_NAME}-0x${chip.address.toString(16)}-ch${ch}`),
        );
        this.i2c.addDs2482({
          address: chip.address,
          variant: chip.variant,
          segments: segments.map((s) => s.segment),
          now: this.now,
        });
        chip.channels.forEach((specs, ch) => {
          for (const spec of specs) this.addDevice(spec, segments[ch]!);
        });
      }
    } else {
      this.i2c = null;
    }
    this.i2cIo = this.i2c ? attachI2cIo(this.i2c, config.i2cIo, emulators.io) : [];

    if (config.w1.length) {
      const masters = config.w1.map((specs, m) => {
        const entry = this.segmentFor('w1', `w1-w1_bus_master${m + 1}`);
        for (const spec of specs) this.addDevice(spec, entry);
        return entry.segment;
      });
      this.w1 = new W1Tree({ masters });
      this.w1Root = this.w1.root;
    } else {
      this.w1 = null;
      this.w1Root = null;
    }

    this.gpio = simGpioBackend(config.gpio);
    this.gpioLines = gpioLineConfigs(config.gpio);
  }

  /** Builds the emulation from a config checked by parseSimConfig (see fromJson for raw JSON). */
  static async create(config: SimConfig, options: SimHardwareOptions): Promise<SimHardware> {
    const parsed = config;
    const emulators = await loadEmulators(parsed);
    const hw = new SimHardware(parsed, options, emulators);
    try {
      for (const [i, adapter] of parsed.ds2480b.entries()) {
        const label = `sim-ds2480b-${i}`;
        const segment = new OneWireSegment({ name: label, now: options.now });
        const sim = new Ds2480bSim(segment);
        let path: string;
        if (adapter.pty) {
          const pty = await createDs2480bPty(sim);
          hw.ptys.push(pty);
          hw.serialPorts.push(pty.path);
          path = pty.path;
        } else {
          const link = new SimSerialLink(sim, label);
          hw.serialLinks.push(link);
          path = label;
        }
        const entry = hw.addSegment('ds2480b', `ds2480b-${path}`, segment);
        for (const spec of adapter.devices) hw.addDevice(spec, entry);
      }
    } catch (e) {
      await hw.close();
      throw e;
    }
    hw.step(options.now());
    return hw;
  }

  /** Validates raw JSON (throws SimConfigError naming the field), then builds. */
  static fromJson(json: unknown, options: SimHardwareOptions): Promise<SimHardware> {
    return SimHardware.create(parseSimConfig(json), options);
  }

  private makePlant(config: unknown): ThermalPlant {
    return new ThermalPlant(config, {
      heater: () => this.actuatorOn('heater'),
      cooler: () => this.actuatorOn('cooler'),
    });
  }

  private segmentFor(kind: SimSegmentEntry['kind'], name: string): SimSegmentEntry {
    return this.addSegment(kind, name, new OneWireSegment({ name, now: this.now }));
  }

  private addSegment(kind: SimSegmentEntry['kind'], name: string, segment: OneWireSegment): SimSegmentEntry {
    const entry = { name, kind, segment };
    this.segmentList.push(entry);
    return entry;
  }

  private addDevice(spec: SimDeviceSpec, bus: SimSegmentEntry): void {
    const temperature = spec.sense ? this.plant.reading(spec.sense) : spec.temperature;
    const model = this.emulators.oneWire.get(spec.type)!({ ...spec, temperature }) as SimModel;
    bus.segment.attach(model);
    if (!spec.plugged) model.unplug();
    model.corruptEvery(spec.faults.crcEvery);
    model.holdDataLow(spec.faults.dataLow);
    if (model instanceof SimDs18b20) model.stuckAtPowerOn = spec.faults.stuckAt85;
    else if (spec.leftOn && 'leftBy' in model) model.leftBy(spec.leftOn);
    this.deviceList.push({ spec, model, bus, forced: null });
    for (const v of spec.valves)
      this.valveList.push({
        device: model as SimDs2408,
        valve: new SimMotorValve({ start: v.start, travelSeconds: v.travelSeconds }),
      });
  }

  /** True when any output wired to `role` is on: a plugged IO module's latch or a GPIO line. */
  actuatorOn(role: PlantActuator): boolean {
    for (const d of this.deviceList) {
      if (isTempModel(d.model) || !d.model.plugged || !d.bus.segment.isConnected) continue;
      const on = (d.model as SimDs2408 | SimDs2413).activeOutputs();
      for (const [ch, r] of Object.entries(d.spec.outputs)) if (r === role && on & (1 << (Number(ch) - 1))) return true;
    }
    for (const e of this.i2cIo) {
      for (const [ch, r] of Object.entries(e.spec.outputs)) if (r === role && channelOn(e, Number(ch))) return true;
    }
    return gpioDrives(this.config.gpio, this.gpio, role);
  }

  /** Advances the plant to `now` (ms), feeds its temperatures to the sensors, re-renders the w1 tree. */
  step(now: number): void {
    if (this.lastStep !== null && now > this.lastStep) {
      const dt = (now - this.lastStep) / 1000;
      this.plant.step(dt);
      this.stepValves(dt);
    }
    if (this.lastStep === null || now > this.lastStep) this.lastStep = now;
    for (const d of this.deviceList) {
      if (!isTempModel(d.model)) continue;
      d.model.setTemperature(d.forced ?? (d.spec.sense ? this.plant.reading(d.spec.sense) : d.spec.temperature));
    }
    stepI2cSensors(this.i2cSensors, (node) => this.plant.reading(node));
    if (this.w1 && now - this.lastW1Refresh >= this.w1RefreshMs) {
      this.lastW1Refresh = now;
      this.w1.refresh();
    }
  }

  /** Motor valves move under their DS2408's latches and pull its end switch pins low. */
  private stepValves(dt: number): void {
    const low = new Map<SimDs2408, number>();
    for (const { device, valve } of this.valveList) {
      if (device.plugged) valve.step(dt, device.activeOutputs());
      low.set(device, (low.get(device) ?? 0) | valve.switchesLow());
    }
    for (const [device, mask] of low) device.setExternalLow(mask);
  }

  valves(): Array<{ device: SimDs2408; valve: SimMotorValve }> {
    return this.valveList.slice();
  }

  // ---- inspection and control (the sim REST endpoints use these) ----------------------

  devices(): SimDeviceEntry[] {
    return this.deviceList.slice();
  }

  segments(): SimSegmentEntry[] {
    return this.segmentList.slice();
  }

  /** A device by name, address (16 hex digits) or kernel name (28-...). */
  device(key: string): SimDeviceEntry {
    return findDevice(this.deviceList, key);
  }

  segment(name: string): SimSegmentEntry {
    return findSegment(this.segmentList, name);
  }

  plug(key: string, plugged: boolean): SimDeviceEntry {
    const d = this.device(key);
    if (plugged) d.model.plug();
    else d.model.unplug();
    return d;
  }

  /** Force a DS18B20's or MAX31850's temperature, or give it back to the plant with null. */
  setTemperature(key: string, degC: number | null): SimDeviceEntry {
    const d = this.device(key);
    if (!isTempModel(d.model)) throw new RangeError(`'${d.spec.name}' is a ${d.spec.type}, not a temperature sensor`);
    d.forced = degC;
    this.step(this.now());
    return d;
  }

  /** Injects a fault into a device (sim-devices.ts names them). */
  injectFault(key: string, fault: SimFault, count = 1): SimDeviceEntry {
    const d = this.device(key);
    applyFault(d, fault, count);
    return d;
  }

  /** Short the bus data line to ground (or release it). */
  setShort(bus: string, on: boolean): SimSegmentEntry {
    const s = this.segment(bus);
    s.segment.setShort(on);
    return s;
  }

  /** Cut the cable between the master and every device (or mend it). */
  setCut(bus: string, cut: boolean): SimSegmentEntry {
    const s = this.segment(bus);
    s.segment.setConnected(!cut);
    return s;
  }

  /** Removes every injected device and bus fault and releases forced temperatures (the plugged state stays). */
  clearFaults(): void {
    for (const d of this.deviceList) {
      this.injectFault(d.spec.name, 'clear');
      if (d.forced !== null) this.setTemperature(d.spec.name, null);
    }
    for (const s of this.segmentList) {
      s.segment.setShort(false);
      s.segment.setConnected(true);
    }
  }

  /** Plant settings that can change while running. Setting beer or air restarts the plant from those temperatures. */
  modifyPlant(change: { ambient?: number; fermentationW?: number; beer?: number; air?: number }): void {
    this.step(this.now());
    if (change.beer !== undefined || change.air !== undefined) {
      const s = this.plant.state();
      const ambient = change.ambient ?? s.ambient;
      const fermentationW = change.fermentationW ?? this.plantFermentationW();
      this.plant = this.makePlant({
        ...this.plant.config,
        ambient,
        fermentationW,
        initial: { beer: change.beer ?? s.beer, air: change.air ?? s.air },
      });
    } else {
      if (change.ambient !== undefined) this.plant.setAmbient(change.ambient);
      if (change.fermentationW !== undefined) this.plant.setFermentationHeat(change.fermentationW);
    }
    this.fermentationW = change.fermentationW ?? this.fermentationW;
    this.step(this.now());
  }

  private plantFermentationW(): number {
    return this.fermentationW ?? this.plant.config.fermentationW;
  }

  plantStatus(): {
    time: number;
    beer: number;
    air: number;
    ambient: number;
    heater: number;
    cooler: number;
    fermentationW: number;
    heaterOn: boolean;
    coolerOn: boolean;
  } {
    return {
      ...this.plant.state(),
      fermentationW: this.plantFermentationW(),
      heaterOn: this.actuatorOn('heater'),
      coolerOn: this.actuatorOn('cooler'),
    };
  }

  describeDevice(d: SimDeviceEntry): Record<string, unknown> {
    return describeDevice(d);
  }

  describeSegment(s: SimSegmentEntry): Record<string, unknown> {
    return describeSegment(s, this.deviceList);
  }

  async close(): Promise<void> {
    this.w1?.close();
    for (const p of this.ptys.splice(0)) await p.close().catch(() => undefined);
    for (const l of this.serialLinks) await l.close().catch(() => undefined);
    await this.gpio.close();
  }
}
