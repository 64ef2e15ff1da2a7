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
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, path ? `${path}/${i}` : String(i)));
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}/${k}` : k);
    } else {
      out.push([path, value as FlatValue]);
    }
  };
  walk(data, '');
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

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
  return parsed.ok ? historyFields(parsed.value, limits) : { ok: false, reason: parsed.problem === 'not JSON' ? 'not JSON' : parsed.reason };
}

/** Why a payload of `size` bytes is refused, or null. */
export function sizeProblem(size: number, limits: HistoryLimits = DEFAULT_LIMITS): string | null {
  return size === 0 ? 'empty payload' : payloadSizeProblem('the payload', size, limits.maxBytes);
}

/** Validate and convert a history message already parsed (or never serialised: the controller's own). */
export function historyFields(msg: unknown, limits: HistoryLimits = DEFAULT_LIMITS): Parsed {
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return { ok: false, reason: 'not a JSON object' };
  const { key, data } = msg as Record<string, unknown>;
  if (typeof key !== 'string' || key === '') return { ok: false, reason: 'key must be a non-empty string' };
  if (key.length > limits.maxNameLength) return { ok: false, reason: `key longer than ${limits.maxNameLength} characters` };
  if (BAD_KEY.test(key)) return { ok: false, reason: `key ${JSON.stringify(key)} holds a slash, quote, comma, '=', space or control character` };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return { ok: false, reason: 'data must be a JSON object' };
  const fields: Array<[string, number]> = [];
  for (const [path, value] of flatten(data as Record<string, unknown>)) {
    const n = toNumber(value);
    if (n === undefined) continue;
    if (path.length > limits.maxNameLength) return { ok: false, reason: `field name longer than ${limits.maxNameLength} characters: ${JSON.stringify(path.slice(0, 40))}...` };
    if (BAD_FIELD.test(path)) return { ok: false, reason: `field ${JSON.stringify(path)} holds a quote, backslash or control character` };
    fields.push([path, n]);
    if (fields.length > limits.maxFields) return { ok: false, reason: `more than ${limits.maxFields} numeric fields` };
  }
  return { ok: true, key, fields };
}
