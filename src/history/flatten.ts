// History messages (reference/datastore.md §5): validation, flattening and numeric conversion.
// Pure functions; the ingest adds topics, limits and logging.
import { parseJson, sizeProblem as payloadSizeProblem } from '../shared/json.js';
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

export type Parsed = { ok: true; key: string; fields: Array<[string, number]> } | { ok: false; reason: string };

// A key names a measurement: a slash would make `<key>/<path>` ambiguous, and quotes, commas,
// spaces and control characters break line protocol and PromQL selectors.
const BAD_KEY = /[/"'\\,=\s\p{Cc}]/u;
const BAD_FIELD = /["\\\p{Cc}]/u;

/** Validate and convert one raw history payload. Fields that are not numbers are skipped; a message with none is still ok. */
export function parseHistoryMessage(payload: Buffer | string, limits: HistoryLimits = DEFAULT_LIMITS): Parsed {
  if (payload.length === 0) return { ok: false, reason: 'empty payload' };
  const parsed = parseJson(payload, { maxBytes: limits.maxBytes, what: 'the payload' });
  return parsed.ok
    ? historyFields(parsed.value, limits)
    : { ok: false, reason: parsed.problem === 'not JSON' ? 'not JSON' : parsed.reason };
}

/** Why a payload of `size` bytes is refused, or null. */
export function sizeProblem(size: number, limits: HistoryLimits = DEFAULT_LIMITS): string | null {
  return size === 0 ? 'empty payload' : payloadSizeProblem('the payload', size, limits.maxBytes);
}

/** Why `path` cannot name a field, or null. */
function fieldProblem(path: string, limits: HistoryLimits): string | null {
  if (path.length > limits.maxNameLength)
    return `field name longer than ${limits.maxNameLength} characters: ${JSON.stringify(path.slice(0, 40))}...`;
  if (BAD_FIELD.test(path)) return `field ${JSON.stringify(path)} holds a quote, backslash or control character`;
  return null;
}

/** The checked numeric fields of one top-level entry of a message's data, kept by the entry's object (see historyFields). */
type Entry = { key: string; fields: Array<[string, number]>; reason: string | null };

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

/** A numeric leaf: kept, or the entry refused when its path is. */
function addField(entry: Entry, path: string, n: number, problem: string | null): void {
  if (problem !== null) entry.reason = problem;
  else entry.fields.push([path, n]);
}

function entryFields(key: string, value: unknown, limits: HistoryLimits, kept?: PathNode): Entry {
  const entry: Entry = { key, fields: [], reason: null };
  if (kept)
    walk(value, childOf(kept, key), childOf, (node, v) => {
      const n = entry.reason === null ? toNumber(v) : undefined;
      if (n !== undefined) addField(entry, node.path, n, (node.problem ??= fieldProblem(node.path, limits)));
    });
  else
    walk(value, key, joinPath, (path, v) => {
      const n = entry.reason === null ? toNumber(v) : undefined;
      if (n !== undefined) addField(entry, path, n, fieldProblem(path, limits));
    });
  return entry;
}

/**
 * Validate and convert a history message already parsed (or never serialised: the controller's
 * own): each top-level entry is flattened and checked, and the fields sorted by name (as
 * flatten() would give them). With `memo`, an entry whose value is an object is flattened and
 * checked once per object: the controller's own message keeps each unchanged block's part as
 * the same object (src/mqtt/history.ts), so only the blocks that changed are flattened again,
 * and those along the paths built for them before.
 * The memo belongs to one caller with one set of limits.
 */
export function historyFields(msg: unknown, limits: HistoryLimits = DEFAULT_LIMITS, memo?: FieldsMemo): Parsed {
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return { ok: false, reason: 'not a JSON object' };
  const { key, data } = msg as Record<string, unknown>;
  if (typeof key !== 'string' || key === '') return { ok: false, reason: 'key must be a non-empty string' };
  if (key.length > limits.maxNameLength)
    return { ok: false, reason: `key longer than ${limits.maxNameLength} characters` };
  if (BAD_KEY.test(key))
    return {
      ok: false,
      reason: `key ${JSON.stringify(key)} holds a slash, quote, comma, '=', space or control character`,
    };
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    return { ok: false, reason: 'data must be a JSON object' };
  const fields: Array<[string, number]> = [];
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
    if (entry.reason !== null) return { ok: false, reason: entry.reason };
    for (const field of entry.fields) fields.push(field);
    if (fields.length > limits.maxFields) return { ok: false, reason: `more than ${limits.maxFields} numeric fields` };
  }
  return { ok: true, key, fields: fields.sort(byName) };
}
