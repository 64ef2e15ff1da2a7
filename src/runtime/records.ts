// A block's stored record (data in stored mode and controller units), and restoring the
// stored blocks at start-up: records that cannot be decoded are quarantined, not lost.
import { complete, overlayOwned, sortKeptIssues, withReadonly } from '../codec/apply.js';
import { decodeData } from '../codec/decode.js';
import { isPlainObject, type ValidationIssue } from '../codec/partial.js';
import { encodeData } from '../codec/encode.js';
import { DEFAULT_UNITS } from '../codec/units.js';
import { FIRST_USER_NID } from './body.js';
import type { RuntimeCore } from './core.js';
import { checkRecordSize } from './limits.js';
import { linksOf } from './links.js';
import type { BlockRecord, RawRecord } from './persistence.js';
import type { AnyBlock, Data } from './types.js';

export function blockRecord(block: AnyBlock): BlockRecord {
  return {
    nid: block.nid,
    id: block.id,
    type: block.def.type,
    data: encodeData(block.def.fields, block.data as Data, 'stored', DEFAULT_UNITS),
    meta: block.meta,
  };
}

/** The text compared to decide whether a block's record needs writing. */
export function recordText(block: AnyBlock): string {
  const r = blockRecord(block);
  return JSON.stringify([r.id, r.data, r.meta]);
}

/** Create the system blocks, then restore every stored block. Bad records are quarantined. */
export function loadStored(rt: RuntimeCore): void {
  for (const def of rt.types.values()) {
    if (def.system) rt.insert(def, def.system.nid, def.system.id, complete(def.fields, {}), {});
  }
  for (const raw of rt.persistence.loadBlocks()) {
    if (raw.nid >= FIRST_USER_NID) rt.persistence.reserveNid(raw.nid);
    try {
      restore(rt, raw);
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      rt.log.error({ nid: raw.nid, id: raw.id, type: raw.type, reason }, 'stored block cannot be decoded; kept aside');
      rt.persistence.quarantine(raw, reason);
    }
  }
  retryKeptAside(rt);
  rt.afterStructureChange();
}

/**
 * Records kept aside earlier that this version can read come back: an older release, met after a
 * rollback, keeps aside every record with a field it does not know (this version stores PIDs with
 * fields the release of 2026-11-28 lacks), and going forward again would otherwise leave those
 * blocks out for good, the outputs they drove with nothing driving them. The newest record of an
 * id is tried first; one whose nid or id a block has since taken, or that still does not decode,
 * stays kept aside (the record moves back and loads in one transaction); the former for good, as
 * is one that would drive an output (a PID's) that a block made meanwhile drives.
 */
function retryKeptAside(rt: RuntimeCore): void {
  // A record whose nid or id a block holds is settled, not just skipped: that block is the
  // brewer's choice, and deleting or renaming it later must not bring the old record back at the
  // next start (a second PID on the same output). So is every record a backup load replaced.
  const settle: number[] = [];
  for (const held of [...rt.persistence.quarantined()].reverse()) {
    if (held.seq === undefined || held.settled) continue;
    if (rt.table.hasNid(held.nid) || rt.table.hasId(held.id)) {
      settle.push(held.seq);
      continue;
    }
    try {
      rt.persistence.transaction(() => {
        rt.persistence.release(held);
        restore(rt, held);
        const rival = rivalDriver(rt, rt.table.byNid(held.nid)!);
        if (rival) throw new DrivenElsewhere(rival);
      });
    } catch (e) {
      // Nothing of it stays in memory either: the record is kept aside as it was.
      const inserted = rt.table.byNid(held.nid);
      if (inserted && !inserted.def.system) rt.uncreate(inserted);
      if (e instanceof DrivenElsewhere) {
        // The brewer made another block for that output meanwhile (the old one was gone): theirs
        // keeps driving it, and the old one stays kept aside for good, as for a taken id.
        settle.push(held.seq);
        rt.log.warn(
          { nid: held.nid, id: held.id, type: held.type, keptAside: held.at },
          `a block kept aside earlier stays kept aside: ${e.message}`,
        );
      }
      continue;
    }
    rt.log.warn(
      { nid: held.nid, id: held.id, type: held.type, keptAside: held.at, reason: held.reason },
      'a block kept aside earlier (by an older release after a rollback, say) is read by this version and runs again',
    );
  }
  if (!settle.length) return;
  try {
    rt.persistence.settle(settle);
  } catch (e) {
    // Not written (a full disk): they are looked at again at the next start, settled then.
    rt.log.warn({ err: e }, 'could not note the records kept aside for good; the next start looks at them again');
  }
}

