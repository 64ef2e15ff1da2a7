// The plants of the autotune bench (scripts/bench-autotune.ts): a fermenter in a fridge, a brew
// kettle and a glycol-jacketed conical, each with parameters drawn from a seeded generator so
// every run sees the same ten of each, and each with the control chain and gains a brewer gets
// from the quick starts (the dashboard's fermentation-fridge wizard, web/src/wizard.ts, for the
// fridge; Brewblox's BrewKettle and Glycol quick starts for the others).
import { seeded } from '../../drivers/sim/seeded.js';

export type Kind = 'fermenter' | 'kettle' | 'conical';

export interface Gains {
  kp: number;
  ti: number;
  td: number;
}

export interface SideSpec {
  /** Channel on the MockPins (1 heater, 2 cooler) and what it drives in the plant. */
  channel: 1 | 2;
  gains: Gains;
  pwmPeriod: number;
  minOn?: number;
  minOff?: number;
  /** Mutex hold after this actuator switches off, s (both sides of a pair have one). */
  hold?: number;
}

export interface PlantCase {
  kind: Kind;
  name: string;
  plant: Record<string, unknown>;
  setpoint: number;
  /** The step after tuning, degC (signed). */
  step: number;
  filter: string;
  heat: SideSpec;
  cool: SideSpec | null;
  tuning: { amplitude: number; band: number; maxDuration: number };
  /** Simulated seconds: before anything, after applying (back at the setting), and watching the step. */
  warmup: number;
  settle: number;
  observe: number;
}

const WATER_J_PER_L_K = 4186;
const HOUR = 3600;

/** The fermentation-fridge wizard's chain in beer mode (web/src/wizard.ts, Brewblox's quick start). */
export const FRIDGE_DEFAULTS = {
  heat: { gains: { kp: 100, ti: 6 * HOUR, td: 1800 }, pwmPeriod: 10, hold: 20 * 60 },
  cool: { gains: { kp: -50, ti: 6 * HOUR, td: 1800 }, pwmPeriod: 30 * 60, minOn: 120, minOff: 300, hold: 45 * 60 },
  filter: 'FILTER_15s',
};

/** Brewblox's BrewKettle quick start: kp = 100 % per the 2 degC "full power delta", PWM 2 s. */
export const KETTLE_DEFAULTS = { gains: { kp: 50, ti: 10 * 60, td: 10 }, pwmPeriod: 2, filter: 'FILTER_15s' };

/** Brewblox's Glycol quick start, heated: cool PWM 10 min, both actuators on a 15 min mutex. */
export const GLYCOL_DEFAULTS = {
  heat: { gains: { kp: 100, ti: 2 * HOUR, td: 600 }, pwmPeriod: 10, hold: 15 * 60 },
  cool: { gains: { kp: -20, ti: 2 * HOUR, td: 600 }, pwmPeriod: 10 * 60, minOn: 5, hold: 15 * 60 },
  filter: 'FILTER_15s',
};

