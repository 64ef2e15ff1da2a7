// Batch create/write/patch/delete: a list of blocks applied all or nothing, as one change. The
// writes share one database transaction, and no block runs between them: the blocks that are due
// run once, after the last item is applied and committed, and the answer shows the blocks as they
// are then. What the write and delete hooks do to the hardware (a deleted actuator's output
// switched off, a moved IO chip let go) waits for the commit too (ctx.afterCommit), and runs just
// before those blocks, in item order. When an item fails, the transaction rolls back, the blocks
// already changed in memory are put back (claims let go and when blocks are due with them),
// nothing has run on the items undone, no hardware was touched, and the error names the item's
// index and field. The change itself is scope.ts's, as for a single write.
import { isPlainObject } from '../codec/partial.js';
import { quotedText } from '../../drivers/quoted-text.js';
import { MAX_ID_LENGTH, type BlockJson, type Ident } from './body.js';
import { blockJson } from './block-json.js';
import { BlockError } from './errors.js';
import type { BatchScope, RuntimeCore } from './core.js';
import type { AnyBlock } from './types.js';
import { actOnHardware, inScope } from './scope.js';
import { createOne, deleteOne, updateOne } from './writes.js';

export { actOnHardware };

export type { BatchScope };

export type BatchOp = 'create' | 'write' | 'patch' | 'delete';

export const MAX_BATCH = 1000;

export function runBatch(rt: RuntimeCore, op: 'delete', input: unknown, origin: string): Ident[];
export function runBatch(rt: RuntimeCore, op: Exclude<BatchOp, 'delete'>, input: unknown, origin: string): BlockJson[];
export function runBatch(rt: RuntimeCore, op: BatchOp, input: unknown, origin: string): Array<BlockJson | Ident> {
  if (!Array.isArray(input)) throw new BlockError('bad-request', `a batch ${op} takes a JSON array of blocks`);
  if (input.length > MAX_BATCH)
    throw new BlockError('invalid', `a batch holds at most ${MAX_BATCH} blocks, got ${input.length}`, [
      { path: '', message: `at most ${MAX_BATCH} items` },
    ]);
  if (rt.scope) throw new Error('batches do not nest');
  // A wall-clock jump is the clock's own change, stored and reported apart: seen inside the batch,
  // a failed batch would roll back what it moved and drop its event.
  rt.checkClock();
  const results = inScope(rt, origin, () =>
    input.map((item, i) => {
      try {
        return apply(rt, op, item, origin);
      } catch (e) {
        throw atIndex(e, i, item);
      }
    }),
  );
  return results.map((r) => ('def' in r ? blockJson(r, 'default', rt) : r));
}

function apply(rt: RuntimeCore, op: BatchOp, item: unknown, origin: string): AnyBlock | Ident {
  switch (op) {
    case 'create':
      return createOne(rt, item, origin);
    case 'write':
      return updateOne(rt, item, false, origin);
    case 'patch':
      return updateOne(rt, item, true, origin);
    case 'delete':
      return deleteOne(rt, item, origin);
  }
}

/** The same error, saying which item failed; validation paths get the index in front. */
function atIndex(e: unknown, i: number, item: unknown): unknown {
  if (!(e instanceof BlockError)) return e;
  const id = isPlainObject(item) && typeof item.id === 'string' ? ` (id '${quotedText(item.id, MAX_ID_LENGTH)}')` : '';
  const validation = e.validation?.map((v) => ({ path: `${i}.${v.path}`, message: v.message })) ?? [
    { path: String(i), message: e.message },
  ];
  return new BlockError(e.kind, `batch item ${i}${id}: ${e.message}; nothing was changed`, validation);
}
