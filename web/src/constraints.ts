// Constraints as a brewer sets them (issue 47.2): each one switched on or off, with its own
// settings (a duration, a mutex, a limit), and what it does right now in words ("waiting 2 min
// 10 s for the minimum off time"). The members and their settings come from the API document
// (the constraints object of the type's schema); the words are here. Pure, tested under Node.
import { isLink, qtyValue } from './blocks.js';
import { type Constraint, CONSTRAINT_WORDS, isOn } from './constraint-state.js';
import { durationText } from './durations.js';
import { kindOf, parseDuration, requiredNumber } from './field-kinds.js';
import type { Schema } from './type-doc.js';

export { CONSTRAINT_WORDS, type Constraint, constraintState, constraintsOf, mutexHolder } from './constraint-state.js';

/** The settings of a constraint the user edits: its stored members but `enabled` (the switch). */
export function settingsOf(member: Schema): Array<[string, Schema]> {
  return Object.entries(member.properties ?? {}).filter(([k, s]) => k !== 'enabled' && s.readOnly !== true);
}

/** What the user has in the form for one constraint: switched on or off, and each setting's text. */
export interface ConstraintDraft {
  on: boolean;
  values: Record<string, string>;
}

/** The text of a setting as the form shows it. */
export function settingText(s: Schema, v: unknown): string {
  const kind = kindOf(s);
  if (kind === 'duration') return durationText(qtyValue(v));
  if (kind === 'link') return isLink(v) ? (v.id ?? '') : '';
  const n = qtyValue(v);
  return n === null ? '' : String(n);
}

export function draftOf(member: Schema, c: Constraint | undefined): ConstraintDraft {
  return {
    on: isOn(c),
    values: Object.fromEntries(settingsOf(member).map(([k, s]) => [k, settingText(s, c?.[k])])),
  };
}

/** A setting's label, e.g. "Extra hold time" (mutexed.extraHoldTime) or "Mutex" (mutexId). */
export function settingLabel(constraint: string, setting: string): string {
  if (setting === 'duration') return 'Time';
  if (setting === 'value') return constraint === 'min' ? 'At least' : constraint === 'max' ? 'At most' : 'Value';
  const words = setting
    .replace(/Id$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The patch of the constraints the user changed: a constraint switched off is removed (null), one
 * switched on or edited is sent whole. Throws a message in words for a setting that is not valid;
 * undefined when nothing changed.
 */
export function constraintsPatch(
  schema: Schema,
  current: Record<string, Constraint>,
  drafts: Record<string, ConstraintDraft>,
): Record<string, unknown> | undefined {
  const patch: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, d] of Object.entries(drafts)) {
    const member = schema.properties?.[name];
    if (!member) continue;
    const before = draftOf(member, current[name]);
    if (JSON.stringify(before) === JSON.stringify(d)) continue;
    if (!d.on) {
      if (current[name]) patch[name] = null;
      continue;
    }
    const label = `${CONSTRAINT_WORDS[name] ?? name}`;
    const out: Record<string, unknown> = { enabled: true };
    for (const [k, s] of settingsOf(member)) {
      const text = d.values[k] ?? '';
      const what = `${label}: ${settingLabel(name, k).toLowerCase()}`;
      try {
        const kind = kindOf(s);
        if (kind === 'link') {
          if (!text) throw new Error(`${what}: choose one`);
          out[k] = { __objtype: 'Link', id: text };
        } else if (kind === 'duration') out[k] = parseDuration(what, text);
        else out[k] = requiredNumber(what, text, kind === 'integer');
      } catch (e) {
        problems.push((e as Error).message);
      }
    }
    patch[name] = out;
  }
  if (problems.length) throw new Error(problems.join('; '));
  return Object.keys(patch).length ? patch : undefined;
}
