// Block JSON shapes and the shape check of a block body, shared by REST, MQTT and backup load.
import { metaSizeIssue } from './limits.js';
import { ruleGot } from '../../drivers/json-number.js';
import { quotedText } from '../../drivers/quoted-text.js';
import { issuesText, unholdableNumber } from '../shared/json.js';
import { MAX_META_DEPTH } from '../shared/limits.js';
import { isPlainObject, type ValidationIssue } from '../codec/partial.js';
import { BlockError, conflict, invalid, notFound } from './errors.js';
import type { AnyBlock } from './types.js';
import type { BlockTable } from './block-table.js';

/** System blocks have nids below this; user and discovered blocks get this or more. */
export const FIRST_USER_NID = 100;

export interface BlockJson {
  id: string;
  nid: number;
  type: string;
  serviceId: string;
  data: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

export interface Ident {
  id: string;
  nid: number;
  type: string;
  serviceId: string;
}

export interface BlockBody {
  id?: string;
  nid?: number;
  type: string;
  data: unknown;
  meta?: Record<string, unknown>;
}

/** Shape check of a Block body, shared by REST, MQTT and backup load. */
export function blockBody(input: unknown, needData: boolean): BlockBody {
  if (!isPlainObject(input))
    throw new BlockError('bad-request', 'the body must be a JSON object (a block: {id, type, data})');
  const issues: ValidationIssue[] = [];
  const { id, type, data, meta } = input;
  // Brewblox clients send nid 0 or null for "assign one".
  const nid = input.nid === 0 || input.nid === null ? undefined : input.nid;
  if (typeof type !== 'string' || type === '')
    issues.push({ path: 'type', message: type === undefined ? 'required' : 'must be a non-empty string' });
  if (needData && !isPlainObject(data))
    issues.push({ path: 'data', message: data === undefined ? 'required' : 'must be an object' });
  if (id !== undefined && (typeof id !== 'string' || !validId(id))) {
    issues.push({ path: 'id', message: `must be ${ID_RULE}${idFault(id)}` });
  }
  if (nid !== undefined && (typeof nid !== 'number' || !Number.isInteger(nid) || nid < 1 || nid > MAX_NID))
    issues.push({ path: 'nid', message: `must be an integer from 1 to ${MAX_NID}` });
  const serviceIdIssue = serviceIdCheck(input.serviceId);
  if (serviceIdIssue) issues.push(serviceIdIssue);
  if (meta !== undefined && !isPlainObject(meta)) issues.push({ path: 'meta', message: 'must be an object' });
  else if (meta !== undefined && depth(meta) > MAX_META_DEPTH)
    issues.push({ path: 'meta', message: `may nest at most ${MAX_META_DEPTH} levels deep` });
  else if (meta !== undefined) {
    const tooLarge = unholdableNumber(meta, 'meta') ?? metaSizeIssue(meta);
    if (tooLarge) issues.push(tooLarge);
  }
  if (issues.length) throw invalid(`invalid block: ${issuesText(issues)}`, issues);
  return {
    id: id as string | undefined,
    nid: nid as number | undefined,
    type: type as string,
    data,
    meta: meta as Record<string, unknown> | undefined,
  };
}

/** Longest example body a refusal quotes: past it the data is left out (a body may be large). */
const EXAMPLE_LIMIT = 200;

/**
 * The shape check of a write or patch body. One without `type` that names a block is told the body
 * to send: its own, with that block's type (a client cannot be expected to guess the field).
 */
export function updateBody(input: unknown, table: Pick<BlockTable, 'byId' | 'byNid'>): BlockBody {
  try {
    return blockBody(input, true);
  } catch (e) {
    const typeIssue = e instanceof BlockError ? e.validation?.find((v) => v.path === 'type') : undefined;
    if (!typeIssue || !isPlainObject(input) || input.type !== undefined) throw e;
    let block: AnyBlock;
    try {
      block = resolveIdent(input, table);
    } catch {
      throw e;
    }
    // An id the body cannot have (its own issue says why: one of megabytes, say) is not put in a body to send.
    const badId = (e as BlockError).validation!.some((v) => v.path === 'id');
    const hint = `block '${block.id}' is a ${block.def.type}${badId ? '' : `; send ${exampleBody(input, block.def.type)}`}`;
    const validation = (e as BlockError).validation!.map((v) =>
      v === typeIssue ? { ...v, message: `${v.message}: ${hint}` } : v,
    );
    throw invalid(`invalid block: ${issuesText(validation)}`, validation);
  }
}

/** `input` as a body of `type`: its id or nid, the type, its data (left out when long). */
function exampleBody(input: Record<string, unknown>, type: string): string {
  const ident = Object.fromEntries(['id', 'nid'].filter((k) => input[k] !== undefined).map((k) => [k, input[k]]));
  const data = isPlainObject(input.data) ? input.data : {};
  const whole = JSON.stringify({ ...ident, type, data });
  if (whole.length <= EXAMPLE_LIMIT) return whole;
  return `${JSON.stringify({ ...ident, type, data: 0 }).replace(/0\}$/, '{...}}')} (your data)`;
}

export const MAX_NID = 2_147_483_647;

/** Nesting depth of a JSON value, without recursion (a hostile body could nest very deeply). */
function depth(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (d > max) max = d;
    if (d > MAX_META_DEPTH) break;
    if (v && typeof v === 'object') for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/** Longest block id, in characters. */
export const MAX_ID_LENGTH = 200;

/** What a block id must be, in words (after "must be"). */
export const ID_RULE = `a string of 1 to ${MAX_ID_LENGTH} characters, without leading or trailing spaces, control characters or half of a surrogate pair (an emoji cut in two), other than "__proto__"`;

/**
 * What is wrong with an id, after the rule in a message: which end has white space (`; 'Fridge
 * Sensor ' ends with a space`: the Brewblox UI takes such an id, and the space is easily missed),
 * or its length when too long (the id itself not quoted: it may be megabytes). '' for any other id.
 */
export function idFault(id: unknown): string {
  if (typeof id === 'string' && id.length > MAX_ID_LENGTH) return `; it has ${id.length} characters`;
  if (typeof id !== 'string' || id === '' || id.trim() === id) return '';
  if (id.trim() === '') return `; '${id}' is only white space`;
  const what = (c: string) =>
    c === ' ' ? 'a space' : `white space (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`;
  const starts = id.trimStart() !== id;
  const ends = id.trimEnd() !== id;
  if (starts && ends) return `; '${id}' starts and ends with white space`;
  return starts ? `; '${id}' starts with ${what(id[0]!)}` : `; '${id}' ends with ${what(id[id.length - 1]!)}`;
}

/**
 * Whether `id` can name a block. `__proto__` cannot: the history message is an object keyed by
 * block id, where that key set the prototype instead of adding the block (its history was lost),
 * and every JSON reader here refuses it as a key (another controller dropped the whole message).
 * A lone surrogate cannot be stored as UTF-8: after a restart the block had another id.
 */
export function validId(id: string): boolean {
  return (
    id.length >= 1 &&
    id.length <= MAX_ID_LENGTH &&
    id.trim() === id &&
    // eslint-disable-next-line no-control-regex
    !/[\u0000-\u001f\u007f]|\p{Cs}/u.test(id) &&
    id !== '__proto__'
  );
}

/**
 * The block an ident body ({id} or {nid}) names. With both, the nid finds it (Brewblox: a block
 * renamed since still found), unless the id names another block: such a body contradicts itself
 * (a client holding a block as it was before a backup load gave its nid to another), and a
 * delete or write of the nid's block would change a block the client did not mean. Refused.
 */
export function resolveIdent(input: unknown, table: Pick<BlockTable, 'byId' | 'byNid'>): AnyBlock {
  if (!isPlainObject(input))
    throw new BlockError('bad-request', 'the body must be a JSON object naming a block by id or nid');
  const { id, serviceId } = input;
  // As in a block body (and Brewblox): nid 0 or null names no block.
  const nid = input.nid === 0 ? undefined : input.nid;
  const byNid = nid !== undefined && nid !== null;
  const issues: ValidationIssue[] = [];
  if (byNid && (typeof nid !== 'number' || !Number.isInteger(nid) || nid < 1 || nid > MAX_NID))
    issues.push({ path: 'nid', message: ruleGot(`must be an integer from 1 to ${MAX_NID}`, nid) });
  if (id !== undefined && id !== null && typeof id !== 'string')
    issues.push({ path: 'id', message: ruleGot('must be a string', id) });
  else if (!byNid && (id === undefined || id === null))
    issues.push({ path: 'id', message: 'required: the body names no block; give id or nid' });
  const serviceIdIssue = serviceIdCheck(serviceId);
  if (serviceIdIssue) issues.push(serviceIdIssue);
  if (issues.length) throw invalid(issuesText(issues), issues);
  if (byNid) {
    const block = table.byNid(nid as number);
    if (!block) throw notFound(`no block with nid ${nid}`);
    const named = typeof id === 'string' ? table.byId(id) : undefined;
    if (named && named !== block)
      throw conflict(
        `the body names two blocks: id '${id}' is nid ${named.nid}, and nid ${nid} is block '${block.id}'; send the id alone, or the id and nid of one block`,
      );
    return block;
  }
  const block = table.byId(id as string);
  if (!block) throw notFound(`no block with id '${quotedText(id as string, MAX_ID_LENGTH)}'`);
  return block;
}

/** `serviceId` names the service a block body is for; REST and MQTT route by it, so only its type is checked here. */
function serviceIdCheck(serviceId: unknown): ValidationIssue | null {
  return serviceId === undefined || typeof serviceId === 'string'
    ? null
    : { path: 'serviceId', message: ruleGot('must be a string', serviceId) };
}
