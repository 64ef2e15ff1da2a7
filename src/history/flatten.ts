// History messages (reference/datastore.md §5): validation, flattening and numeric conversion.
// Pure functions; the ingest adds topics, limits and logging.
import { LONE_SURROGATE, parseJson, sizeProblem as payloadSizeProblem } from '../shared/json.js';
import { DEFAULT_LIMITS, type HistoryLimits } from './limits.js';

export type FlatValue = string | number | boolean | null;

/**
 * Flatten nested objects and arrays into one level of `/`-joined paths. Array items get index
 * segments, empty containers vanish, keys already holding `/` are kept as they are. The result
 * is sorted by key (code points).
 */
export function flatten(data: Record<string, unknown>): Array<[string, FlatValue]> {
  const out: Array<[string, FlatValue]> = [];
  walk(data, '', joinPath, (path, value) => out.push([path, value]));
  return out.sort(byName);
}

/** The path of `key` below `path` ('' for the top). */
const joinPath = (path: string, key: string) => (path ? `${path}/${key}` : key);

/**
 * The leaves under `value` in the order found, each at its place below `at`: `child` gives an
 * object key's or array index's place (a path string by joinPath, or a kept PathNode).
 */
function walk<P>(
  value: unknown,
  at: P,
  child: (at: P, key: string) => P,
  leaf: (at: P, value: FlatValue) => void,
): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) walk(value[i], child(at, String(i)), child, leaf);
  } else if (value !== null && typeof value === 'object') {
    for (const k of Object.keys(value)) walk((value as Record<string, unknown>)[k], child(at, k), child, leaf);
  } else {
    leaf(at, value as FlatValue);
  }
}

/**
 * A path already built, for a producer whose messages keep their shape (the controller's own):
 * one node per segment holds the joined path and its check, so flattening such a message again
 * builds no names and runs no checks for the fields it had before.
 */
interface PathNode {
  readonly path: string;
  /** Why the path is refused as a field name, null when it is not; undefined until checked. */
  problem?: string | null;
  kids?: Map<string, PathNode>;
}

function childOf(node: PathNode, key: string): PathNode {
  const kids = (node.kids ??= new Map());
  let kid = kids.get(key);
  if (kid === undefined) kids.set(key, (kid = { path: joinPath(node.path, key) }));
  return kid;
}

const byName = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

