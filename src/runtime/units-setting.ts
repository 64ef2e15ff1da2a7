// The user's unit preference, from the datastore document {namespace: <service id>, id: "units"},
// or else the Brewblox UI's global one {namespace: "brewblox-global", id: "units"}.
import { EventEmitter } from 'node:events';
import { DEFAULT_UNITS, isTempUnit, type TempUnit, type UnitPrefs } from '../codec/units.js';

export const UNITS_DOC_ID = 'units';
export const GLOBAL_NAMESPACE = 'brewblox-global';

/** Emits `change` (after the preference changed) for clients that announce units, e.g. Home Assistant configs. */
export class UnitsSetting extends EventEmitter<{ change: [UnitPrefs] }> {
  prefs: UnitPrefs = { ...DEFAULT_UNITS };
  private own: TempUnit | null = null;
  private global: TempUnit | null = null;

  constructor(readonly namespace: string) {
    super();
  }

  /**
   * Apply a units document (or its deletion: null, with the namespace it was deleted from);
   * returns true when the preference changed. The service's own document wins over the global one.
   */
  apply(
    doc: { namespace: string; id: string; temperature?: unknown } | null,
    namespace = doc?.namespace ?? this.namespace,
  ): boolean {
    const unit = isTempUnit(doc?.temperature) ? doc!.temperature : null;
    if (namespace === GLOBAL_NAMESPACE && namespace !== this.namespace) this.global = unit;
    else this.own = unit;
    const next = this.own ?? this.global ?? DEFAULT_UNITS.temperature;
    if (next === this.prefs.temperature) return false;
    this.prefs = { temperature: next };
    this.emit('change', this.prefs);
    return true;
  }

  isUnitsKey(namespace: string, id: string): boolean {
    return (namespace === this.namespace || namespace === GLOBAL_NAMESPACE) && id === UNITS_DOC_ID;
  }
}
