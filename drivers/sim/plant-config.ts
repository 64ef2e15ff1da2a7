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
//   "cooler": { "powerW": 150, "target": "air", "floorTemp": -10 },
//                                        compressor; its power fades to 0 over the last 10 K
//                                        above floorTemp (the evaporator's temperature)
//   "fermentationW": 0,                  heat released by the yeast into the beer, W
//   "maxSubstepSeconds": 10              integration step limit (also kept under 1/5 of the
//                                        fastest time constant)
// }
//
// With the defaults the air moves ~2 K/min under the heater and settles in ~10 min; the beer
// follows the air with a time constant of ~8 h, and drifts to ambient over about a day.

import { unknownKeyMessage } from '../closest-name.js';

export type PlantTarget = 'beer' | 'air';

export interface PlantConfig {
  ambient: number;
  initial: { beer: number; air: number };
  beer: { heatCapacity: number };
  air: { heatCapacity: number };
  beerToAir: number;
  airToAmbient: number;
  heater: { powerW: number; target: PlantTarget };
  cooler: { powerW: number; target: PlantTarget; floorTemp: number };
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
  cooler: { powerW: 150, target: 'air' as PlantTarget, floorTemp: -10 },
  fermentationW: 0,
  maxSubstepSeconds: 10,
});

/** Span above floorTemp over which the cooler's power fades out. */
export const COOLER_FADE_K = 10;

export class PlantConfigError extends Error {
  override name = 'PlantConfigError';
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function section(input: Json, key: string, path: string): Json {
  const value = input[key];
  if (value === undefined) return {};
  if (!isObject(value)) throw new PlantConfigError(`${path}.${key} must be an object`);
  return value;
}

function num(input: Json, key: string, path: string, fallback: number, rule: 'any' | 'positive' | 'nonNegative'): number {
  const value = input[key];
  if (value === undefined) return fallback;
  const where = `${path}.${key}`;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new PlantConfigError(`${where} must be a number, got ${JSON.stringify(value)}`);
  }
  if (rule === 'positive' && !(value > 0)) throw new PlantConfigError(`${where} must be > 0, got ${value}`);
  if (rule === 'nonNegative' && value < 0) throw new PlantConfigError(`${where} must be >= 0, got ${value}`);
  return value;
}

function target(input: Json, path: string, fallback: PlantTarget): PlantTarget {
  const value = input.target;
  if (value === undefined) return fallback;
  if (value !== 'air' && value !== 'beer') {
    throw new PlantConfigError(`${path}.target must be "air" or "beer", got ${JSON.stringify(value)}`);
  }
  return value;
}

function checkKeys(input: Json, allowed: string[], path: string): void {
  for (const key of Object.keys(input)) {
    if (!allowed.includes(key)) throw new PlantConfigError(`${path}.${key} is not a plant setting: ${unknownKeyMessage(key, allowed)}`);
  }
}

/** Defaults merged with a (possibly partial) JSON object; throws PlantConfigError naming the bad key. */
export function parsePlantConfig(input: unknown = {}, path = 'plant'): PlantConfig {
  if (!isObject(input)) throw new PlantConfigError(`${path} must be an object`);
  const d = DEFAULT_PLANT_CONFIG;
  checkKeys(input, Object.keys(d), path);
  const ambient = num(input, 'ambient', path, d.ambient, 'any');
  const initial = section(input, 'initial', path);
  const beer = section(input, 'beer', path);
  const air = section(input, 'air', path);
  const heater = section(input, 'heater', path);
  const cooler = section(input, 'cooler', path);
  checkKeys(initial, ['beer', 'air'], `${path}.initial`);
  checkKeys(beer, ['heatCapacity'], `${path}.beer`);
  checkKeys(air, ['heatCapacity'], `${path}.air`);
  checkKeys(heater, ['powerW', 'target'], `${path}.heater`);
  checkKeys(cooler, ['powerW', 'target', 'floorTemp'], `${path}.cooler`);
  return {
    ambient,
    initial: {
      beer: num(initial, 'beer', `${path}.initial`, ambient, 'any'),
      air: num(initial, 'air', `${path}.initial`, ambient, 'any'),
    },
    beer: { heatCapacity: num(beer, 'heatCapacity', `${path}.beer`, d.beer.heatCapacity, 'positive') },
    air: { heatCapacity: num(air, 'heatCapacity', `${path}.air`, d.air.heatCapacity, 'positive') },
    beerToAir: num(input, 'beerToAir', path, d.beerToAir, 'positive'),
    airToAmbient: num(input, 'airToAmbient', path, d.airToAmbient, 'nonNegative'),
    heater: {
      powerW: num(heater, 'powerW', `${path}.heater`, d.heater.powerW, 'nonNegative'),
      target: target(heater, `${path}.heater`, d.heater.target),
    },
    cooler: {
      powerW: num(cooler, 'powerW', `${path}.cooler`, d.cooler.powerW, 'nonNegative'),
      target: target(cooler, `${path}.cooler`, d.cooler.target),
      floorTemp: num(cooler, 'floorTemp', `${path}.cooler`, d.cooler.floorTemp, 'any'),
    },
    fermentationW: num(input, 'fermentationW', path, d.fermentationW, 'nonNegative'),
    maxSubstepSeconds: num(input, 'maxSubstepSeconds', path, d.maxSubstepSeconds, 'positive'),
  };
}
