// Legacy vocabulary: names older Brewblox clients and backups send that the current field table
// does not have. Each block type lists its own next to its field table; this module applies
// them to the raw input before the normal decoder runs, so a name in neither table stays a 422.
import { decodeData, decodeDatetime, parseKey, type DecodeContext } from './decode.js';
import { isPlainObject, type Partial, type ValidationIssue } from './partial.js';
import type { FieldTable } from './fields.js';
import { isWallSet } from '../shared/wall-set.js';

export interface TranslateResult {
  /** Raw input keys (current names, postfixes allowed) to add; a key the caller also gave wins. */
  set?: Record<string, unknown>;
  issues?: ValidationIssue[];
}

export type LegacyRule =
  /** Dropped by later firmware (`retired`: its value is lost) or read-only and not reported: accepted and ignored. */
  | { kind: 'ignore'; note: string; retired: boolean }
  /** A current Brewblox field this runtime does not implement: accepted only with its neutral value. */
  | { kind: 'unsupported'; note: string; neutral: (v: unknown) => boolean }
  /** Renamed: the value moves to the current name (unless that is given too). */
  | { kind: 'rename'; to: string; note: string }
  /** An older shape of the value, turned into current fields. */
  | {
      kind: 'translate';
      note: string;
      translate: (value: unknown, ctx: DecodeContext, path: string, input: Record<string, unknown>) => TranslateResult;
    };

export type LegacyTable = Readonly<Record<string, LegacyRule>>;

export const legacy = {
  ignore: (note: string): LegacyRule => ({ kind: 'ignore', note, retired: true }),
  unsupported: (note: string, neutral: (v: unknown) => boolean = isNeutral): LegacyRule => ({
    kind: 'unsupported',
    note,
    neutral,
  }),
  /** A read-only field of the Brewblox shape that this runtime does not report: any value is ignored. */
  notReported: (note: string): LegacyRule => ({ kind: 'ignore', note, retired: false }),
  rename: (to: string): LegacyRule => ({ kind: 'rename', to, note: `renamed to '${to}'` }),
  translate: (
    note: string,
    translate: (value: unknown, ctx: DecodeContext, path: string, input: Record<string, unknown>) => TranslateResult,
  ): LegacyRule => ({ kind: 'translate', note, translate }),
};

/** false, 0, null, '', an empty link or a zero/null quantity: the value that means "not used". */
export function isNeutral(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return true;
  if (isPlainObject(v)) {
    if ('id' in v && (v.id === null || v.id === '' || v.id === 0)) return true;
    if ('value' in v && (v.value === null || v.value === 0)) return true;
  }
  return false;
}

/**
 * Rewrites legacy names in `input` (one object level) into current ones. Current field names
 * always win: a legacy entry for a name the field table has is only used to upgrade its value
 * shape (kind 'translate').
 */
export function upgradeInput(
  fields: FieldTable,
  table: LegacyTable | undefined,
  input: unknown,
  ctx: DecodeContext,
  path = 'data',
): { input: unknown; issues: ValidationIssue[]; retired: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const retired: ValidationIssue[] = [];
  if (!table || !isPlainObject(input)) return { input, issues, retired };
  const given = new Set(Object.keys(input).map((k) => parseKey(k).name));
  const out: Record<string, unknown> = {};
  const added: Record<string, unknown> = {};
  for (const [rawKey, raw] of Object.entries(input)) {
    const { name, unit, link } = parseKey(rawKey);
    const rule = Object.hasOwn(table, name) ? table[name] : undefined;
    const current = Object.hasOwn(fields, name);
    if (!rule || (current && rule.kind !== 'translate')) {
      out[rawKey] = raw;
      continue;
    }
    const at = `${path}.${rawKey}`;
    switch (rule.kind) {
      case 'ignore':
        if (rule.retired) retired.push({ path: at, message: `retired: ${rule.note}`, dropped: true });
        break;
      case 'unsupported':
        if (!rule.neutral(raw))
          issues.push({
            path: at,
            message: `'${name}' is not supported by this controller (${rule.note}); only its neutral value is accepted, got ${JSON.stringify(raw)}`,
            dropped: true,
          });
        break;
      case 'rename':
        if (!given.has(rule.to)) added[rule.to + (unit !== undefined ? `[${unit}]` : link ? '<>' : '')] = raw;
        break;
      case 'translate': {
        const r = rule.translate(raw, ctx, at, input);
        issues.push(...(r.issues ?? []));
        for (const [k, v] of Object.entries(r.set ?? {})) {
          if (k === name && current) out[k] = v;
          else if (!given.has(parseKey(k).name)) added[k] = v;
        }
        break;
      }
    }
  }
  return { input: { ...added, ...out }, issues, retired };
}

