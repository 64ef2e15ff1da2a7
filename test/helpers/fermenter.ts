// A fermenter in a fridge, emulated: the shared thermal plant (drivers/sim/plant.ts) coupled to
// a block runtime on a manual clock. The beer probe is a test-only block type whose value the
// plant writes every tick (quantised to 1/16 degC like a DS18B20); heater and cooler are read
// back from MockPins channels 1 and 2. The control chain is created with the same JSON users
// send: beer probe -> beer setpoint -> heat PID (+Kp) and cool PID (-Kp) -> PWMs -> digital
// actuators on MockPins, interlocked by a Mutex, the cooler with minimum on/off times.
import { f } from '../../src/codec/fields.js';
import type { ManualClock } from '../../src/runtime/clock.js';
import { runFor } from '../../src/runtime/loop.js';
import type { MemoryPersistence } from '../../src/runtime/persistence.js';
import type { BlockRuntime } from '../../src/runtime/runtime.js';
import { defineBlock, type AnyBlock } from '../../src/runtime/types.js';
import { ThermalPlant } from '../../drivers/sim/plant.js';
import { testRuntime } from './runtime.js';

/** A temperature sensor whose value the test writes directly. */
export const PlantProbe = defineBlock({
  type: 'PlantProbe',
  role: 'sensor',
  fields: { value: f.temp({ readonly: true, logged: true }) },
  implements: ['TempSensorInterface'],
  description: 'test-only: a probe in the emulated plant',
});

export interface Tuning {
  kp: number;
  ti: number;
  td: number;
}

export interface FermenterOptions {
  /** Plant config (drivers/sim/plant-config.ts); defaults: 20 degC room, beer and air. */
  plant?: Record<string, unknown>;
  setpoint: number;
  heat?: Tuning & { period: number };
  cool?: Tuning & { period: number; minOn: number; minOff: number };
  /** Filter of the beer setpoint (FilterChoice name). */
  filter?: string;
  /** Mutex hold after either actuator switched off, s. */
  mutexHold?: number;
  /** Scheduler step of the manual clock, ms. */
  stepMs?: number;
  persistence?: MemoryPersistence;
  /** What the probe block measures (default the beer) and its id (default 'Beer Sensor'). */
  probeOf?: 'beer' | 'air';
  probeId?: string;
  /** The setpoint block `sample()` reports (default 'Beer Setpoint'). */
  setpointId?: string;
}

/**
 * Tuned on this plant (20 L beer in a 100 W / 150 W fridge): the beer follows the air with a
 * time constant of hours, so both PIDs act on the beer directly with a strong derivative.
 */
export const DEFAULT_HEAT: Tuning & { period: number } = { kp: 60, ti: 2 * 3600, td: 900, period: 10 };
export const DEFAULT_COOL: Tuning & { period: number; minOn: number; minOff: number } = {
  kp: -60,
  ti: 3600,
  td: 1500,
  period: 10 * 60,
  minOn: 60,
  minOff: 5 * 60,
};
export const DEFAULT_MUTEX_HOLD = 10 * 60;

export interface Sample {
  /** Seconds since the start of the run. */
  t: number;
  beer: number;
  air: number;
  setting: number | null;
  heater: boolean;
  cooler: boolean;
}

export class Fermenter {
  readonly clock: ManualClock;
  readonly persistence: MemoryPersistence;
  readonly runtime: BlockRuntime;
  readonly plant: ThermalPlant;
  readonly stepMs: number;
  probeConnected = true;
  private lastNow = 0;

  constructor(readonly opts: FermenterOptions) {
    this.stepMs = opts.stepMs ?? 500;
    ({
      runtime: this.runtime,
      clock: this.clock,
      persistence: this.persistence,
    } = testRuntime({ extraTypes: [PlantProbe], persistence: opts.persistence }));
    this.plant = new ThermalPlant(opts.plant ?? {}, { heater: () => this.heaterOn, cooler: () => this.coolerOn });
    this.writeProbe();
  }

