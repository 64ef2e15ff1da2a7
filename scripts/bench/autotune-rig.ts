// One plant of the autotune bench with its control chain, in-process on a manual clock: the
// emulated plant (drivers/sim/plant.ts) heated and cooled through MockPins channels, read by a
// TempSensorMock (quantised like a DS18B20), and the chain the quick start builds, created
// through the block API. Time moves from one block's due time to the next (at most a second),
// so a day of control takes about a second.
import { ThermalPlant } from '../../drivers/sim/plant.js';
import { blockTypes } from '../../src/blocks/index.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { BlockRuntime } from '../../src/runtime/runtime.js';
import type { AnyBlock } from '../../src/runtime/types.js';
import type { Gains, PlantCase, SideSpec } from './autotune-plants.js';

const link = (id: string) => ({ __objtype: 'Link', id });
const MAX_STEP_MS = 1000;

export class Rig {
  readonly clock = new ManualClock(0);
  readonly runtime: BlockRuntime;
  readonly plant: ThermalPlant;
  private readonly pins: boolean[];
  private readonly probe: AnyBlock;

  constructor(
    readonly c: PlantCase,
    gains: { heat: Gains; cool: Gains | null } = { heat: c.heat.gains, cool: c.cool?.gains ?? null },
  ) {
    this.runtime = new BlockRuntime({
      serviceId: 'bench',
      version: 'bench',
      types: blockTypes,
      clock: this.clock,
      persistence: new MemoryPersistence(),
    });
    this.runtime.load();
    const create = (id: string, type: string, data: Record<string, unknown>) => this.runtime.create({ id, type, data });
    create('Pins', 'MockPins', {});
    this.pins = (this.runtime.find('Pins')!.state as { pins: boolean[] }).pins;
    this.plant = new ThermalPlant(c.plant, { heater: () => this.pins[0]!, cooler: () => this.pins[1]! });
    create('Probe', 'TempSensorMock', { setting: this.reading() });
    this.probe = this.runtime.find('Probe')!;
    create('Setpoint', 'SetpointSensorPair', {
      enabled: true,
      sensorId: link('Probe'),
      storedSetting: c.setpoint,
      filter: c.filter,
      filterThreshold: 5,
    });
    if (c.cool) create('Mutex', 'Mutex', {});
    this.side('Heat', c.heat, gains.heat);
    if (c.cool) this.side('Cool', c.cool, gains.cool!);
  }

  private side(name: string, s: SideSpec, g: Gains): void {
    const create = (id: string, type: string, data: Record<string, unknown>) => this.runtime.create({ id, type, data });
    const constraints: Record<string, unknown> = {};
    if (s.minOn) constraints.minOn = { enabled: true, duration: s.minOn };
    if (s.minOff) constraints.minOff = { enabled: true, duration: s.minOff };
    if (s.hold !== undefined) constraints.mutexed = { enabled: true, mutexId: link('Mutex'), extraHoldTime: s.hold };
    create(`${name} Actuator`, 'DigitalActuator', { hwDevice: link('Pins'), channel: s.channel, constraints });
    create(`${name} PWM`, 'ActuatorPwm', { enabled: true, actuatorId: link(`${name} Actuator`), period: s.pwmPeriod });
    create(`${name} PID`, 'Pid', {
      enabled: true,
      inputId: link('Setpoint'),
      outputId: link(`${name} PWM`),
      kp: g.kp,
      ti: g.ti,
      td: g.td,
    });
  }

  private reading(): number {
    return Math.round(this.plant.reading('beer') * 16) / 16;
  }

  data(id: string): Record<string, any> {
    return this.runtime.find(id)!.data as Record<string, any>;
  }

  patch(id: string, type: string, data: Record<string, unknown>): void {
    this.runtime.patch({ id, type, data });
  }

  /** Seconds since the start. */
  get time(): number {
    return this.clock.now() / 1000;
  }

  /** Run `seconds` of simulated time; `until` ends it early; `watch` sees every step. */
  run(seconds: number, watch?: (t: number) => void, until?: () => boolean): void {
    const end = this.clock.now() + seconds * 1000;
    while (this.clock.now() < end) {
      const now = this.clock.now();
      const next = Math.min(end, now + MAX_STEP_MS, Math.max(now + 1, this.runtime.nextDue()));
      this.plant.step((next - now) / 1000);
      this.clock.set(next);
      (this.probe.data as { setting: number }).setting = this.reading();
      this.runtime.tick(next);
      watch?.(next / 1000);
      if (until?.()) return;
    }
  }
}
