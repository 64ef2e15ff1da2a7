// Thermal plant of a fermenter in a fridge: two lumped heat capacities (beer, chamber air)
// coupled to each other and the air to the room, with a heater, a cooler and optional
// fermentation heat. Deterministic: the same config, actuator answers and step sizes always
// give the same temperatures. Config shape and defaults: plant-config.ts.
//
// Actuators are callbacks so the plant can be wired to emulated GPIO lines, DS2408/DS2413
// latches or anything else. They are sampled once per step() call and may return a boolean
// (on/off) or a duty cycle 0..1.
import { COOLER_FADE_K, parsePlantConfig, type PlantConfig } from './plant-config.js';

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
  private readonly energyTotals: PlantEnergy = { heaterJ: 0, coolerJ: 0, fermentationJ: 0, ambientJ: 0 };

  /** `config` is JSON as described in plant-config.ts; missing keys take the defaults. */
  constructor(config: unknown = {}, actuators: PlantActuators = {}) {
    this.config = parsePlantConfig(config);
    this.actuators = actuators;
    this.beerT = this.config.initial.beer;
    this.airT = this.config.initial.air;
    this.ambientT = this.config.ambient;
    this.fermentationW = this.config.fermentationW;
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
    this.coolerDuty = duty(this.actuators.cooler);
    const n = Math.ceil(dtSeconds / this.maxSubstep);
    const h = dtSeconds / n;
    for (let i = 0; i < n; i++) this.substep(h);
    this.seconds += dtSeconds;
  }

  private substep(h: number): void {
    const c = this.config;
    const heatW = c.heater.powerW * this.heaterDuty;
    const coolTarget = c.cooler.target === 'air' ? this.airT : this.beerT;
    const fade = Math.min(1, Math.max(0, (coolTarget - c.cooler.floorTemp) / COOLER_FADE_K));
    const coolW = c.cooler.powerW * this.coolerDuty * fade;
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
  }
}