class DrivenElsewhere extends Error {}

/** What another block already drives that `block` would drive too (two PIDs on one output). */
function rivalDriver(rt: RuntimeCore, block: AnyBlock): string | null {
  // Only a target claimed whole (a PWM, an actuator, a setpoint): an IO array (a DS2408, the GPIO
  // pins) is driven by many blocks, one channel each.
  const claimedWhole = (id: string) => {
    const target = rt.table.byId(id);
    return target !== undefined && target !== null && 'claimedBy' in target.def.fields;
  };
  const targets = new Set(linksOf(block).flatMap((l) => (l.drives && claimedWhole(l.id) ? [l.id] : [])));
  if (!targets.size) return null;
  for (const other of rt.blocks()) {
    if (other === block) continue;
    const shared = linksOf(other).find((l) => l.drives && targets.has(l.id));
    if (shared) return `'${shared.id}', which it drove, is driven by '${other.id}' now`;
  }
  return null;
}

function restore(rt: RuntimeCore, raw: RawRecord): void {
  const def = rt.types.get(raw.type);
  if (!def) throw new Error(`unknown block type '${raw.type}'`);
  const data = JSON.parse(raw.data) as unknown;
  const meta = JSON.parse(raw.meta) as unknown;
  if (!isPlainObject(meta)) throw new Error('meta is not an object');
  const { value, issues } = decodeData(def.fields, data, { prefs: DEFAULT_UNITS, checkLink: () => null, owned: true });
  const describe = (list: ValidationIssue[]) => list.map((i) => `${i.path}: ${i.message}`).join('; ');
  // Unknown fields (a record a newer version wrote, met after a rollback) and values of the block's
  // own that do not decode (a tuning message stored by a version that did not clip it) are left
  // out; a setting the brewer made that does not decode keeps the whole record aside.
  const { unknown, owned, blocking } = sortKeptIssues(def.fields, value, issues);
  if (blocking.length) throw new Error(describe(blocking));
  const full = complete(def.fields, value);
  if (def.system) {
    const sys = rt.table.byNid(def.system.nid);
    if (!sys || raw.nid !== def.system.nid) throw new Error(`system block ${raw.type} stored under nid ${raw.nid}`);
    sys.data = withReadonly(def.fields, sys.data, full) as AnyBlock['data'];
    overlayOwned(def.fields, sys.data as Data, value);
    sys.meta = meta;
  } else {
    if (rt.table.hasNid(raw.nid) || rt.table.hasId(raw.id))
      throw new Error(`duplicate nid ${raw.nid} or id '${raw.id}'`);
    rt.insert(def, raw.nid, raw.id, full, meta, value);
    rt.persistence.reserveNid(raw.nid);
  }
  const block = rt.table.byNid(raw.nid)!;
  const who = { nid: raw.nid, id: raw.id, type: raw.type };
  if (unknown.length)
    rt.log.warn(
      { ...who, fields: unknown.map((i) => i.path.replace(/^data\./, '')) },
      'stored block loaded without fields this version does not know (a newer version wrote them); they stay in its record until the block is next changed',
    );
  if (owned.length)
    rt.log.warn(
      { ...who, left: describe(owned) },
      'stored block loaded without values it had written itself that no longer decode',
    );
  if (!owned.length || unknown.length) {
    // Marked as written as loaded: the record, unknown fields and all, is not written again until
    // the block changes, so going back to the newer version finds them (values of its own that
    // did not decode are then left out again at each start, with the same warning).
    rt.table.setWritten(raw.nid, rt.recordString(block));
    return;
  }
  // Stored again without them, so the next start does not meet them. If that write fails (a full
  // disk), the old record stays, loads the same way at the next start, and the block's next
  // change is stored in full (the record is not marked written).
  try {
    rt.persist(block);
  } catch (e) {
    rt.log.warn({ ...who, err: e }, 'could not store the block again; it is stored at its next change');
  }
}

/** Write the block's record when its stored data or meta changed since the last write. */
export function persistBlock(rt: RuntimeCore, block: AnyBlock): boolean {
  if (!rt.table.isLive(block)) return false;
  // What its record must not get ahead of first (a sequence's SET lines): a kill between the
  // two then finds the effects stored without the progress, never the reverse.
  block.def.storedWith?.(block, (other) => rt.persist(other));
  const text = rt.recordString(block);
  if (rt.table.lastWritten(block.nid) === text) return false;
  checkRecordSize(block.id, text);
  rt.persistence.saveBlock(rt.record(block));
  rt.table.setWritten(block.nid, text);
  return true;
}
