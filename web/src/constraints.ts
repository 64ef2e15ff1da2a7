// Constraints as a brewer sets them (issue 47.2): each one switched on or off, with its own
// settings (a duration, a mutex, a limit), and what it does right now in words ("waiting 2 min
// 10 s for the minimum off time"). The members and their settings come from the API document
// (the constraints object of the type's schema); the words are here. Pure, tested under Node.
import type { Block } from './block-types.js';
import { isLink, qtyValue } from './blocks.js';
import { durationText, durationWords, kindOf, parseDuration, parseNumber } from './field-kinds.js';
import type { Schema } from './type-doc.js';

/** A constraint's name in words, as in "waiting for the minimum off time". */
export const CONSTRAINT_WORDS: Readonly<Record<string, string>> = {
  minOff: 'minimum off time',
  minOn: 'minimum on time',
  delayedOn: 'delay before switching on',
  delayedOff: 'delay before switching off',
  mutexed: 'mutex',
  balanced: 'balancer',
  min: 'minimum',
  max: 'maximum',
};

export type Constraint = Record<string, unknown> & {
  enabled?: boolean;
  limiting?: boolean;
  remaining?: unknown;
  hasLock?: boolean;
  granted?: unknown;
};

export const constraintsOf = (b: Block): Record<string, Constraint> =>
  b.data.constraints && typeof b.data.constraints === 'object'
    ? (b.data.constraints as Record<string, Constraint>)
    : {};

/** The settings of a constraint the user edits: its stored members but `enabled` (the switch). */
export function settingsOf(member: Schema): Array<[string, Schema]> {
  return Object.entries(member.properties ?? {}).filter(([k, s]) => k !== 'enabled' && s.readOnly !== true);
}

export const isOn = (c: Constraint | null | undefined): boolean => !!c && c.enabled !== false;

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
        } else if (kind === 'duration') out[k] = parseDuration(what, text) ?? 0;
        else {
          const n = parseNumber(what, text, kind === 'integer');
          if (n === null) throw new Error(`${what}: enter a number`);
          out[k] = n;
        }
      } catch (e) {
        problems.push((e as Error).message);
      }
    }
    patch[name] = out;
  }
  if (problems.length) throw new Error(problems.join('; '));
  return Object.keys(patch).length ? patch : undefined;
}

const linkId = (v: unknown): string | null => (isLink(v) && v.id ? v.id : null);

/** The actuator holding mutex `mutexId` now, if any. */
export function mutexHolder(mutexId: string, blocks: Iterable<Block>): string | null {
  for (const b of blocks) {
    const m = constraintsOf(b).mutexed;
    if (m && linkId(m.mutexId) === mutexId && m.hasLock === true) return b.id;
  }
  return null;
}

/**
 * What constraint `name` of `self` does now, in words: "waiting 2 min 10 s for the minimum off
 * time", "holds Heat Cool Mutex", "not limiting". Null for a constraint that is off.
 */
export function constraintState(
  name: string,
  c: Constraint | undefined,
  self: string,
  blocks: Map<string, Block>,
): string | null {
  if (!isOn(c)) return null;
  const left = qtyValue(c!.remaining);
  const time = left ? `${durationWords(left)} ` : '';
  if (name === 'mutexed') {
    const mutex = linkId(c!.mutexId) ?? 'its mutex';
    if (c!.hasLock) return `holds ${mutex}`;
    if (!c!.limiting) return `${mutex} is free for it`;
    const holder = mutexHolder(mutex, blocks.values());
    return `waiting ${time}for ${mutex}${holder && holder !== self ? `, held by ${holder}` : ''}`;
  }
  if (name === 'balanced') {
    const granted = qtyValue(c!.granted);
    return granted === null ? 'no share granted yet' : `granted ${Math.round(granted)} %`;
  }
  if (!c!.limiting) return 'not limiting now';
  if (name === 'min' || name === 'max') return `limiting the setting to its ${CONSTRAINT_WORDS[name]} now`;
  if (name === 'minOn') return `keeping the output on ${time ? `${time}more ` : ''}for the minimum on time`;
  return `waiting ${time}for the ${CONSTRAINT_WORDS[name] ?? name}`;
}
