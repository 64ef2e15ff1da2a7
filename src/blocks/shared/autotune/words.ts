// Numbers as the tuning's messages show them: temperatures in the brewer's unit (the units
// document), as the fields beside them read, written as every message writes them (°C, °F).
import { fromInternal, type UnitPrefs, unitSymbol, userUnit } from '../../../codec/units.js';

export const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;

/** A duration in seconds: minutes below an hour and a half, else hours. */
export const hours = (s: number) => (s >= 5400 ? `${round(s / 3600, 1)} h` : `${Math.round(s / 60)} min`);

const symbol = (units: UnitPrefs) => unitSymbol(userUnit('temp', units));

/** A temperature (degC inside) in the brewer's unit: "68.9 °F". */
export const temp = (c: number, units: UnitPrefs) => `${round(fromInternal(c, 'temp', units))} ${symbol(units)}`;

/** A difference of temperatures (degC inside) in the brewer's unit: "0.9 °F". */
export const delta = (c: number, units: UnitPrefs) => `${round(fromInternal(c, 'deltaTemp', units))} ${symbol(units)}`;

/** Two temperatures that differ, each shown with as few digits as tell them apart ("20" and "19.9994"). */
export function tempsApart(a: number, b: number, units: UnitPrefs): [string, string] {
  const [x, y] = [fromInternal(a, 'temp', units), fromInternal(b, 'temp', units)];
  let digits = 2;
  while (digits < 6 && round(x, digits) === round(y, digits)) digits++;
  return [`${round(x, digits)} ${symbol(units)}`, `${round(y, digits)} ${symbol(units)}`];
}