/**
 * Decode block data, legacy names first. `retired`: fields later firmware dropped, accepted and
 * left out (an API write says nothing of them; a backup load warns, as their values are lost).
 */
export function decodeWithLegacy(
  fields: FieldTable,
  table: LegacyTable | undefined,
  input: unknown,
  ctx: DecodeContext,
): { value: Partial; issues: ValidationIssue[]; retired: ValidationIssue[] } {
  const up = upgradeInput(fields, table, input, ctx);
  const { value, issues } = decodeData(fields, up.input, ctx);
  return { value, issues: [...up.issues, ...issues], retired: up.retired };
}

/** Every value key of a legacy list item, with its postfix parsed. */
function entries(item: Record<string, unknown>) {
  return Object.entries(item).map(([rawKey, value]) => ({ rawKey, value, ...parseKey(rawKey) }));
}

/** The block id a raw link value names, or null. */
function linkId(v: unknown): string | null {
  if (isPlainObject(v)) v = v.id;
  if (typeof v === 'number' && v !== 0) return String(v);
  return typeof v === 'string' && v !== '' ? v : null;
}

function constraintList(value: unknown, path: string): { items: Record<string, unknown>[]; issues: ValidationIssue[] } {
  const list = isPlainObject(value) ? value.constraints : value;
  if (list === undefined || list === null) return { items: [], issues: [] };
  if (!Array.isArray(list)) return { items: [], issues: [{ path, message: 'must be {"constraints": [...]}' }] };
  const issues: ValidationIssue[] = [];
  const items: Record<string, unknown>[] = [];
  list.forEach((item, i) =>
    isPlainObject(item)
      ? items.push(item)
      : issues.push({ path: `${path}.constraints.${i}`, message: 'must be an object' }),
  );
  return { items, issues };
}

const IGNORED_IN_ITEM = new Set(['remaining', 'limiting']);

type Entry = ReturnType<typeof entries>[number];

/**
 * A translator of a `constrainedBy: {constraints: [...]}` list into the `constraints` object.
 * `one` adds one list entry (`at` is its item's path) to `out` and returns false for a name it
 * does not know, which becomes an issue listing the `known` ones.
 */
function constrainedBy(
  note: string,
  kind: string,
  known: string[],
  one: (e: Entry, at: string, ctx: DecodeContext, out: Record<string, unknown>, issues: ValidationIssue[]) => boolean,
): LegacyRule {
  return legacy.translate(note, (value, ctx, path) => {
    const { items, issues } = constraintList(value, path);
    const out: Record<string, unknown> = {};
    items.forEach((item, i) => {
      const at = `${path}.constraints.${i}`;
      for (const e of entries(item)) {
        if (IGNORED_IN_ITEM.has(e.name)) continue;
        if (!one(e, at, ctx, out, issues))
          issues.push({
            path: `${at}.${e.rawKey}`,
            message: `unknown ${kind} constraint '${e.rawKey}'; known: ${known.join(', ')}`,
          });
      }
    });
    return { set: { constraints: out }, issues };
  });
}

const DIGITAL_DURATIONS = ['minOff', 'minOn', 'delayedOn', 'delayedOff'];