// Python float() for the values a producer sends: a decimal with optional sign, fraction and
// exponent, surrounded by whitespace. Hex, underscores, "nan" and "inf" are refused.
const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** The stored number of a flattened value, or undefined when it is skipped. Non-finite numbers are skipped. */
export function toNumber(value: FlatValue): number | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && DECIMAL.test(value)) {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Fields a message's data held that cannot be stored under their name, by reason; `example` names one. */
export interface FieldDrops {
  counts: Record<string, number>;
  example: string;
}

export type Parsed =
  | { ok: true; key: string; fields: Array<[string, number]>; dropped: FieldDrops | null }
  | { ok: false; reason: string; detail: string };

// Why a whole message is refused (the counted reasons of system/status); `detail` says more.
export const REFUSED = {
  empty: 'empty payload',
  json: 'not JSON',
  size: 'too large',
  shape: 'not a history message',
  key: 'key not storable',
  fields: 'too many fields',
  ownKey: "the controller's own key",
} as const;

// Why one field is left out while the rest of its message is stored. Names are user text (a
// block id may hold quotes, backslashes, spaces, slashes, any unicode): each store escapes them
// by its own rule. Only what no store can hold is refused: a control character (a line break
// ends an Influx line), half of a surrogate pair (UTF-8 cannot hold it) and a name past the
// length limit.
export const FIELD_DROPPED = {
  control: 'field name holds a control character',
  surrogate: 'field name holds half of a surrogate pair',
  long: 'field name too long',
} as const;

const CONTROL = /\p{Cc}/u;

const refused = (reason: string, detail: string): Parsed => ({ ok: false, reason, detail });

/** Validate and convert one raw history payload. Fields that are not numbers are skipped; a message with none is still ok. */
export function parseHistoryMessage(payload: Buffer | string, limits: HistoryLimits = DEFAULT_LIMITS): Parsed {
  if (payload.length === 0) return refused(REFUSED.empty, 'empty payload');
  const parsed = parseJson(payload, { maxBytes: limits.maxBytes, what: 'the payload' });
  if (parsed.ok) return historyFields(parsed.value, limits);
  if (parsed.problem === 'not JSON') return refused(REFUSED.json, 'not JSON');
  if (parsed.problem === 'too large') return refused(REFUSED.size, parsed.reason);
  return refused(parsed.problem === 'too deep' ? REFUSED.shape : REFUSED.json, parsed.reason);
}

/** Why a payload of `size` bytes is refused, or null. */
export function sizeProblem(size: number, limits: HistoryLimits = DEFAULT_LIMITS): string | null {
  return size === 0 ? 'empty payload' : payloadSizeProblem('the payload', size, limits.maxBytes);
}

/** Why `path` cannot name a stored field (one of FIELD_DROPPED), or null. */
function fieldProblem(path: string, limits: HistoryLimits): string | null {
  if (path.length > limits.maxNameLength) return FIELD_DROPPED.long;
  if (CONTROL.test(path)) return FIELD_DROPPED.control;
  // Stored as UTF-8 (the field list, a line of the Influx protocol), it would read back as U+FFFD.
  if (LONE_SURROGATE.test(path)) return FIELD_DROPPED.surrogate;
  return null;
}

/** The checked numeric fields of one top-level entry of a message's data, kept by the entry's object (see historyFields). */
type Entry = { key: string; fields: Array<[string, number]>; dropped: FieldDrops | null };

/**
 * What historyFields keeps for one caller between messages: the fields of each entry object (an
 * entry that is the same object as last time is not flattened again) and the paths built so far.
 */
export interface FieldsMemo {
  readonly entries: WeakMap<object, Entry>;
  readonly paths: PathNode;
}

export function fieldsMemo(): FieldsMemo {
  return { entries: new WeakMap(), paths: { path: '' } };
}

function addDrop(to: FieldDrops | null, reason: string, n: number, example: string): FieldDrops {
  const drops = to ?? { counts: {}, example };
  drops.counts[reason] = (drops.counts[reason] ?? 0) + n;
  return drops;
}

/** A numeric leaf: kept, or counted as dropped when its path cannot name a field. */
function addField(entry: Entry, path: string, n: number, problem: string | null): void {
  if (problem === null) entry.fields.push([path, n]);
  else entry.dropped = addDrop(entry.dropped, problem, 1, path.length > 80 ? `${path.slice(0, 80)}...` : path);
}

function entryFields(key: string, value: unknown, limits: HistoryLimits, kept?: PathNode): Entry {
  const entry: Entry = { key, fields: [], dropped: null };
  if (kept)
    walk(value, childOf(kept, key), childOf, (node, v) => {
      const n = toNumber(v);
      if (n !== undefined) addField(entry, node.path, n, (node.problem ??= fieldProblem(node.path, limits)));
    });
  else
    walk(value, key, joinPath, (path, v) => {
      const n = toNumber(v);
      if (n !== undefined) addField(entry, path, n, fieldProblem(path, limits));
    });
  return entry;
}

/**
 * Validate and convert a history message already parsed (or never serialised: the controller's
 * own): each top-level entry is flattened and checked, and the fields sorted by name (as
 * flatten() would give them). With `memo`, an entry whose value is an object is flattened and
 * checked once per object: the controller's own message keeps each unchanged block's part as
 * the same object (the runtime's history read, src/runtime/reads.ts), so only the blocks that
 * changed are flattened again, and those along the paths built for them before.
 * The memo belongs to one caller with one set of limits.
 */
export function historyFields(msg: unknown, limits: HistoryLimits = DEFAULT_LIMITS, memo?: FieldsMemo): Parsed {
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return refused(REFUSED.shape, 'not a JSON object');
  const { key, data } = msg as Record<string, unknown>;
  if (typeof key !== 'string' || key === '') return refused(REFUSED.shape, 'key must be a non-empty string');
  if (key.length > limits.maxNameLength)
    return refused(REFUSED.key, `key longer than ${limits.maxNameLength} characters`);
  if (CONTROL.test(key)) return refused(REFUSED.key, `key ${JSON.stringify(key)} holds a control character`);
  if (LONE_SURROGATE.test(key))
    return refused(REFUSED.key, `key ${JSON.stringify(key)} holds half of a surrogate pair`);
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    return refused(REFUSED.shape, 'data must be a JSON object');
  const fields: Array<[string, number]> = [];
  let dropped: FieldDrops | null = null;
  const values = data as Record<string, unknown>;
  const keys = Object.keys(values);
  // The paths of entries this message no longer has (deleted or renamed blocks) are let go.
  const top = memo?.paths.kids;
  if (top && top.size > keys.length) for (const k of top.keys()) if (!Object.hasOwn(values, k)) top.delete(k);
  for (const k of keys) {
    const value = values[k];
    const keyed = memo && value !== null && typeof value === 'object' ? value : null;
    const kept = keyed ? memo!.entries.get(keyed) : undefined;
    const entry = kept?.key === k ? kept : entryFields(k, value, limits, memo?.paths);
    if (keyed && entry !== kept) memo!.entries.set(keyed, entry);
    if (entry.dropped)
      for (const [reason, n] of Object.entries(entry.dropped.counts))
        dropped = addDrop(dropped, reason, n, entry.dropped.example);
    for (const field of entry.fields) fields.push(field);
    if (fields.length > limits.maxFields)
      return refused(REFUSED.fields, `more than ${limits.maxFields} numeric fields`);
  }
  return { ok: true, key, fields: fields.sort(byName), dropped };
}