export function plantCases(kind: Kind, count: number, seed: number): PlantCase[] {
  const random = seeded(seed);
  const between = (lo: number, hi: number) => lo + (hi - lo) * random();
  const pick = (lo: number, hi: number, digits = 1) => Math.round(between(lo, hi) * 10 ** digits) / 10 ** digits;
  const cases: PlantCase[] = [];
  for (let i = 0; i < count; i++) {
    const noise = { seed: seed * 100 + i, noise: pick(0, 0.03, 3) };
    if (kind === 'fermenter') {
      const litres = pick(10, 30, 0);
      const setpoint = pick(17, 21);
      cases.push({
        kind,
        name: `fridge ${litres} L`,
        plant: {
          ambient: pick(14, 26),
          initial: { beer: setpoint, air: setpoint },
          beer: { heatCapacity: litres * WATER_J_PER_L_K + 3000 },
          air: { heatCapacity: pick(2000, 5000, 0) },
          beerToAir: pick(2, 5),
          airToAmbient: pick(1, 2.5),
          heater: { powerW: pick(60, 150, 0), target: random() < 0.3 ? 'beer' : 'air' },
          cooler: { powerW: pick(100, 250, 0), floorTemp: pick(-15, -5), minOffSeconds: pick(0, 300, 0) },
          fermentationW: pick(0, 15),
          deadTimeSeconds: pick(0, 120, 0),
          sensor: { lagSeconds: pick(0, 60, 0), ...noise },
        },
        setpoint,
        step: i % 2 ? 2 : -2,
        filter: FRIDGE_DEFAULTS.filter,
        heat: { channel: 1, ...FRIDGE_DEFAULTS.heat },
        cool: { channel: 2, ...FRIDGE_DEFAULTS.cool },
        tuning: { amplitude: 0.5, band: 2, maxDuration: 48 * HOUR },
        warmup: 6 * HOUR,
        settle: 8 * HOUR,
        observe: 24 * HOUR,
      });
    } else if (kind === 'kettle') {
      const litres = pick(15, 60, 0);
      const setpoint = pick(62, 68);
      cases.push({
        kind,
        name: `kettle ${litres} L`,
        plant: {
          ambient: pick(15, 25),
          initial: { beer: setpoint, air: setpoint - 1 },
          beer: { heatCapacity: litres * WATER_J_PER_L_K + 5000 },
          air: { heatCapacity: pick(3000, 10000, 0) },
          beerToAir: pick(30, 100, 0),
          airToAmbient: pick(3, 12),
          heater: { powerW: pick(1500, 5500, -2), target: 'beer' },
          cooler: { powerW: 0 },
          deadTimeSeconds: pick(5, 40, 0),
          sensor: { lagSeconds: pick(10, 60, 0), ...noise },
          maxSubstepSeconds: 1,
        },
        setpoint,
        step: 2,
        filter: KETTLE_DEFAULTS.filter,
        heat: { channel: 1, gains: KETTLE_DEFAULTS.gains, pwmPeriod: KETTLE_DEFAULTS.pwmPeriod },
        cool: null,
        tuning: { amplitude: 1, band: 4, maxDuration: 6 * HOUR },
        warmup: HOUR / 2,
        settle: HOUR / 2,
        observe: 2 * HOUR,
      });
    } else {
      const litres = pick(100, 500, -1);
      const setpoint = pick(16, 20);
      cases.push({
        kind,
        name: `conical ${litres} L`,
        plant: {
          ambient: pick(16, 26),
          initial: { beer: setpoint, air: setpoint },
          beer: { heatCapacity: litres * WATER_J_PER_L_K + 20000 },
          air: { heatCapacity: pick(10000, 30000, -3) },
          beerToAir: pick(20, 80, 0),
          airToAmbient: pick(1, 4),
          heater: { powerW: pick(100, 400, -1), target: 'beer' },
          cooler: { kind: 'glycol', glycolTemp: pick(-2, 4), conductance: pick(50, 200, 0) },
          fermentationW: pick(0, 100, 0),
          deadTimeSeconds: pick(30, 180, 0),
          sensor: { lagSeconds: pick(30, 120, 0), ...noise },
        },
        setpoint,
        step: i % 2 ? 2 : -2,
        filter: GLYCOL_DEFAULTS.filter,
        heat: { channel: 1, ...GLYCOL_DEFAULTS.heat },
        cool: { channel: 2, ...GLYCOL_DEFAULTS.cool },
        tuning: { amplitude: 0.5, band: 2, maxDuration: 96 * HOUR },
        warmup: 12 * HOUR,
        settle: 12 * HOUR,
        observe: 48 * HOUR,
      });
    }
  }
  return cases;
}

/**
 * How far one shortest compressor run (its minimum on time at full power) moves the beer in the
 * end, degC: the heat it takes from the air, of which the beer gives its share (its coupling to the
 * air over both of the air's couplings); null for a plant without a compressor. Where it is more
 * than the tolerance, one run alone carries the beer out of the band (docs/autotune.md).
 */
export function shortestRunDose(c: PlantCase): number | null {
  const p = c.plant as {
    cooler?: { kind?: string; powerW?: number; target?: string };
    beer?: { heatCapacity?: number };
    beerToAir?: number;
    airToAmbient?: number;
  };
  const minOn = c.cool?.minOn ?? 0;
  const cooler = p.cooler;
  if (!cooler || (cooler.kind ?? 'compressor') !== 'compressor' || (cooler.target ?? 'air') !== 'air') return null;
  if (!minOn || !cooler.powerW || !p.beer?.heatCapacity || !p.beerToAir || !p.airToAmbient) return null;
  return (cooler.powerW * minOn * (p.beerToAir / (p.beerToAir + p.airToAmbient))) / p.beer.heatCapacity;
}

/**
 * The plant's slow time constant, s: the beer and the chamber air as two heat capacities, the
 * beer coupled to the air and the air to the room; the slower of the two modes is the one the
 * tuning's model calls tau1. Null for a plant without those figures.
 */
export function beerTimeConstant(c: PlantCase): number | null {
  const p = c.plant as {
    beer?: { heatCapacity?: number };
    air?: { heatCapacity?: number };
    beerToAir?: number;
    airToAmbient?: number;
  };
  const cb = p.beer?.heatCapacity;
  const ca = p.air?.heatCapacity;
  const k1 = p.beerToAir;
  const k2 = p.airToAmbient;
  if (!cb || !ca || !k1 || !k2) return null;
  // The eigenvalues of d/dt [beer, air] = A [beer, air]; the slow one is the smaller in size.
  const a = -k1 / cb;
  const d = -(k1 + k2) / ca;
  const trace = a + d;
  const det = a * d - (k1 / cb) * (k1 / ca);
  const slow = (trace + Math.sqrt(trace * trace - 4 * det)) / 2;
  return -1 / slow;
}
