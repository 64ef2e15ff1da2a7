// What a constraint of an output does now, in words ("waiting 2 min 10 s for the minimum off
// time", "holds Heat Cool Mutex"), and who holds a mutex: for the cards and the editor. Pure.
import type { Block } from './block-types.js';
import { isLink, qtyValue } from './blocks.js';
import { durationWords } from './durations.js';

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

export const isOn = (c: Constraint | null | undefined): boolean => !!c && c.enabled !== false;

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
    // An unresolvable mutex keeps the output from switching on (the controller retries each second).
    if (linkId(c!.mutexId) !== null && !blocks.has(mutex))
      return `${mutex} is missing (deleted): it cannot switch on until another mutex is chosen or this constraint is off`;
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
