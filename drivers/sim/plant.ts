// Thermal plant of a fermenter in a fridge: two lumped heat capacities (beer, chamber air)
// coupled to each other and the air to the room, with a heater, a cooler (a compressor, or a
// glycol pump on a jacket) and optional fermentation heat. What real plants add and a tuning
// must cope with is there too: a dead time between an actuator and its heat, a compressor that
// will not restart right after it stopped, and probes that lag and are noisy (reading()).
// Deterministic: the same config, actuator answers and step sizes always give the same
// temperatures, noise included (a seeded generator). Config shape and defaults: plant-config.ts.
//
// Actuators are callbacks so the plant can be wired to emulated GPIO lines, DS2408/DS2413
// latches or anything else. They are sampled once per step() call and may return a boolean
// (on/off) or a duty cycle 0..1.
import { COOLER_FADE_K, parsePlantConfig, type PlantConfig } from './plant-config.js';
import { seeded } from './seeded.js';

export type PlantNode = 'beer' | 'air' | 'ambient';

export type ActuatorInput = () => boolean | number;

export interface PlantActuators {
  heater?: ActuatorInput;
  cooler?: ActuatorInput;
}

/** Energy that crossed the plant's boundary since construction, in joules. */
export interface PlantEnergy {
  heaterJ: number;
  /** Heat removed by the cooler (positive). */
  coolerJ: number;
  fermentationJ: number;
  /** Heat that came in from the room (negative when the chamber lost heat). */
  ambientJ: number;
}

export interface PlantState {
  time: number;
  beer: number;
  air: number;
  ambient: number;
  /** Duty (0..1) the heater and cooler had during the last step. */
  heater: number;
  cooler: number;
}

const NODES: readonly PlantNode[] = ['beer', 'air', 'ambient'];

