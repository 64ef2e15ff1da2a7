// The keys of a stored rules document that this release's schema (RulesSchema) does not know: a
// rule, a rule's field or a block's setting a later release added. Read after a rollback, the
// document is taken without them (every known rule applies; refused whole, every rule ran at its
// default), they are named (RulesInForce), and a save puts them back, so going forward again finds
// them. A client's PUT is held to the schema as it is: only what is stored is read this way.
import type { TSchema } from '@sinclair/typebox';
import { RulesSchema } from './rules.js';

/** A key the schema does not know, where it sits, and its value. */
export interface UnknownKey {
  path: string[];
  value: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `doc` without the keys RulesSchema does not know, and those keys. A value of the wrong kind where
 * a known key expects an object is left as it is, for the schema to refuse.
 */
export function splitUnknown(doc: Record<string, unknown>): { known: Record<string, unknown>; unknown: UnknownKey[] } {
  const unknown: UnknownKey[] = [];
  const walk = (schema: TSchema, value: unknown, at: string[]): unknown => {
    if (!isObject(value) || schema.type !== 'object') return value;
    const props = schema.properties as Record<string, TSchema> | undefined;
    const pattern = Object.values((schema.patternProperties ?? {}) as Record<string, TSchema>)[0];
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const sub = props?.[k] ?? pattern;
      if (sub) out[k] = walk(sub, v, [...at, k]);
      else unknown.push({ path: [...at, k], value: v });
    }
    return out;
  };
  return { known: walk(RulesSchema, doc, []) as Record<string, unknown>, unknown };
}

/** The keys' paths as said to a user: `futureRule`, `blocks.Heater.quietHours`. */
export function unknownNames(unknown: UnknownKey[]): string[] {
  return unknown.map((u) => u.path.join('.'));
}

/**
 * `doc` with `unknown` put back where they were (the objects they were in made again when `doc` left
 * them out: a block's settings this release emptied keep the later release's); one whose place
 * holds a value that is not an object stays out.
 */
export function withUnknown(doc: Record<string, unknown>, unknown: UnknownKey[]): Record<string, unknown> {
  const out = structuredClone(doc);
  for (const { path, value } of unknown) {
    let at: Record<string, unknown> | null = out;
    for (const k of path.slice(0, -1)) {
      if (!Object.hasOwn(at, k)) at[k] = {};
      const next: unknown = at[k];
      if (!isObject(next)) {
        at = null;
        break;
      }
      at = next;
    }
    const key = path.at(-1)!;
    if (at && !Object.hasOwn(at, key)) at[key] = value;
  }
  return out;
}
