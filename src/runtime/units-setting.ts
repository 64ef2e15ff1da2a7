// The user's unit preference, from the datastore document {namespace: <service id>, id: "units"}.
import { DEFAULT_UNITS, isTempUnit, type UnitPrefs } from '../codec/units.js';

export const UNITS_DOC_ID = 'units';

export class UnitsSetting {
  prefs: UnitPrefs = { ...DEFAULT_UNITS };

  constructor(readonly namespace: string) {}

  /** Apply a document if it is the units document; returns true when the preference changed. */
  apply(doc: { namespace: string; id: string; temperature?: unknown } | null): boolean {
    const next = isTempUnit(doc?.temperature) ? doc!.temperature : DEFAULT_UNITS.temperature;
    if (next === this.prefs.temperature) return false;
    this.prefs = { temperature: next };
    return true;
  }

  isUnitsKey(namespace: string, id: string): boolean {
    return namespace === this.namespace && id === UNITS_DOC_ID;
  }
}
