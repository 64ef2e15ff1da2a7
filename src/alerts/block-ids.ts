// Which id each block had when the alerts last looked (by nid), to tell a change of blocks as
// renames and deletes: a block's alert settings and its active alerts follow its rename and go
// away with its delete (index.ts).
import type { ChangeEvent } from '../runtime/runtime.js';

export class BlockIds {
  private readonly idsByNid = new Map<number, string>();

  /** The blocks at the start. */
  start(blocks: Iterable<{ nid: number; id: string }>): void {
    for (const b of blocks) this.idsByNid.set(b.nid, b.id);
  }

  /**
   * A change of blocks as renames ([before, after], each told to `renamed` as it is found) and
   * deletes. `exists`: whether an id is a block's now.
   */
  follow(
    ev: ChangeEvent,
    exists: (id: string) => boolean,
    renamed: (before: string, after: string) => void,
  ): { renames: Array<[string, string]>; deleted: string[] } {
    const renames: Array<[string, string]> = [];
    const idsBefore = new Set(this.idsByNid.values());
    for (const b of ev.changed) {
      const before = this.idsByNid.get(b.nid);
      this.idsByNid.set(b.nid, b.id);
      if (before === undefined || before === b.id) continue;
      // Not a rename when the old id is still a block's or the new one was another block's: a
      // backup load that numbers the same blocks differently. Taken as renames, the settings of
      // one block overwrote the other's (its "output on too long" time gone).
      if (exists(before) || idsBefore.has(b.id)) continue;
      renames.push([before, b.id]);
      renamed(before, b.id);
    }
    const renamedFrom = new Set(renames.map(([before]) => before));
    const deleted = ev.deleted.filter((id) => !renamedFrom.has(id));
    // An id is one block's: where a change gave it another nid (a backup load), its old nid goes,
    // or a later rename back to it would be taken for a clash with that stale entry.
    const nidOf = new Map(ev.changed.map((b) => [b.id, b.nid]));
    for (const [nid, id] of this.idsByNid)
      if (deleted.includes(id) || (nidOf.has(id) && nidOf.get(id) !== nid)) this.idsByNid.delete(nid);
    return { renames, deleted };
  }
}
