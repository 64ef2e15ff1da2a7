// Alert rules: data with a schema. Effective rules = schema defaults < the config's
// alerts.rules < the datastore document {namespace: <service id>, id: "alerts"}. Times are in
// seconds, temperatures in degC. Per-block settings are keyed by block id and follow renames.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { checked } from './schema-check.js';
import { UNITS } from '../../drivers/schema-check.js';

export const RULES_DOC_ID = 'alerts';
/** No rule waits longer than a month: a brewer means days at most (1.7e308 s was taken and meant never). */
export const MAX_RULE_SECONDS = 30 * 24 * 3600;
/** Reminders at most every 15 minutes (1e-9 h was taken: 44 emails in 10 s). */
export const MIN_REMIND_HOURS = 0.25;
const duration = (description: string) =>
  ({
    minimum: 0,
    maximum: MAX_RULE_SECONDS,
    unit: UNITS.seconds,
    description: `${description} (seconds, at most 30 days)`,
  }) as const;
const seconds = (def: number, description: string) => Type.Number({ ...duration(description), default: def });
/** How often an active alert is sent again: 15 minutes to 30 days. */
export const remindHours = (options: { default?: number; description: string }) =>
  Type.Number({ minimum: MIN_REMIND_HOURS, maximum: MAX_RULE_SECONDS / 3600, unit: UNITS.hours, ...options });
const strict = { additionalProperties: false } as const;

export const BlockRuleSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'false: no alerts for this block' })),
    after: Type.Optional(Type.Number(duration('sensor null / out of band / sequence in error for this long'))),
    band: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, unit: UNITS.celsiusDelta, description: 'setpoint band (delta degC)' }),
    ),
    onAfter: Type.Optional(Type.Number(duration('output on without a break for this long; 0 = off'))),
  },
  strict,
);

export const RulesSchema = Type.Object(
  {
    sensorNull: Type.Object(
      { enabled: Type.Boolean({ default: true }), after: seconds(60, 'a sensor reads null for') },
      { ...strict, default: {} },
    ),
    setpointBand: Type.Object(
      {
        enabled: Type.Boolean({ default: true }),
        band: Type.Number({ exclusiveMinimum: 0, default: 2, unit: UNITS.celsiusDelta, description: 'delta degC' }),
        after: seconds(1800, 'out of band for'),
      },
      { ...strict, default: {} },
    ),
    noSetting: Type.Object(
      {
        enabled: Type.Boolean({ default: true }),
        // A profile paused by hand hands the setting over in one batch; a brewer who deleted it
        // and goes to type a setting takes a minute or two. Past that the beer is uncontrolled.
        after: seconds(300, 'a setpoint that enabled PIDs read has no setting (nothing drives it) for'),
      },
      { ...strict, default: {} },
    ),
    sequenceError: Type.Object(
      {
        enabled: Type.Boolean({ default: true }),
        // It retries the line each update: a cause gone within a minute (a block being replaced) is no alert.
        after: seconds(60, 'a sequence is stopped in its ERROR state (a line it cannot run) for'),
      },
      { ...strict, default: {} },
    ),
    outputOn: Type.Object(
      {
        enabled: Type.Boolean({ default: true }),
        after: seconds(0, 'default for every output, 0 = off; set per actuator in blocks'),
      },
      { ...strict, default: {} },
    ),
    hardware: Type.Object(
      {
        enabled: Type.Boolean({ default: true }),
        // A chip that misses one poll (a spark on a long wire) answers the next; only one that
        // stays away is missing. 0 = at the first missed read.
        after: seconds(10, 'an IO module does not answer for'),
      },
      { ...strict, default: {} },
    ),
    service: Type.Object(
      {
        enabled: Type.Boolean({ default: true }),
        unreachableAfter: seconds(300, 'broker or history store unreachable for'),
        diskFreePercent: Type.Number({
          minimum: 0,
          maximum: 100,
          default: 5,
          unit: UNITS.percent,
          description: 'alert below this much free space in the data dir',
        }),
      },
      { ...strict, default: {} },
    ),
    remindHours: remindHours({
      default: 4,
      description: 'remind every this many hours while an alert is active and not acknowledged',
    }),
    resolveAfter: seconds(60, 'a condition must stay clear this long to resolve; shorter dips count as flaps'),
    blocks: Type.Record(Type.String({ minLength: 1, maxLength: 200 }), BlockRuleSchema, { default: {} }),
  },
  { ...strict, default: {} },
);

