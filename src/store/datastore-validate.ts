// Shape rules of datastore documents and query bodies (spec §2.4). Pure: returns the issues,
// each naming the offending field, so the REST API and backup load share one rulebook.
import type { TSchema } from '@sinclair/typebox';
import { checkAgainst } from '../../drivers/schema-check.js';

/** A datastore document: {namespace, id, ...fields}. */
export type Doc = { namespace: string; id: string } & Record<string, unknown>;

export interface Issue {
  path: string;
  message: string;
}

// `\w` as in the regex dialect of the spec's origin (Unicode-aware): letters, marks, digits,
// connector punctuation. Plain JS `\w` would reject ids such as "brauerei-müller".
const WORD = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}';
export const ID_PATTERN = new RegExp(`^[${WORD}\\-.~]+$`, 'u');
export const NAMESPACE_PATTERN = new RegExp(`^[${WORD}\\-.~:]*$`, 'u');
export const ID_RULE = '^[\\w\\-\\.~]+$';
export const NAMESPACE_RULE = '^[\\w\\-\\.~\\:]*$';

// Length caps, in characters (code points). They bound the work of a filter match (the glob
// matcher is O(key × filter)) and keep keys and MQTT topics sane.
export const MAX_ID_LENGTH = 200;
export const MAX_NAMESPACE_LENGTH = 500;
export const MAX_FILTER_LENGTH = 500;

export interface KeyQuery {
  namespace: string;
  id: string;
}

/** A namespace with optional exact ids and/or a glob on the rest of the key. */
export interface SetQuery {
  namespace: string;
  ids?: string[];
  filter?: string;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v);
  return typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`;
}

/** Whether `v` has more than `max` code points; stops counting early. */
function longerThan(v: string, max: number): boolean {
  if (v.length <= max) return false;
  let n = 0;
  for (const _ of v) if (++n > max) return true;
  return false;
}

/** Push a length issue (the value itself is not echoed) when `v` is over `max`. */
function checkLength(v: string, max: number, path: string, issues: Issue[]): boolean {
  if (!longerThan(v, max)) return true;
  issues.push({ path, message: `must be at most ${max} characters, got ${Array.from(v).length}` });
  return false;
}

function checkNamespace(v: unknown, path: string, issues: Issue[]): v is string {
  if (typeof v !== 'string') {
    issues.push({ path, message: v === undefined ? 'required string (may be empty)' : `must be a string, got ${describe(v)}` });
    return false;
  }
  if (!checkLength(v, MAX_NAMESPACE_LENGTH, path, issues)) return false;
  if (!NAMESPACE_PATTERN.test(v)) {
    issues.push({ path, message: `must match ${NAMESPACE_RULE} (letters, digits, _ - . ~ :), got ${describe(v)}` });
    return false;
  }
  return true;
}

function checkId(v: unknown, path: string, issues: Issue[]): v is string {
  if (typeof v !== 'string') {
    issues.push({ path, message: v === undefined ? 'required non-empty string' : `must be a string, got ${describe(v)}` });
    return false;
  }
  if (!checkLength(v, MAX_ID_LENGTH, path, issues)) return false;
  if (!ID_PATTERN.test(v)) {
    issues.push({ path, message: v === '' ? 'must not be empty' : `must match ${ID_RULE} (letters, digits, _ - . ~), got ${describe(v)}` });
    return false;
  }
  return true;
}

/** The schema of the documents under a key that the service itself reads (the units document). */
export type DocumentShapes = (namespace: string, id: string) => TSchema | undefined;

/** Issues of one document to be stored; none means it is a valid Doc. */
export function documentIssues(value: unknown, path: string, shapes?: DocumentShapes): Issue[] {
  const issues: Issue[] = [];
  if (!isPlainObject(value)) {
    issues.push({ path, message: value === undefined ? 'required document {namespace, id, ...}' : `must be a document object {namespace, id, ...}, got ${describe(value)}` });
    return issues;
  }
  const namespaceOk = checkNamespace(value.namespace, path ? `${path}.namespace` : 'namespace', issues);
  const idOk = checkId(value.id, path ? `${path}.id` : 'id', issues);
  const shape = namespaceOk && idOk ? shapes?.(value.namespace as string, value.id as string) : undefined;
  const checked = shape ? checkAgainst(shape, value, path) : undefined;
  if (checked?.issue) issues.push({ path: checked.issue.path, message: checked.issue.message });
  return issues;
}

export function isDoc(value: unknown): value is Doc {
  return documentIssues(value, '').length === 0;
}

/** `{namespace, id}` of get and delete; other members (a whole document) are ignored. */
export function parseKeyQuery(body: Record<string, unknown>): { query?: KeyQuery; issues: Issue[] } {
  const issues: Issue[] = [];
  const nsOk = checkNamespace(body.namespace, 'namespace', issues);
  const idOk = checkId(body.id, 'id', issues);
  return nsOk && idOk ? { query: { namespace: body.namespace as string, id: body.id as string }, issues } : { issues };
}

/** `{namespace, ids?, filter?}` of mget and mdelete; `null` counts as absent. */
export function parseSetQuery(body: Record<string, unknown>): { query?: SetQuery; issues: Issue[] } {
  const issues: Issue[] = [];
  checkNamespace(body.namespace, 'namespace', issues);
  const query: SetQuery = { namespace: body.namespace as string };
  if (body.ids !== undefined && body.ids !== null) {
    if (!Array.isArray(body.ids)) issues.push({ path: 'ids', message: `must be an array of ids, got ${describe(body.ids)}` });
    else if (body.ids.map((id, i) => checkId(id, `ids.${i}`, issues)).every(Boolean)) query.ids = body.ids as string[];
  }
  if (body.filter !== undefined && body.filter !== null) {
    if (typeof body.filter !== 'string') issues.push({ path: 'filter', message: `must be a glob string, got ${describe(body.filter)}` });
    else if (checkLength(body.filter, MAX_FILTER_LENGTH, 'filter', issues)) query.filter = body.filter;
  }
  return issues.length ? { issues } : { query, issues };
}
