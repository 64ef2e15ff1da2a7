// History field names as the graph shows them. A field is `<controller>/<block>/<field>[unit]`
// (the history service's flattening); with several controllers on one broker the history holds
// them all, so the controller is part of every name shown, except this controller's own in its
// own page. Pure (no DOM), tested under Node.
import { fieldLabel } from './explain.js';
import { unitLabel } from './blocks.js';
import { isTemperature } from './graph-data.js';

export interface FieldParts {
  field: string;
  controller: string;
  block: string;
  /** The block's field, e.g. `setting`. */
  name: string;
  /** The unit in brackets (`degC`), or null for a plain number. */
  unit: string | null;
}

export function fieldParts(field: string): FieldParts {
  const parts = field.split('/');
  const last = parts.at(-1) ?? field;
  const m = /^([^[]+)(?:\[(.+)\])?$/.exec(last);
  return {
    field,
    controller: parts.length > 2 ? parts[0]! : '',
    block: parts.slice(parts.length > 2 ? 1 : 0, -1).join('/'),
    name: m ? m[1]! : last,
    unit: m?.[2] ?? null,
  };
}

/**
 * Units of plain-number fields, by field name: the API document gives the unit of quantities
 * only (x-unit), and these are plain numbers in the block JSON.
 */
const PLAIN_UNITS: Readonly<Record<string, string>> = { humidity: '%RH', pressure: 'hPa', volts: 'V' };

/** The unit shown with a field: its bracketed unit, a known plain unit, or what the caller knows (e.g. an analog input's scale). */
export function fieldUnit(field: string, known?: (p: FieldParts) => string | null): string | null {
  const p = fieldParts(field);
  if (p.unit) return unitLabel(p.unit);
  return PLAIN_UNITS[p.name] ?? known?.(p) ?? null;
}

/**
 * `setting[degC]` → "Setting (°C)"; drawn in another temperature unit `display` (degC, degF),
 * "Setting (°F, recorded in °C)".
 */
export function fieldWords(field: string, known?: (p: FieldParts) => string | null, display?: string): string {
  const unit = fieldUnit(field, known);
  const shown = drawnIn(field, display);
  const words = shown ? `${unitLabel(shown)}, recorded in ${unit}` : unit;
  return `${fieldLabel(fieldParts(field).name)}${words ? ` (${words})` : ''}`;
}

/** The legend of a field: block and field in words, with the controller unless it is `own`. */
export function legendLabel(
  field: string,
  own: string,
  known?: (p: FieldParts) => string | null,
  display?: string,
): string {
  const p = fieldParts(field);
  return `${p.controller && p.controller !== own ? `${p.controller} · ` : ''}${p.block} · ${fieldWords(field, known, display)}`;
}

/**
 * The unit a temperature field is drawn in when the graph shows temperatures in `display` (degC
 * or degF): that unit of its kind (a difference stays one, `delta_degF`), or null when it is drawn
 * as recorded (recorded in that unit, no temperature, or no display unit). The one temperature
 * axis holds one unit: a field recorded in the other (before a unit switch, by another
 * controller) is converted, never drawn in its own numbers beside the rest.
 */
export function drawnIn(field: string, display: string | undefined): string | null {
  if (!isTemperature(field) || (display !== 'degC' && display !== 'degF')) return null;
  const recorded = fieldParts(field).unit!;
  const shown = recorded.startsWith('delta_') ? `delta_${display}` : display;
  return shown === recorded ? null : shown;
}

/**
 * The temperature unit a graph of `fields` draws in: `unit`, the one the controller records now,
 * or, until it is known, the unit of the first temperature among the fields.
 */
export function displayUnit(fields: string[], unit: string | undefined): string | undefined {
  if (unit === 'degC' || unit === 'degF') return unit;
  const first = fields.find(isTemperature);
  return first ? fieldParts(first).unit!.replace(/^delta_/, '') : undefined;
}

/** The fields by controller (`own` first, the others by name), each by block. */
export function groupFields(all: string[], own: string): Array<[string, Array<[string, string[]]>]> {
  const byController = new Map<string, Map<string, string[]>>();
  for (const f of all) {
    const p = fieldParts(f);
    let blocks = byController.get(p.controller);
    if (!blocks) byController.set(p.controller, (blocks = new Map()));
    blocks.set(p.block, [...(blocks.get(p.block) ?? []), f]);
  }
  return [...byController]
    .sort(([a], [b]) => (a === own ? -1 : b === own ? 1 : a.localeCompare(b)))
    .map(([c, blocks]) => [c, [...blocks]]);
}

/**
 * `field` of controller `own` in temperature unit `unit` (`degC`, `degF`): the history names a
 * field by the unit it was recorded in, so after a unit change the same value goes on under a
 * new name (`value[degC]` stops, `value[degF]` goes on). Other controllers keep their names.
 */
export function inTemperatureUnit(field: string, own: string, unit: string): string {
  if (fieldParts(field).controller !== own) return field;
  const other = unit === 'degF' ? 'degC' : 'degF';
  return field.replace(new RegExp(`\\[(delta_)?${other}\\]$`), (_, delta = '') => `[${delta}${unit}]`);
}

/**
 * The earlier name of each of `fields` that is a temperature of controller `own` in unit `unit`
 * (the unit recorded now): its name in the other unit, under which the history holds its points
 * from before a unit switch. A graph asks for both and draws the earlier points in the field's
 * line, converted (graph-data.ts filledFrom), so a graph across a switch has no gap before it and
 * no °C numbers on a °F axis.
 */
export function earlierNames(fields: string[], own: string, unit: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (unit !== 'degC' && unit !== 'degF') return out;
  const other = unit === 'degF' ? 'degC' : 'degF';
  for (const f of fields) {
    if (!isTemperature(f) || inTemperatureUnit(f, own, unit) !== f) continue;
    const earlier = inTemperatureUnit(f, own, other);
    if (earlier !== f) out.set(f, earlier);
  }
  return out;
}

/**
 * The fields drawn when the user has chosen none (or none of the saved ones is there): every
 * setpoint of this controller with its measured value (drawn as a pair), then its sensors, in
 * the temperature unit `unit` the controller records now. A saved field of this controller in
 * the other unit is drawn in this one where the history has it (it stopped at the change).
 * `blocks`, this controller's block ids now (when known): history keeps the names of renamed and
 * deleted blocks, which are offered in the picker but not drawn by default.
 */
export function defaultFields(
  all: string[],
  own: string,
  saved: string[] = [],
  unit?: string,
  blocks?: ReadonlySet<string>,
): string[] {
  const now = (f: string) => {
    const twin = unit ? inTemperatureUnit(f, own, unit) : f;
    return all.includes(twin) ? twin : f;
  };
  const kept = [...new Set(saved.filter((f) => all.includes(f)).map(now))];
  if (kept.length) return kept;
  const mine = all.filter((f) => {
    const p = fieldParts(f);
    return p.controller === own && (!blocks || blocks.has(p.block));
  });
  // A setpoint recorded in both units (before and after a change): the current one only.
  const current = mine.filter((f) => now(f) === f);
  const pairs = current
    .filter((f) => /\/setting\[deg[CF]\]$/.test(f))
    .flatMap((setting) => {
      const value = setting.replace(/\/setting\[/, '/value[');
      return current.includes(value) ? [setting, value] : [setting];
    });
  const sensors = current.filter((f) => /\/value\[deg[CF]\]$/.test(f) && !pairs.includes(f));
  return [...pairs, ...sensors].slice(0, 6);
}

/**
 * The y scale a field is drawn on: temperatures left (`temp`), %/states right (`pct`), other
 * units each on their own (`unit:hPa`; prefixed, so that a unit another publisher names "temp"
 * or "pct" is not drawn on those axes). A temperature difference (a PID's error, Δ°C) is no
 * temperature: on the temperature axis a 2 degree error read as 2 °C beside a 20 °C beer. It
 * has an axis of its own, in the unit it is drawn in (`delta:delta_degF` where the graph shows °F).
 */
export function scaleOf(field: string, known?: (p: FieldParts) => string | null, display?: string): string {
  if (isTemperature(field)) {
    const recorded = fieldParts(field).unit!;
    return recorded.startsWith('delta_') ? `delta:${drawnIn(field, display) ?? recorded}` : 'temp';
  }
  const unit = fieldUnit(field, known);
  return unit && unit !== '%' && unit !== '%RH' ? `unit:${unit}` : 'pct';
}

const AXIS_LABELS: Readonly<Record<string, string>> = { temp: 'temperature', pct: '% / state' };

/** The label of the axis of a scale of `scaleOf`: what it holds, or its unit. */
export function axisLabel(scale: string): string {
  if (scale.startsWith('delta:')) return `temperature difference (${unitLabel(scale.slice('delta:'.length))})`;
  return AXIS_LABELS[scale] ?? scale.replace(/^unit:/, '');
}

/**
 * The history field of block `id`'s measured value (its sparkline), e.g. `edge-one/Beer
 * Sensor/value[degC]`: after a temperature unit change the last hour holds both, and the one in
 * `unit` (the unit recorded now) goes on.
 */
export function sparkField(all: string[], own: string, id: string, unit?: string): string | undefined {
  const prefix = `${own}/${id}/value[`;
  const mine = all.filter((f) => f.startsWith(prefix) && /^[^\]/]*\]$/.test(f.slice(prefix.length)));
  return mine.find((f) => unit !== undefined && inTemperatureUnit(f, own, unit) === f) ?? mine[0];
}

/** How the chart draws fields. */
export interface ChartLook {
  /** Legend text of a field. */
  label: (field: string) => string;
  /** Fields with the same group share a colour (a block's setting and value). */
  group: (field: string) => string;
  /** The y scale: `temp` (left), `pct` (right), a temperature difference (`delta:<unit>`) or a unit drawn on an axis of its own. */
  scale: (field: string) => string;
  dashed: (field: string) => boolean;
}