/** `constrainedBy: {constraints: [{minOn}, {mutexed: {...}}, ...]}` (digital) -> `constraints`. */
export const digitalConstrainedBy = constrainedBy(
  'older list of digital constraints; becomes the constraints object',
  'digital',
  [...DIGITAL_DURATIONS, 'mutexed'],
  (e, at, ctx, out, issues) => {
    if (DIGITAL_DURATIONS.includes(e.name)) {
      out[e.name] = { enabled: true, [e.unit !== undefined ? `duration[${e.unit}]` : 'duration']: e.value };
      return true;
    }
    if (e.name !== 'mutexed' && e.name !== 'mutex') return false;
    // `mutex<>: id` is the oldest form; `mutexed: {mutexId, extraHoldTime, hasCustomHoldTime}` the later one.
    const body = e.name === 'mutex' ? { mutexId: e.value } : isPlainObject(e.value) ? e.value : null;
    if (!body) {
      issues.push({ path: `${at}.${e.rawKey}`, message: 'must be an object' });
      return true;
    }
    const mutexed: Record<string, unknown> = { enabled: true };
    for (const m of entries(body)) {
      if (m.name === 'mutexId') {
        const id = linkId(m.value);
        const problem =
          id === null ? 'names no Mutex' : ctx.checkLink(id, 'MutexInterface', `${at}.${e.rawKey}.${m.rawKey}`);
        if (problem)
          issues.push({
            path: `${at}.${e.rawKey}.${m.rawKey}`,
            message: `cannot translate the mutexed constraint: ${problem}`,
          });
        else mutexed.mutexId = { __bloxtype: 'Link', id };
      } else if (m.name === 'extraHoldTime') mutexed[m.rawKey] = m.value;
      // hasCustomHoldTime (the hold time then came from the Mutex) and the read-only hasLock are dropped.
      else if (m.name !== 'hasCustomHoldTime' && m.name !== 'hasLock')
        issues.push({
          path: `${at}.${e.rawKey}.${m.rawKey}`,
          message: `unknown field '${m.rawKey}' in a mutexed constraint`,
        });
    }
    out.mutexed = mutexed;
    return true;
  },
);

/** `constrainedBy: {constraints: [{min}, {max}, {balanced: {...}}]}` (analog) -> `constraints`. */
export const analogConstrainedBy = constrainedBy(
  'older list of analog constraints; becomes the constraints object',
  'analog',
  ['min', 'max', 'balanced'],
  (e, at, ctx, out, issues) => {
    if (e.name === 'min' || e.name === 'max') {
      out[e.name] = { enabled: true, value: e.value };
      return true;
    }
    if (e.name !== 'balanced') return false;
    const body = isPlainObject(e.value) ? e.value : { balancerId: e.value };
    const id = linkId(entries(body).find((b) => b.name === 'balancerId')?.value);
    const problem = id === null ? 'names no Balancer' : ctx.checkLink(id, 'BalancerInterface', `${at}.${e.rawKey}`);
    if (problem)
      issues.push({ path: `${at}.${e.rawKey}`, message: `cannot translate the balanced constraint: ${problem}` });
    else out.balanced = { enabled: true, balancerId: { __bloxtype: 'Link', id } };
    return true;
  },
);

function pointSeconds(item: Record<string, unknown>): { key: string; seconds: number } | null {
  for (const e of entries(item)) {
    if (e.name !== 'time') continue;
    const v = isPlainObject(e.value) ? e.value.value : e.value;
    const unit = isPlainObject(e.value) && typeof e.value.unit === 'string' ? e.value.unit : e.unit;
    if (typeof v !== 'number' || (unit !== undefined && !['s', 'second', 'seconds', 'sec'].includes(unit))) return null;
    return { key: e.rawKey, seconds: v };
  }
  return null;
}

/**
 * SetpointProfile points of older firmware carry absolute epoch seconds in `time` and no
 * `start`: the first point becomes the start, every time an offset from it.
 */
export const absoluteProfilePoints = legacy.translate(
  'points with absolute epoch times (older backups) become offsets from start',
  (value, _ctx, _path, input) => {
    if (!Array.isArray(value)) return { set: { points: value } };
    const times = value.map((p) => (isPlainObject(p) ? pointSeconds(p) : null));
    // A point time on a set clock (after 2001-09-09, the rule the start's own check uses) is a date.
    if (!times.some((t) => t !== null && isWallSet(t.seconds * 1000))) return { set: { points: value } };
    const givenStart = input.start;
    const start =
      typeof givenStart === 'number' && givenStart > 0
        ? givenStart > 1e11
          ? givenStart / 1000
          : givenStart
        : Math.min(...times.filter((t) => t !== null).map((t) => t!.seconds));
    // No date (2^53 s, 1e300 s): not an older backup's epoch time, so the points are left as they
    // are and the decoder names the point's time (a `start` the client never sent would be named).
    if (decodeDatetime(start) === undefined) return { set: { points: value } };
    const points = value.map((p, i) => {
      const t = times[i];
      if (!t || !isPlainObject(p)) return p;
      const { [t.key]: _drop, ...rest } = p;
      return { ...rest, time: Math.max(0, t.seconds - start) };
    });
    return { set: { points, start } };
  },
);