function duty(input: ActuatorInput | undefined): number {
  if (!input) return 0;
  const value = input();
  if (typeof value === 'boolean') return value ? 1 : 0;
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

export class ThermalPlant {
  readonly config: PlantConfig;
  private readonly actuators: PlantActuators;
  private readonly maxSubstep: number;
  private beerT: number;
  private airT: number;
  private ambientT: number;
  private fermentationW: number;
  private seconds = 0;
  private heaterDuty = 0;
  private coolerDuty = 0;
  /** Duties as sampled at the start of each step, for the dead time (oldest first). */
  private readonly delayLine: Array<{ t: number; heater: number; cooler: number }> = [];
  private compressorOn = false;
  private compressorStoppedAt = -Infinity;
  /** The probes' view: lagged temperatures and this step's noise. */
  private readonly lagged: Record<PlantNode, number>;
  private readonly noise: Record<PlantNode, number> = { beer: 0, air: 0, ambient: 0 };
  private readonly random: () => number;
  private readonly energyTotals: PlantEnergy = { heaterJ: 0, coolerJ: 0, fermentationJ: 0, ambientJ: 0 };

  /** `config` is JSON as described in plant-config.ts; missing keys take the defaults. */
  constructor(config: unknown = {}, actuators: PlantActuators = {}) {
    this.config = parsePlantConfig(config);
    this.actuators = actuators;
    this.beerT = this.config.initial.beer;
    this.airT = this.config.initial.air;
    this.ambientT = this.config.ambient;
    this.fermentationW = this.config.fermentationW;
    this.lagged = { beer: this.beerT, air: this.airT, ambient: this.ambientT };
    this.random = seeded(this.config.sensor.seed);
    const { beer, air, beerToAir, airToAmbient } = this.config;
    // Explicit Euler is stable and accurate while the substep is well under the fastest time
    // constant; 1/5 of it keeps the error far below sensor resolution.
    const fastest = Math.min(air.heatCapacity / (beerToAir + airToAmbient), beer.heatCapacity / beerToAir);
    this.maxSubstep = Math.min(this.config.maxSubstepSeconds, fastest / 5);
  }

  get beer(): number {
    return this.beerT;
  }

  get air(): number {
    return this.airT;
  }

  get ambient(): number {
    return this.ambientT;
  }

  /** Simulated seconds since construction. */
  get time(): number {
    return this.seconds;
  }

  temperature(node: PlantNode): number {
    return node === 'beer' ? this.beerT : node === 'air' ? this.airT : this.ambientT;
  }

  /** What a probe in `node` reads: the temperature through the sensor's lag, plus its noise. */
  reading(node: PlantNode): number {
    const t = this.config.sensor.lagSeconds > 0 ? this.lagged[node] : this.temperature(node);
    return t + this.noise[node];
  }

  setAmbient(degC: number): void {
    this.ambientT = degC;
  }

  setFermentationHeat(watts: number): void {
    this.fermentationW = Math.max(0, watts);
  }

  /** Heat content relative to 0 degC, in joules (beer + air). */
  storedEnergyJ(): number {
    return this.config.beer.heatCapacity * this.beerT + this.config.air.heatCapacity * this.airT;
  }

  energy(): PlantEnergy {
    return { ...this.energyTotals };
  }

  state(): PlantState {
    return {
      time: this.seconds,
      beer: this.beerT,
      air: this.airT,
      ambient: this.ambientT,
      heater: this.heaterDuty,
      cooler: this.coolerDuty,
    };
  }

  /** Advances the plant by dtSeconds with the actuator states sampled now. */
  step(dtSeconds: number): void {
    if (!Number.isFinite(dtSeconds) || dtSeconds < 0) {
      throw new RangeError(`plant step must be a finite number of seconds >= 0, got ${dtSeconds}`);
    }
    if (dtSeconds === 0) return;
    this.heaterDuty = duty(this.actuators.heater);
    this.coolerDuty = this.protectCompressor(duty(this.actuators.cooler));
    const delay = this.config.deadTimeSeconds;
    if (delay > 0) {
      this.delayLine.push({ t: this.seconds, heater: this.heaterDuty, cooler: this.coolerDuty });
      // Keep the newest entry that is at least `delay` old: it is what the plant feels now.
      while (this.delayLine.length > 1 && this.delayLine[1]!.t <= this.seconds - delay) this.delayLine.shift();
    }
    const n = Math.ceil(dtSeconds / this.maxSubstep);
    const h = dtSeconds / n;
    for (let i = 0; i < n; i++) this.substep(h, this.seconds + i * h);
    this.seconds += dtSeconds;
    const sd = this.config.sensor.noise;
    if (sd > 0) for (const node of NODES) this.noise[node] = sd * this.gaussian();
  }

  /** The compressor's own restart protection: no start within minOffSeconds of the last stop. */
  private protectCompressor(asked: number): number {
    const c = this.config.cooler;
    if (c.kind !== 'compressor' || c.minOffSeconds <= 0) return asked;
    if (asked > 0 && !this.compressorOn && this.seconds - this.compressorStoppedAt < c.minOffSeconds) return 0;
    if (asked <= 0 && this.compressorOn) this.compressorStoppedAt = this.seconds;
    this.compressorOn = asked > 0;
    return asked;
  }

  /**
   * Heater and cooler duty the plant feels over [t, t + h] (after the dead time): the average of
   * what was switched a dead time earlier. The delayed switching does not fall on step boundaries,
   * so sampling it at the step's start would turn a short pulse into a whole step of heat, or none.
   */
  private felt(t: number, h: number): { heater: number; cooler: number } {
    const delay = this.config.deadTimeSeconds;
    if (delay <= 0) return { heater: this.heaterDuty, cooler: this.coolerDuty };
    const from = t - delay;
    const to = from + h;
    const line = this.delayLine;
    let heater = 0;
    let cooler = 0;
    for (let i = 0; i < line.length; i++) {
      const e = line[i]!;
      if (e.t >= to) break;
      const span = Math.min(to, line[i + 1]?.t ?? Number.POSITIVE_INFINITY) - Math.max(from, e.t);
      if (span <= 0) continue;
      heater += e.heater * span;
      cooler += e.cooler * span;
    }
    return { heater: heater / h, cooler: cooler / h };
  }

  private gaussian(): number {
    const u = Math.max(this.random(), Number.MIN_VALUE);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.random());
  }

  private substep(h: number, t: number): void {
    const c = this.config;
    const felt = this.felt(t, h);
    const heatW = c.heater.powerW * felt.heater;
    const coolTarget = c.cooler.target === 'air' ? this.airT : this.beerT;
    let coolW: number;
    if (c.cooler.kind === 'glycol') {
      coolW = c.cooler.conductance * felt.cooler * Math.max(0, coolTarget - c.cooler.glycolTemp);
    } else {
      const fade = Math.min(1, Math.max(0, (coolTarget - c.cooler.floorTemp) / COOLER_FADE_K));
      coolW = c.cooler.powerW * felt.cooler * fade;
    }
    const beerToAirW = c.beerToAir * (this.beerT - this.airT);
    const ambientW = c.airToAmbient * (this.ambientT - this.airT);

    let beerW = this.fermentationW - beerToAirW;
    let airW = beerToAirW + ambientW;
    if (c.heater.target === 'air') airW += heatW;
    else beerW += heatW;
    if (c.cooler.target === 'air') airW -= coolW;
    else beerW -= coolW;

    this.beerT += (beerW * h) / c.beer.heatCapacity;
    this.airT += (airW * h) / c.air.heatCapacity;
    this.energyTotals.heaterJ += heatW * h;
    this.energyTotals.coolerJ += coolW * h;
    this.energyTotals.fermentationJ += this.fermentationW * h;
    this.energyTotals.ambientJ += ambientW * h;
    const lag = c.sensor.lagSeconds;
    const follow = lag > 0 ? 1 - Math.exp(-h / lag) : 1;
    this.lagged.beer += (this.beerT - this.lagged.beer) * follow;
    this.lagged.air += (this.airT - this.lagged.air) * follow;
    this.lagged.ambient += (this.ambientT - this.lagged.ambient) * follow;
  }
}
