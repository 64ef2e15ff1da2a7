// Block records in SQLite, implementing the runtime's BlockPersistence.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import { FIRST_USER_NID } from '../runtime/body.js';
import type { BlockPersistence, BlockRecord, QuarantinedRecord, RawRecord } from '../runtime/persistence.js';
import type { Db } from './db.js';

/** The settings row listing the seqs of settled kept-aside records. */
const SETTLED_KEY = 'kept_aside_settled';
/** The settings row holding the block set's id (BlockPersistence.blockSet). */
const BLOCK_SET_KEY = 'block_set';

export class BlockStore implements BlockPersistence {
  private readonly upsert;
  private readonly del;
  private readonly getSetting;
  private readonly putSetting;
  private readonly highestNid;
  private set: string | undefined;

  /** `onWriteError` hears of every failed block write (a full disk) before it is thrown. */
  constructor(
    private readonly db: Db,
    private readonly onWriteError: (e: unknown) => void = () => undefined,
    private readonly log?: Pick<Logger, 'warn'>,
  ) {
    this.upsert = db.prepare(
      `INSERT INTO blocks (nid, id, type, data, meta) VALUES (@nid, @id, @type, @data, @meta)
       ON CONFLICT(nid) DO UPDATE SET id = excluded.id, type = excluded.type, data = excluded.data, meta = excluded.meta`,
    );
    this.del = db.prepare('DELETE FROM blocks WHERE nid = ?');
    this.getSetting = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
    this.putSetting = db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    // Quarantined records keep their nids: one may be restored by hand.
    this.highestNid = db
      .prepare('SELECT MAX(n) FROM (SELECT MAX(nid) AS n FROM blocks UNION ALL SELECT MAX(nid) FROM quarantine)')
      .pluck();
  }

  loadBlocks(): RawRecord[] {
    return this.db.prepare('SELECT nid, id, type, data, meta FROM blocks ORDER BY nid').all() as RawRecord[];
  }

  saveBlock(r: BlockRecord): void {
    try {
      this.upsert.run(serialize(r));
    } catch (e) {
      this.onWriteError(e);
      throw e;
    }
  }

  removeBlock(nid: number): void {
    this.del.run(nid);
  }

  replaceBlocks(records: BlockRecord[], alongside?: () => void): void {
    // The backup's nids name other blocks than the ones before: a new block set.
    const set = randomUUID();
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM blocks').run();
      for (const r of records) this.upsert.run(serialize(r));
      this.putSetting.run(BLOCK_SET_KEY, set);
      // The load is every block the brewer wants: nothing kept aside before comes back at a start.
      this.settle(this.db.prepare('SELECT seq FROM quarantine').pluck().all() as number[]);
      alongside?.();
    })();
    this.set = set;
  }

  quarantine(record: RawRecord, reason: string): void {
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO quarantine (nid, id, type, data, meta, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(record.nid, record.id, record.type, record.data, record.meta, reason, new Date().toISOString());
      this.del.run(record.nid);
    })();
  }

  quarantined(): QuarantinedRecord[] {
    const settled = this.settledSeqs();
    const rows = this.db
      .prepare('SELECT seq, nid, id, type, data, meta, reason, at FROM quarantine ORDER BY seq')
      .all() as QuarantinedRecord[];
    return rows.map((r) => (settled.has(r.seq!) ? { ...r, settled: true } : r));
  }

  /**
   * Settled kept-aside records (settle()) are listed in a settings row, not a column: the quarantine
   * table keeps the shape older releases read and write (a rollback meets it as it left it).
   */
  settle(seqs: number[]): void {
    if (!seqs.length) return;
    const present = new Set(this.db.prepare('SELECT seq FROM quarantine').pluck().all() as number[]);
    const all = [...new Set([...this.settledSeqs(), ...seqs])].filter((s) => present.has(s)).sort((a, b) => a - b);
    this.putSetting.run(SETTLED_KEY, JSON.stringify(all));
  }

  private settledSeqs(): Set<number> {
    const raw = this.getSetting.get(SETTLED_KEY);
    if (raw === undefined) return new Set();
    try {
      const list = JSON.parse(String(raw)) as unknown;
      return new Set(Array.isArray(list) ? list.filter((n): n is number => Number.isSafeInteger(n)) : []);
    } catch {
      // A row gone bad: every kept-aside record is tried again, which is how they were before.
      return new Set();
    }
  }

  release(record: QuarantinedRecord): void {
    this.db.transaction(() => {
      this.upsert.run({ nid: record.nid, id: record.id, type: record.type, data: record.data, meta: record.meta });
      this.db.prepare('DELETE FROM quarantine WHERE seq = ?').run(record.seq);
    })();
  }

  allocateNid(): number {
    return this.db.transaction(() => {
      const next = this.nextNid();
      this.putSetting.run('next_nid', String(next + 1));
      return next;
    })();
  }

  /** Made and written at the first ask on a data dir without one (new, or from before it was kept). */
  blockSet(): string {
    if (this.set) return this.set;
    const stored = this.readSetting(BLOCK_SET_KEY);
    if (stored) return (this.set = stored);
    const made = randomUUID();
    try {
      this.putSetting.run(BLOCK_SET_KEY, made);
    } catch (e) {
      // Not kept (a full disk): the next start makes another, and clients take it for a new set.
      this.log?.warn({ err: (e as Error).message }, 'the block set id was not written');
    }
    return (this.set = made);
  }

  readSetting(key: string): string | undefined {
    const v = this.getSetting.get(key);
    return v === undefined ? undefined : String(v);
  }

  writeSetting(key: string, value: string): void {
    this.putSetting.run(key, value);
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  reserveNid(nid: number): void {
    if (nid >= this.nextNid()) this.putSetting.run('next_nid', String(nid + 1));
  }

  takeNid(nid: number): void {
    if (nid >= this.nextNid()) return this.reserveNid(nid);
    const set = randomUUID();
    this.putSetting.run(BLOCK_SET_KEY, set);
    this.set = set;
  }

  /**
   * The stored next user nid. A row that is not one (bits gone bad on the card: it made every
   * create fail) is recomputed one above the highest nid in use, written back and warned of.
   */
  private nextNid(): number {
    const raw = this.getSetting.get('next_nid');
    if (raw === undefined) return FIRST_USER_NID;
    const n = typeof raw === 'number' ? raw : /^\d{1,15}$/.test(String(raw)) ? Number(raw) : Number.NaN;
    if (Number.isSafeInteger(n) && n >= FIRST_USER_NID) return n;
    const next = Math.max(Number(this.highestNid.get() ?? 0) + 1, FIRST_USER_NID);
    this.putSetting.run('next_nid', String(next));
    this.log?.warn(
      { stored: String(raw).slice(0, 40), next },
      `the stored next block number (settings row 'next_nid') was damaged; new blocks are numbered from ${next} again, one above the highest in use`,
    );
    return next;
  }
}

function serialize(r: BlockRecord) {
  return { nid: r.nid, id: r.id, type: r.type, data: JSON.stringify(r.data), meta: JSON.stringify(r.meta) };
}
