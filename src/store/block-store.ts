// Block records in SQLite, implementing the runtime's BlockPersistence.
import type { BlockPersistence, BlockRecord, QuarantinedRecord, RawRecord } from '../runtime/persistence.js';
import type { Db } from './db.js';

const FIRST_USER_NID = 100;

export class BlockStore implements BlockPersistence {
  private readonly upsert;
  private readonly del;
  private readonly getSetting;
  private readonly putSetting;

  /** `onWriteError` hears of every failed block write (a full disk) before it is thrown. */
  constructor(
    private readonly db: Db,
    private readonly onWriteError: (e: unknown) => void = () => undefined,
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

  replaceBlocks(records: BlockRecord[]): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM blocks').run();
      for (const r of records) this.upsert.run(serialize(r));
    })();
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
    return this.db
      .prepare('SELECT nid, id, type, data, meta, reason, at FROM quarantine ORDER BY seq')
      .all() as QuarantinedRecord[];
  }

  allocateNid(): number {
    return this.db.transaction(() => {
      const next = Math.max(Number(this.getSetting.get('next_nid') ?? FIRST_USER_NID), FIRST_USER_NID);
      this.putSetting.run('next_nid', String(next + 1));
      return next;
    })();
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
    const next = Number(this.getSetting.get('next_nid') ?? FIRST_USER_NID);
    if (nid >= next) this.putSetting.run('next_nid', String(nid + 1));
  }
}

function serialize(r: BlockRecord) {
  return { nid: r.nid, id: r.id, type: r.type, data: JSON.stringify(r.data), meta: JSON.stringify(r.meta) };
}
