// One change, stored all or nothing: a batch, a single create/write/patch/delete, a delete of
// every block. Its writes share one database transaction, and no block runs between them. What
// the write and delete hooks do to the hardware (a deleted actuator's output switched off, a moved
// IO chip let go: ctx.afterCommit) waits for the commit, and runs in order just before the blocks
// that are due run, once. When the change fails or cannot be stored (a full or failing card), the
// transaction rolls back, the blocks changed in memory are put back, no hardware was touched, no
// change event is sent, and the error is thrown as it was.
import { settleDrivenMode } from './claims.js';
import type { BatchScope, ChangeEvent, RuntimeCore } from './core.js';
import type { AnyBlock } from './types.js';

/**
 * Run `apply` as one change (see above). Inside another (a single delete that is a batch's item)
 * it is part of that one: the outer change commits, acts and runs the blocks.
 */
export function inScope<T>(rt: RuntimeCore, origin: string, apply: () => T): T {
  if (rt.scope) return apply();
  const scope: BatchScope = { undo: [], events: [], commit: [] };
  let result: T;
  try {
    result = rt.persistence.transaction(() => {
      rt.scope = scope;
      try {
        const applied = apply();
        settleDriven(rt, scope);
        return applied;
      } finally {
        rt.scope = null;
      }
    });
  } catch (e) {
    for (const undo of scope.undo.reverse()) undo();
    resync(rt, scope);
    rt.afterStructureChange();
    throw e;
  }
  actOnHardware(rt, scope);
  rt.tick();
  if (scope.events.length) rt.changed(merged(rt, scope.events, origin));
  return result;
}

/** The blocks the change wrote that another block still drives are in CLAIMED mode (claims.ts). */
function settleDriven(rt: RuntimeCore, scope: BatchScope): void {
  for (const ev of scope.events)
    for (const b of ev.changed) {
      if (!rt.table.isLive(b) || !settleDrivenMode(b)) continue;
      scope.undo.push(() => {
        (b.data as { settingMode: string }).settingMode = 'STORED';
      });
      rt.persist(b);
    }
}

/** Once a change (or a backup load) is stored: what its hooks do to the hardware, in order (ctx.afterCommit). */
export function actOnHardware(rt: RuntimeCore, scope: BatchScope): void {
  for (const act of scope.commit) {
    try {
      act();
    } catch (e) {
      rt.log.error({ err: e }, 'a hook acting on the hardware after a commit failed');
    }
  }
}

/** After a rollback the database holds the old records again: forget what was cached as written. */
function resync(rt: RuntimeCore, scope: BatchScope): void {
  const touched = new Set<AnyBlock>();
  for (const ev of scope.events) for (const b of ev.changed) touched.add(b);
  for (const b of touched) {
    if (rt.table.isLive(b)) rt.table.setWritten(b.nid, rt.recordString(b));
    else rt.table.forgetWritten(b.nid);
  }
  for (const b of rt.blocks()) if (!rt.table.hasWritten(b.nid)) rt.table.setWritten(b.nid, rt.recordString(b));
}

/** One change event for the whole change. */
function merged(rt: RuntimeCore, events: ChangeEvent[], origin: string): ChangeEvent {
  const deleted = new Set<string>();
  const changed = new Map<number, AnyBlock>();
  for (const ev of events) {
    for (const b of ev.changed) changed.set(b.nid, b);
    for (const id of ev.deleted) deleted.add(id);
  }
  const live = [...changed.values()].filter((b) => rt.table.isLive(b));
  for (const b of live) deleted.delete(b.id);
  return { changed: live, deleted: [...deleted], origin };
}
