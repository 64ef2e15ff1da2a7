// What the runtime needs from storage. The SQLite store implements it; the runtime never
// touches SQL.
import { randomUUID } from 'node:crypto';

export interface BlockRecord {
  nid: number;
  id: string;
  type: string;
  /** Stored-mode data, encoded in controller units (degC, seconds). */
  data: Record<string, unknown>;
  meta: Record<string, unknown>;
}

export interface RawRecord {
  nid: number;
  id: string;
  type: string;
  data: string;
  meta: string;
}

export interface QuarantinedRecord extends RawRecord {
  reason: string;
  at: string;
  /** Its row in the quarantine table (the order records were kept aside in). */
  seq?: number;
  /** Not tried again at a start: a block the brewer kept took its nid or id, or a backup load replaced every block. */
  settled?: boolean;
}

export interface BlockPersistence {
  loadBlocks(): RawRecord[];
  saveBlock(record: BlockRecord): void;
  removeBlock(nid: number): void;
  /**
   * Replace every block record in one transaction (backup load); every kept-aside record is
   * settled with it. `alongside` runs inside the same transaction (the backup's nids reserved, its
   * datastore documents written): when it throws, nothing of the load is stored.
   */
  replaceBlocks(records: BlockRecord[], alongside?: () => void): void;
  /** Move a record that cannot be decoded out of the way, keeping it for inspection. */
  quarantine(record: RawRecord, reason: string): void;
  quarantined(): QuarantinedRecord[];
  /** Make a kept-aside record (one of quarantined()) a block record again, under its nid. */
  release(record: QuarantinedRecord): void;
  /** Kept-aside records (by seq) that stay kept aside for good: a start no longer tries them. */
  settle(seqs: number[]): void;
  /** Next free user nid; never hands out a nid that was used before. */
  allocateNid(): number;
  /** Make sure later allocations stay above `nid`. */
  reserveNid(nid: number): void;
  /**
   * The id of this block set: the same while a nid names the same block (through restarts,
   * renames, creates and deletes), another on each data dir, after each backup load (which
   * brings the backup's nids) and after a create that gave a nid below the counter (takeNid).
   * A client that remembers blocks by nid keeps it beside them.
   */
  blockSet(): string;
  /**
   * Make `nid` a block's, given by a create: a nid below the counter may have named another
   * block (a deleted one), so the block set is a new one then; above it, the counter moves past it.
   */
  takeNid(nid: number): void;
  /** Run `fn` as one transaction: every write in it is durable together, or none is (fn threw). */
  transaction<T>(fn: () => T): T;
}

/** In-memory persistence, for unit tests. */
export class MemoryPersistence implements BlockPersistence {
  records = new Map<number, RawRecord>();
  held: QuarantinedRecord[] = [];
  writes = 0;
  private next = 100;
  private set = randomUUID();
  blockSet(): string {
    return this.set;
  }
  loadBlocks(): RawRecord[] {
    return [...this.records.values()];
  }
  saveBlock(r: BlockRecord): void {
    this.writes++;
    this.records.set(r.nid, {
      nid: r.nid,
      id: r.id,
      type: r.type,
      data: JSON.stringify(r.data),
      meta: JSON.stringify(r.meta),
    });
  }
  removeBlock(nid: number): void {
    this.writes++;
    this.records.delete(nid);
  }
  replaceBlocks(records: BlockRecord[], alongside?: () => void): void {
    const before = { set: this.set, records: new Map(this.records), held: [...this.held] };
    try {
      this.set = randomUUID();
      this.records.clear();
      for (const r of records) this.saveBlock(r);
      this.settle(this.held.flatMap((h) => (h.seq === undefined ? [] : [h.seq])));
      alongside?.();
    } catch (e) {
      Object.assign(this, { set: before.set, records: before.records, held: before.held });
      throw e;
    }
  }
  quarantine(record: RawRecord, reason: string): void {
    this.records.delete(record.nid);
    this.held.push({ ...record, reason, at: new Date().toISOString(), seq: this.held.length + 1 });
  }
  quarantined(): QuarantinedRecord[] {
    return this.held;
  }
  release(record: QuarantinedRecord): void {
    this.held = this.held.filter((h) => h !== record);
    this.records.set(record.nid, {
      nid: record.nid,
      id: record.id,
      type: record.type,
      data: record.data,
      meta: record.meta,
    });
  }
  settle(seqs: number[]): void {
    this.held = this.held.map((h) => (h.seq !== undefined && seqs.includes(h.seq) ? { ...h, settled: true } : h));
  }
  allocateNid(): number {
    return this.next++;
  }
  reserveNid(nid: number): void {
    this.next = Math.max(this.next, nid + 1);
  }
  takeNid(nid: number): void {
    if (nid < this.next) this.set = randomUUID();
    this.reserveNid(nid);
  }
  transaction<T>(fn: () => T): T {
    const records = new Map(this.records);
    const held = [...this.held];
    try {
      return fn();
    } catch (e) {
      this.records = records;
      this.held = held;
      throw e;
    }
  }
}
