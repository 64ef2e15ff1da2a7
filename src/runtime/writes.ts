// Single-block create, write, patch and delete, and a delete of every block. Each is one change
// (scope.ts): it records how to undo itself, its change event is collected, its hooks' hardware
// actions wait for the commit, and no block runs until it is stored. The *One functions are a
// batch's items, inside the batch's change.
import { quotedText } from '../../drivers/quoted-text.js';
import { complete, merge, withReadonly, writable } from '../codec/apply.js';
import { blockBody, FIRST_USER_NID, updateBody, type BlockJson, type Ident } from './body.js';
import type { RuntimeCore } from './core.js';
import { conflict, invalid } from './errors.js';
import type { AnyBlock, Data } from './types.js';
import { blockJson } from './block-json.js';
import { inScope } from './scope.js';

export function createBlock(rt: RuntimeCore, input: unknown, origin: string): BlockJson {
  return blockJson(
    inScope(rt, origin, () => createOne(rt, input, origin)),
    'default',
    rt,
  );
}

/** Create, answering with the block (a batch shows it once its blocks ran). */
export function createOne(rt: RuntimeCore, input: unknown, origin: string): AnyBlock {
  const body = blockBody(input, true);
  const def = rt.typeOf(body.type);
  if (def.system) throw conflict(`'${def.type}' is a system block type and cannot be created`);
  if (body.id === undefined) throw invalid('create needs an id', [{ path: 'id', message: 'required' }]);
  if (rt.table.hasId(body.id)) throw conflict(`block id '${body.id}' is already in use`);
  if (body.nid !== undefined) {
    if (body.nid < FIRST_USER_NID)
      throw invalid(`nid ${body.nid} is reserved for system blocks; use ${FIRST_USER_NID} or more`, [
        { path: 'nid', message: 'must be >= 100' },
      ]);
    if (rt.table.hasNid(body.nid)) throw conflict(`nid ${body.nid} is already in use`);
  }
  const given = rt.decode(def, body.data, body.type);
  const nid = body.nid ?? rt.allocateNid();
  // A nid given may be a deleted block's: then another block set (BlockPersistence.takeNid).
  if (body.nid === undefined) rt.persistence.reserveNid(nid);
  else rt.persistence.takeNid(nid);
  const block = rt.insert(def, nid, body.id, complete(def.fields, given), body.meta ?? {});
  rt.afterWrite(block, { previous: undefined, patch: false, given }, () => rt.uncreate(block));
  rt.scope?.undo.push(() => rt.uncreate(block));
  rt.changed({ changed: [block], deleted: [], origin });
  return block;
}

/** Write (replace the data) or patch (merge into it) an existing block. */
export function updateBlock(rt: RuntimeCore, input: unknown, isPatch: boolean, origin: string): BlockJson {
  return blockJson(
    inScope(rt, origin, () => updateOne(rt, input, isPatch, origin)),
    'default',
    rt,
  );
}

/** Write or patch, answering with the block. */
export function updateOne(rt: RuntimeCore, input: unknown, isPatch: boolean, origin: string): AnyBlock {
  const body = updateBody(input, rt.table);
  const block = rt.resolveIdent(body);
  if (body.type !== block.def.type) {
    throw conflict(
      `block '${block.id}' is a ${block.def.type}; a ${isPatch ? 'patch' : 'write'} cannot change it to '${quotedText(body.type)}'`,
    );
  }
  const def = block.def;
  const given = rt.decode(def, body.data, body.type, block);
  const previous = block.data as Data;
  const previousMeta = block.meta;
  const next = isPatch ? merge(def.fields, writable(def.fields, previous), given) : complete(def.fields, given);
  block.data = withReadonly(def.fields, previous, next) as AnyBlock['data'];
  if (body.meta !== undefined) block.meta = isPatch ? { ...block.meta, ...body.meta } : body.meta;
  else if (!isPatch) block.meta = {};
  const undo = () => {
    block.data = previous as AnyBlock['data'];
    block.meta = previousMeta;
  };
  rt.afterWrite(block, { previous, patch: isPatch, given }, undo);
  rt.scope?.undo.push(undo);
  rt.changed({ changed: [block], deleted: [], origin });
  return block;
}

/** A link left pointing at a block that no longer exists: the block holding it and the field path in its data. */
export interface DanglingLink {
  id: string;
  field: string;
}

/** The ident of the deleted block, and every link of another block (or id it keeps, BlockTypeDef.names) that now points nowhere. */
export type Deleted = Ident & { dangling: DanglingLink[] };

export function deleteBlock(rt: RuntimeCore, input: unknown, origin: string): Deleted {
  return inScope(rt, origin, () => deleteOne(rt, input, origin));
}

export function deleteOne(rt: RuntimeCore, input: unknown, origin: string): Deleted {
  const block = rt.resolveIdent(input);
  if (block.def.system) throw conflict(`'${block.id}' is a system block and cannot be deleted`);
  const links = rt.links.outgoing(block);
  const dangling: DanglingLink[] = [];
  for (const referrer of rt.links.referrers(block.id)) {
    if (referrer === block) continue;
    for (const l of rt.links.outgoing(referrer))
      if (l.id === block.id) dangling.push({ id: referrer.id, field: l.path.join('.') });
  }
  for (const other of rt.blocks()) {
    if (other === block) continue;
    for (const n of other.def.names?.(other) ?? [])
      if (n.id === block.id) dangling.push({ id: other.id, field: n.field });
  }
  rt.remove(block);
  rt.scope?.undo.push(() => rt.restoreInMemory(block));
  rt.afterBlockRemoved(block, links);
  rt.changed({ changed: [], deleted: [block.id], origin });
  return { ...rt.ident(block), dangling };
}

/** Delete every block but the system blocks, as one change (not part of a batch). */
export function deleteAllBlocks(rt: RuntimeCore, origin: string): Ident[] {
  return inScope(rt, origin, () => {
    const removed = rt.blocks().filter((b) => !b.def.system);
    for (const b of removed) {
      rt.remove(b);
      rt.scope?.undo.push(() => rt.restoreInMemory(b));
    }
    rt.afterStructureChange();
    if (removed.length) rt.changed({ changed: [], deleted: removed.map((b) => b.id), origin });
    return removed.map((b) => rt.ident(b));
  });
}