export type Rules = Static<typeof RulesSchema>;
export type BlockRule = Static<typeof BlockRuleSchema>;

export function parseRules(raw: unknown, where = 'alert rules'): Rules {
  return checked(RulesSchema, raw, where);
}

/** The rules document without its datastore key. */
export function docBody(doc: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!doc) return null;
  const { namespace: _n, id: _i, ...rest } = doc;
  return rest;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over))
    out[k] = isObject(v) && isObject(out[k]) ? deepMerge(out[k] as Record<string, unknown>, v) : v;
  return out;
}

/** Effective rules from the config's rules and the document (either may be missing). */
export function effectiveRules(
  fromConfig: Record<string, unknown> | undefined,
  doc: Record<string, unknown> | null,
): Rules {
  return parseRules(deepMerge(fromConfig ?? {}, doc ?? {}));
}

/**
 * The stored document with every number brought within its rule's range, and what was changed
 * (`path: from -> to`). A document an older release stored holds values bounded since (remindHours
 * 0.1, a 40-day onAfter, before 60d8ed1): refusing it whole would put every rule the brewer set
 * back to its default. New input is still held to the bounds (setRules, the PUT route).
 */
export function withinBounds(doc: Record<string, unknown>): { doc: Record<string, unknown>; changed: string[] } {
  const changed: string[] = [];
  const walk = (schema: TSchema, value: unknown, at: string): unknown => {
    if (typeof value === 'number' && schema.type === 'number') {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
      const to = Math.min(max, Math.max(min, value));
      if (to !== value) changed.push(`${at}: ${value} -> ${to}`);
      return to;
    }
    if (!isObject(value)) return value;
    const props = schema.properties as Record<string, TSchema> | undefined;
    const pattern = Object.values((schema.patternProperties ?? {}) as Record<string, TSchema>)[0];
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const sub = props?.[k] ?? pattern;
      out[k] = sub ? walk(sub, v, at ? `${at}.${k}` : k) : v;
    }
    return out;
  };
  return { doc: walk(RulesSchema, doc, '') as Record<string, unknown>, changed };
}

/**
 * The document after block `from` was renamed to `to` (null when nothing changes). `fromConfig`
 * is the config file's setting for `from`, which the file keeps under the old name: the document
 * carries it (under the document's own) to the new one, or the renamed block lost it.
 */
export function renamedIn(
  doc: Record<string, unknown> | null,
  from: string,
  to: string,
  fromConfig?: Record<string, unknown>,
): Record<string, unknown> | null {
  const blocks = isObject(doc?.blocks) ? doc.blocks : {};
  const own = Object.hasOwn(blocks, from) ? blocks[from] : undefined;
  if (own === undefined && fromConfig === undefined) return null;
  const moved = fromConfig ? deepMerge(fromConfig, isObject(own) ? own : {}) : own;
  const next = { ...blocks, [to]: moved };
  delete next[from];
  return { ...doc, blocks: next };
}

/** The document without the settings of deleted blocks (null when nothing changes). */
export function withoutBlocks(doc: Record<string, unknown> | null, ids: string[]): Record<string, unknown> | null {
  const blocks = doc?.blocks;
  if (!isObject(blocks) || !ids.some((id) => id in blocks)) return null;
  const next = { ...blocks };
  for (const id of ids) delete next[id];
  return { ...doc, blocks: next };
}