  /** Create the control chain through the block API. */
  build(): this {
    const o = this.opts;
    const heat = o.heat ?? DEFAULT_HEAT;
    const cool = o.cool ?? DEFAULT_COOL;
    const hold = o.mutexHold ?? DEFAULT_MUTEX_HOLD;
    const link = (id: string) => ({ __objtype: 'Link', id });
    const create = (id: string, type: string, data: Record<string, unknown>) => this.runtime.create({ id, type, data });
    create('Pins', 'MockPins', {});
    create('Mutex', 'Mutex', {});
    create('Beer Sensor', 'PlantProbe', {});
    this.writeProbe();
    create('Beer Setpoint', 'SetpointSensorPair', {
      sensorId: link('Beer Sensor'),
      storedSetting: { __objtype: 'Quantity', unit: 'degC', value: o.setpoint },
      filter: o.filter ?? 'FILTER_45s',
      filterThreshold: { __objtype: 'Quantity', unit: 'delta_degC', value: 5 },
      enabled: true,
    });
    const mutexed = {
      mutexId: link('Mutex'),
      extraHoldTime: { __objtype: 'Quantity', unit: 's', value: hold },
      enabled: true,
    };
    create('Heat Actuator', 'DigitalActuator', { hwDevice: link('Pins'), channel: 1, constraints: { mutexed } });
    create('Cool Actuator', 'DigitalActuator', {
      hwDevice: link('Pins'),
      channel: 2,
      constraints: {
        minOff: { duration: { __objtype: 'Quantity', unit: 's', value: cool.minOff }, enabled: true },
        minOn: { duration: { __objtype: 'Quantity', unit: 's', value: cool.minOn }, enabled: true },
        mutexed,
      },
    });
    create('Heat PWM', 'ActuatorPwm', {
      actuatorId: link('Heat Actuator'),
      period: { __objtype: 'Quantity', unit: 's', value: heat.period },
    });
    create('Cool PWM', 'ActuatorPwm', {
      actuatorId: link('Cool Actuator'),
      period: { __objtype: 'Quantity', unit: 's', value: cool.period },
    });
    const pid = (t: Tuning, output: string) => ({
      inputId: link('Beer Setpoint'),
      outputId: link(output),
      kp: { __objtype: 'Quantity', unit: '1/degC', value: t.kp },
      ti: { __objtype: 'Quantity', unit: 's', value: t.ti },
      td: { __objtype: 'Quantity', unit: 's', value: t.td },
      enabled: true,
    });
    create('Heat PID', 'Pid', pid(heat, 'Heat PWM'));
    create('Cool PID', 'Pid', pid(cool, 'Cool PWM'));
    return this;
  }

  block(id: string): AnyBlock {
    const b = this.runtime.find(id);
    if (!b) throw new Error(`no block '${id}'`);
    return b;
  }

  data(id: string): Record<string, any> {
    return this.block(id).data as Record<string, any>;
  }

  get pins(): boolean[] {
    const b = this.runtime.find('Pins');
    return b ? (b.state as { pins: boolean[] }).pins : [];
  }

  get heaterOn(): boolean {
    return this.pins[0] ?? false;
  }

  get coolerOn(): boolean {
    return this.pins[1] ?? false;
  }

  setSetpoint(degC: number): void {
    this.runtime.patch({ id: 'Beer Setpoint', type: 'SetpointSensorPair', data: { storedSetting: degC } });
  }

  /**
   * Run for `seconds` of simulated time. `observe` sees the state after every scheduler tick
   * (it is called before the plant advances to the next one).
   */
  async run(seconds: number, observe?: (s: Sample) => void): Promise<void> {
    await runFor(this.runtime, this.clock, seconds * 1000, this.stepMs, [
      (now) => {
        if (observe && this.lastNow > 0) observe(this.sample());
        this.plant.step((now - this.lastNow) / 1000);
        this.lastNow = now;
        this.writeProbe();
      },
    ]);
  }

  sample(): Sample {
    return {
      t: this.lastNow / 1000,
      beer: this.plant.beer,
      air: this.plant.air,
      setting: this.data(this.opts.setpointId ?? 'Beer Setpoint').setting ?? null,
      heater: this.heaterOn,
      cooler: this.coolerOn,
    };
  }

  private writeProbe(): void {
    const probe = this.runtime.find(this.opts.probeId ?? 'Beer Sensor');
    if (!probe) return;
    const t = this.opts.probeOf === 'air' ? this.plant.air : this.plant.beer;
    (probe.data as { value: number | null }).value = this.probeConnected ? Math.round(t * 16) / 16 : null;
  }
}
