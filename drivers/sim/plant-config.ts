// Configuration of the emulated fermenter (see plant.ts). JSON shape, every key optional:
//
// {
//   "ambient": 20,                       room temperature, degC
//   "initial": { "beer": 20, "air": 20 }, starting temperatures, degC (default: ambient)
//   "beer": { "heatCapacity": 85000 },   J/K: 20 L of wort (~82 kJ/K) plus the vessel
//   "air":  { "heatCapacity": 3000 },    J/K: chamber air with the liner and shelves that follow it
//   "beerToAir": 3.0,                    W/K: fermenter wall, natural convection (~0.35 m2)
//   "airToAmbient": 1.5,                 W/K: fridge cabinet insulation
//   "heater": { "powerW": 100, "target": "air" },   heat mat / bulb; "beer" for a heat wrap
//   "cooler": { "kind": "compressor", "powerW": 150, "target": "air", "floorTemp": -10,
//               "minOffSeconds": 0 },
//                                        compressor; its power fades to 0 over the last 10 K
//                                        above floorTemp (the evaporator's temperature); asked to
//                                        start within minOffSeconds of stopping (its own restart
//                                        protection), it stays off until that time has passed
//             { "kind": "glycol", "target": "air", "glycolTemp": 2, "conductance": 100 }
//                                        a glycol pump: while on, the target (the jacket) loses
//                                        conductance * (its temperature - glycolTemp) watts
//   "deadTimeSeconds": 0,                transport delay from an actuator switching to its heat
//                                        reaching the plant (a heat mat warming up, glycol lines)
//   "sensor": { "lagSeconds": 0, "noise": 0, "seed": 1 },
//                                        what a probe reads (reading()): the temperature through a
//                                        first-order lag (a thermowell) plus Gaussian noise of
//                                        this standard deviation (degC) from a seeded generator
//   "fermentationW": 0,                  heat released by the yeast into the beer, W
//   "maxSubstepSeconds": 10              integration step limit (also kept under 1/5 of the
//                                        fastest time constant)
// }
//
// With the defaults the air moves ~2 K/min under the heater and settles in ~10 min; the beer
// follows the air with a time constant of ~8 h, and drifts to ambient over about a day.

import { Type, type Static } from '@sinclair/typebox';
import { checkAgainst } from '../schema-check.js';

export type PlantTarget = 'beer' | 'air';
export type CoolerKind = 'compressor' | 'glycol';

export interface PlantConfig {
  ambient: number;
  initial: { beer: number; air: number };
  beer: { heatCapacity: number };
  air: { heatCapacity: number };
  beerToAir: number;
  airToAmbient: number;
  heater: { powerW: number; target: PlantTarget };
  cooler: {
    kind: CoolerKind;
    powerW: number;
    target: PlantTarget;
    floorTemp: number;
    minOffSeconds: number;
    glycolTemp: number;
    conductance: number;
  };
  deadTimeSeconds: number;
  sensor: { lagSeconds: number; noise: number; seed: number };
  fermentationW: number;
  maxSubstepSeconds: number;
}

export const DEFAULT_PLANT_CONFIG: Readonly<PlantConfig> = Object.freeze({
  ambient: 20,
  initial: { beer: 20, air: 20 },
  beer: { heatCapacity: 85000 },
  air: { heatCapacity: 3000 },
  beerToAir: 3.0,
  airToAmbient: 1.5,
  heater: { powerW: 100, target: 'air' as PlantTarget },
  cooler: {
    kind: 'compressor' as CoolerKind,
    powerW: 150,
    target: 'air' as PlantTarget,
    floorTemp: -10,
    minOffSeconds: 0,
    glycolTemp: 2,
    conductance: 100,
  },
  deadTimeSeconds: 0,
  sensor: { lagSeconds: 0, noise: 0, seed: 1 },
  fermentationW: 0,
  maxSubstepSeconds: 10,
});

/** Span above floorTemp over which the cooler's power fades out. */
export const COOLER_FADE_K = 10;

export class PlantConfigError extends Error {
  override name = 'PlantConfigError';
}

const d = DEFAULT_PLANT_CONFIG;
const Target = (fallback: PlantTarget) =>
  Type.Union([Type.Literal('air'), Type.Literal('beer')], { default: fallback });
const section = <T extends Parameters<typeof Type.Object>[0]>(properties: T) =>
  Type.Object(properties, { additionalProperties: false, default: {} });
const positive = (fallback: number) => Type.Number({ exclusiveMinimum: 0, default: fallback });
const nonNegative = (fallback: number, maximum?: number) =>
  Type.Number({ minimum: 0, default: fallback, ...(maximum !== undefined ? { maximum } : {}) });

const PlantConfigSchema = Type.Object(
  {
    ambient: Type.Number({ default: d.ambient }),
    /** Default: ambient (filled in after the schema). */
    initial: section({ beer: Type.Optional(Type.Number()), air: Type.Optional(Type.Number()) }),
    beer: section({ heatCapacity: positive(d.beer.heatCapacity) }),
    air: section({ heatCapacity: positive(d.air.heatCapacity) }),
    beerToAir: positive(d.beerToAir),
    airToAmbient: nonNegative(d.airToAmbient),
    heater: section({ powerW: nonNegative(d.heater.powerW), target: Target(d.heater.target) }),
    cooler: section({
      kind: Type.Union([Type.Literal('compressor'), Type.Literal('glycol')], { default: d.cooler.kind }),
      powerW: nonNegative(d.cooler.powerW),
      target: Target(d.cooler.target),
      floorTemp: Type.Number({ default: d.cooler.floorTemp }),
      minOffSeconds: nonNegative(d.cooler.minOffSeconds, 3600),
      glycolTemp: Type.Number({ default: d.cooler.glycolTemp }),
      conductance: nonNegative(d.cooler.conductance),
    }),
    deadTimeSeconds: nonNegative(d.deadTimeSeconds, 3600),
    sensor: section({
      lagSeconds: nonNegative(d.sensor.lagSeconds, 3600),
      noise: nonNegative(d.sensor.noise, 5),
      seed: Type.Integer({ default: d.sensor.seed }),
    }),
    fermentationW: nonNegative(d.fermentationW),
    maxSubstepSeconds: positive(d.maxSubstepSeconds),
  },
  { additionalProperties: false },
);

/** Defaults merged with a (possibly partial) JSON object; throws PlantConfigError naming the bad key. */
export function parsePlantConfig(input: unknown = {}, path = 'plant'): PlantConfig {
  const checked = checkAgainst<Static<typeof PlantConfigSchema>>(PlantConfigSchema, input, path);
  if (checked.issue)
    throw new PlantConfigError(
      `${checked.issue.path} ${checked.issue.unknownKey ? 'is not a plant setting: ' : ''}${checked.issue.message}`,
    );
  const c = checked.value;
  return { ...c, initial: { beer: c.initial.beer ?? c.ambient, air: c.initial.air ?? c.ambient } };
}
