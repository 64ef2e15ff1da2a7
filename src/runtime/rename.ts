// Rename a block: the id changes, the nid stays, and every link to it follows. The renamed block
// and every block whose links changed are written in one transaction.
import { issuesText } from '../shared/json.js';
import { isPlainObject, type ValidationIssue } from '../codec/partial.js';
import { forEachLink } from '../codec/fields.js';
import { quotedText } from '../../drivers/quoted-text.js';
import { ID_RULE, idFault, MAX_ID_LENGTH, validId, type Ident } from './body.js';
import { BlockError, conflict, invalid, notFound } from './errors.js';
import type { RuntimeCore } from './core.js';
import type { AnyBlock } from './types.js';

export function renameBlock(rt: RuntimeCore, input: unknown, origin: string): Ident {
  if (!isPlainObject(input))
    throw new BlockError('bad-request', 'rename takes {"existing": "<id>", "desired": "<new id>"}');
  const existing = input.existing as string;
  const desired = input.desired as string;
  const issues: ValidationIssue[] = [];
  if (typeof existing !== 'string' || existing === '')
    issues.push({ path: 'existing', message: 'required: the current id, a non-empty string' });
  if (typeof desired !== 'string' || !validId(desired))
    issues.push({ path: 'desired', message: `must be the new id: ${ID_RULE}${idFault(desired)}` });
  if (issues.length) throw invalid(`invalid rename: ${issuesText(issues)}`, issues);
  const block = rt.find(existing);
  if (!block) throw notFound(`no block with id '${quotedText(existing, MAX_ID_LENGTH)}'`);
  if (block.def.system) throw conflict(`'${existing}' is a system block and cannot be renamed`);
  if (desired === existing) return rt.ident(block);
  if (rt.find(desired)) throw conflict(`block id '${desired}' is already in use`);

  const apply = (from: string, to: string) => {
    rt.table.rename(block, to);
    for (const b of rt.blocks()) renameInState(b.state, from, to);
  };
  apply(existing, desired);
  const { linkers, undo } = renameReferences(rt, existing, desired);
  try {
    rt.persistence.transaction(() => {
      for (const b of new Set([block, ...linkers])) rt.persist(b);
    });
  } catch (e) {
    undo.forEach((u) => u());
    apply(desired, existing);
    for (const b of new Set([block, ...linkers])) rt.table.setWritten(b.nid, rt.recordString(b));
    throw e;
  }
  rt.afterStructureChange();
  rt.changed({ changed: [block, ...[...linkers].filter((b) => b !== block)], deleted: [existing], origin });
  return rt.ident(block);
}

/**
 * The one rule of a rename for what names a block: every link to `from` and every id a block keeps
 * in its data (a Sequence's lines, BlockTypeDef.renamed) made to name `to`. Also a backup load's,
 * for a block it loads under another id (backup-ids.ts). The blocks changed, and how to undo it.
 */
export function renameReferences(
  rt: RuntimeCore,
  from: string,
  to: string,
): { linkers: Set<AnyBlock>; undo: Array<() => void> } {
  const changes: Array<() => void> = [];
  const undo: Array<() => void> = [];
  const linkers = new Set<AnyBlock>();
  for (const b of rt.blocks()) {
    forEachLink(b.def.fields, b.data as Record<string, unknown>, (path, id) => {
      if (id !== from) return;
      linkers.add(b);
      const parent = path.slice(0, -1).reduce<any>((o, k) => o[k], b.data);
      const key = path[path.length - 1]!;
      changes.push(() => (parent[key] = to));
      undo.push(() => (parent[key] = from));
    });
  }
  changes.forEach((c) => c());
  for (const b of rt.blocks()) {
    const back = b.def.renamed?.(b, from, to);
    if (back) {
      linkers.add(b);
      undo.push(back);
    }
  }
  return { linkers, undo };
}

/** Volatile state that remembers block ids: a Mutex's holder, a Balancer's clients. */
function renameInState(state: unknown, from: string, to: string): void {
  if (state instanceof Map && state.has(from)) {
    state.set(to, state.get(from));
    state.delete(from);
  } else if (isPlainObject(state) && state.holder === from) {
    state.holder = to;
  }
}
