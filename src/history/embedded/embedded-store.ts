// The embedded history store: better-sqlite3 in its own file (history.sqlite in the data dir,
// apart from the blocks database so history writes never wait on or for block durability).
//
// Points are kept in memory and written once per flush interval as compressed chunks
// (chunk-codec.ts): one row per tier per flush, so a flush is a handful of page writes however
// many fields there are. A kill -9 loses the unflushed batch; SQLite's WAL keeps every committed
// flush intact. Retention is per tier (tiers.ts); over historyMaxBytes the oldest rows go
// first. A database that cannot be opened or written degrades history (logged, in status) and
// keeps the newest points in bounded memory; control and the block API never notice.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../log.js';
import { stepAverages, type HistoryStore, type Range, type RawSeries } from '../store.js';
import { decodeChunk, encodeChunk, type Series } from './chunk-codec.js';
import { BucketAccumulator, tierForQuery, tiersFor, type Tier } from './tiers.js';

export const HISTORY_DB_FILE = 'history.sqlite';

export interface EmbeddedOptions {
  dataDir: string;
  /** Wall clock, epoch ms. */
  now: () => number;
  flushIntervalMs: number;
  retentionMs: number;
  maxBytes: number;
  log: Logger;
  /** Points kept in memory at most (the unflushed batch, or more while the database is failing). */
  maxPendingPoints?: number;
}

type Buffered = { t: number[]; v: number[] };
const HOUR = 3_600_000;

export class EmbeddedStore implements HistoryStore {
  readonly kind = 'embedded' as const;
  private db: Database.Database | null = null;
  private readonly file: string;
  private readonly tiers: Tier[];
  private readonly ids = new Map<string, number>();
  private readonly names = new Map<number, string>();
  private readonly unsavedNames = new Set<number>();
  private readonly lastSeen = new Map<number, number>();
  private readonly storedLast = new Map<number, number>();
  private pending = new Map<number, Buffered>();
  private pendingCount = 0;
  private readonly acc: BucketAccumulator[];
  /** Per tier: buckets before this time are in the database. */
  private readonly doneUntil: number[];
  private readonly maxSpan: number[];
  /** Per tier: the newest row key, so a clock that stands still cannot make two rows collide. */
  private readonly lastT0: number[];
  private timer: NodeJS.Timeout | null = null;
  private error: string | null = null;
  private lastErrorLog = 0;
  private flushes = 0;
  private lastFlush: number | null = null;
  private bytesWritten = 0;
  private pointsWritten = 0;
  private evicted = 0;

  constructor(private readonly o: EmbeddedOptions) {
    this.file = path.join(o.dataDir, HISTORY_DB_FILE);
    this.tiers = tiersFor(o.retentionMs);
    this.acc = this.tiers.map((t) => new BucketAccumulator(t.bucketMs || 1));
    this.doneUntil = this.tiers.map(() => 0);
    this.maxSpan = this.tiers.map(() => 0);
    this.lastT0 = this.tiers.map(() => -Infinity);
    this.open();
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.o.flushIntervalMs);
    this.timer.unref();
  }

  private open(): void {
    try {
      mkdirSync(this.o.dataDir, { recursive: true });
      const db = new Database(this.file);
      try {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.pragma('journal_size_limit = 4194304');
        db.exec(`CREATE TABLE IF NOT EXISTS fields (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, last INTEGER NOT NULL);
          CREATE TABLE IF NOT EXISTS chunks (tier INTEGER NOT NULL, t0 INTEGER NOT NULL, t1 INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (tier, t0)) WITHOUT ROWID;`);
      } catch (e) {
        db.close();
        throw e;
      }
      this.db = db;
      for (const row of db.prepare('SELECT id, name, last FROM fields').all() as Array<{ id: number; name: string; last: number }>) {
        if (!this.ids.has(row.name)) {
          this.ids.set(row.name, row.id);
          this.names.set(row.id, row.name);
        }
        this.storedLast.set(row.id, row.last);
      }
      for (const t of this.tiers) {
        const r = db.prepare('SELECT max(t1) AS done, max(t1 - t0) AS span, max(t0) AS last FROM chunks WHERE tier = ?').get(t.index) as { done: number | null; span: number | null; last: number | null };
        if (r.last !== null) this.lastT0[t.index] = r.last;
        this.maxSpan[t.index] = Math.max(this.maxSpan[t.index]!, r.span ?? 0);
        if (t.index > 0) this.doneUntil[t.index] = Math.max(this.doneUntil[t.index]!, r.done ?? 0);
      }
      this.replay();
      this.error = null;
    } catch (e) {
      this.db = null;
      this.fail('cannot open the history database', e);
    }
  }

  /** After a restart: rebuild the buckets in progress and the recent last-seen times from raw rows. */
  private replay(): void {
    const lastRaw = (this.db!.prepare('SELECT max(t1) AS t FROM chunks WHERE tier = 0').get() as { t: number | null }).t;
    if (lastRaw === null) return;
    const from = Math.min(lastRaw - HOUR, ...this.doneUntil.slice(1));
    for (const s of this.rowsSeries(0, from, lastRaw)) {
      s.t.forEach((t, i) => {
        this.lastSeen.set(s.id, Math.max(this.lastSeen.get(s.id) ?? 0, t));
        for (const tier of this.tiers.slice(1)) if (t > this.doneUntil[tier.index]!) this.acc[tier.index]!.add(s.id, t, s.v[i]!);
      });
    }
  }

  private fail(what: string, e: unknown): void {
    const message = `${what}: ${(e as Error).message ?? String(e)}`;
    this.error = message;
    const now = Date.now();
    if (now - this.lastErrorLog > 60_000) {
      this.lastErrorLog = now;
      this.o.log.error({ file: this.file }, `history degraded: ${message}`);
    }
  }

  private idFor(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.ids.size + 1;
      while (this.names.has(id)) id++;
      this.ids.set(name, id);
      this.names.set(id, name);
      this.unsavedNames.add(id);
    }
    return id;
  }

  write(key: string, fields: ReadonlyArray<readonly [string, number]>, t: number): void {
    for (const [field, v] of fields) {
      const id = this.idFor(`${key}/${field}`);
      let b = this.pending.get(id);
      if (!b) this.pending.set(id, (b = { t: [], v: [] }));
      b.t.push(t);
      b.v.push(v);
      this.lastSeen.set(id, t);
      for (const tier of this.tiers.slice(1)) this.acc[tier.index]!.add(id, t, v);
    }
    this.pendingCount += fields.length;
    if (this.pendingCount > (this.o.maxPendingPoints ?? 200_000)) this.thinPending();
  }

  /** Memory is bounded: keep every other point of the oldest half when the batch overflows. */
  private thinPending(): void {
    let count = 0;
    for (const b of this.pending.values()) {
      const half = Math.floor(b.t.length / 2);
      const keep = (_: number, i: number) => i >= half || i % 2 === 0;
      b.t = b.t.filter(keep);
      b.v = b.v.filter(keep);
      count += b.t.length;
    }
    this.pendingCount = count;
  }

  async flush(): Promise<void> {
    this.flushSync();
  }

  flushSync(): void {
    const now = this.o.now();
    if (!this.db) this.open();
    const db = this.db;
    if (!db) return;
    const pending = this.pending;
    const tierDone = this.tiers.slice(1).map((t) => this.acc[t.index]!.take(now));
    const insert = db.prepare('INSERT INTO chunks (tier, t0, t1, data) VALUES (?, ?, ?, ?)');
    let bytes = 0;
    let points = 0;
    const writeRow = (tier: number, series: Series[], t1: number) => {
      if (!series.length) return;
      let t0 = Infinity;
      for (const s of series) {
        t0 = Math.min(t0, s.t[0]!);
        points += s.t.length;
      }
      if (t0 <= this.lastT0[tier]!) t0 = this.lastT0[tier]! + 1;
      const data = encodeChunk(t0, series);
      insert.run(tier, t0, Math.max(t0, t1), data);
      this.lastT0[tier] = t0;
      bytes += data.length;
      this.maxSpan[tier] = Math.max(this.maxSpan[tier]!, t1 - t0);
    };
    const toSeries = (m: Map<number, Buffered>) => [...m.entries()].map(([id, b]) => ({ id, t: b.t, v: b.v }));
    try {
      db.transaction(() => {
        const addName = db.prepare('INSERT OR IGNORE INTO fields (id, name, last) VALUES (?, ?, ?)');
        for (const id of this.unsavedNames) addName.run(id, this.names.get(id)!, this.lastSeen.get(id) ?? now);
        const raw = toSeries(pending);
        writeRow(0, raw, Math.max(0, ...raw.map((s) => s.t[s.t.length - 1]!)));
        for (const tier of this.tiers.slice(1)) {
          const done = Math.floor(now / tier.bucketMs) * tier.bucketMs;
          writeRow(tier.index, toSeries(tierDone[tier.index - 1]!), done);
        }
        const setLast = db.prepare('UPDATE fields SET last = ? WHERE id = ?');
        for (const [id, t] of this.lastSeen) {
          if (t - (this.storedLast.get(id) ?? 0) > HOUR && !this.unsavedNames.has(id)) setLast.run(t, id);
        }
        const drop = db.prepare('DELETE FROM chunks WHERE tier = @tier AND t0 < @cutoff AND t1 < @cutoff');
        for (const tier of this.tiers) this.evicted += drop.run({ tier: tier.index, cutoff: now - tier.keepMs }).changes;
      })();
    } catch (e) {
      tierDone.forEach((m, i) => this.acc[i + 1]!.restore(m));
      this.fail('history flush failed, points kept in memory', e);
      return;
    }
    for (const id of this.unsavedNames) this.storedLast.set(id, this.lastSeen.get(id) ?? now);
    for (const [id, t] of this.lastSeen) if (t - (this.storedLast.get(id) ?? 0) > HOUR) this.storedLast.set(id, t);
    this.unsavedNames.clear();
    this.pending = new Map();
    this.pendingCount = 0;
    for (const tier of this.tiers.slice(1)) this.doneUntil[tier.index] = Math.max(this.doneUntil[tier.index]!, Math.floor(now / tier.bucketMs) * tier.bucketMs);
    this.flushes++;
    this.lastFlush = now;
    this.bytesWritten += bytes;
    this.pointsWritten += points;
    this.error = null;
    try {
      this.enforceCap();
    } catch (e) {
      this.fail('history size cap', e);
    }
  }

  /** Bytes of database pages in use (the file keeps its high-water size; freed pages are reused). */
  usedBytes(): number {
    if (!this.db) return 0;
    const pages = (this.db.pragma('page_count', { simple: true }) as number) - (this.db.pragma('freelist_count', { simple: true }) as number);
    return pages * (this.db.pragma('page_size', { simple: true }) as number);
  }

  private enforceCap(): void {
    const db = this.db!;
    if (this.usedBytes() <= this.o.maxBytes) return;
    const oldest = db.prepare('SELECT t0 FROM chunks WHERE tier = ? ORDER BY t0 LIMIT 1').pluck();
    const del = db.prepare('DELETE FROM chunks WHERE tier = ? AND t0 = ?');
    db.transaction(() => {
      while (this.usedBytes() > this.o.maxBytes) {
        let best: { tier: number; t0: number } | null = null;
        for (const t of this.tiers) {
          const t0 = oldest.get(t.index) as number | undefined;
          if (t0 !== undefined && (!best || t0 < best.t0)) best = { tier: t.index, t0 };
        }
        if (!best) return;
        del.run(best.tier, best.t0);
        this.evicted++;
      }
    })();
  }

  /** Decoded series of a tier's rows overlapping [start, end], wanted ids only. */
  private rowsSeries(tier: number, start: number, end: number, wanted?: Set<number>): Series[] {
    if (!this.db) return [];
    const rows = this.db
      .prepare('SELECT t0, t1, data FROM chunks WHERE tier = ? AND t0 >= ? AND t0 <= ? AND t1 >= ? ORDER BY t0')
      .all(tier, start - this.maxSpan[tier]!, end, start) as Array<{ t0: number; t1: number; data: Buffer }>;
    const out: Series[] = [];
    for (const r of rows) out.push(...decodeChunk(r.t0, r.data, wanted && ((id) => wanted.has(id))));
    return out;
  }

  /** Points per id in [start, end] of a tier (raw includes the unflushed batch); bucket points sit at their end. */
  private collect(tier: Tier, ids: Set<number>, start: number, end: number): Map<number, Buffered> {
    const out = new Map<number, Buffered>();
    const add = (id: number, t: number, v: number) => {
      if (t < start || t > end) return;
      let b = out.get(id);
      if (!b) out.set(id, (b = { t: [], v: [] }));
      b.t.push(t);
      b.v.push(v);
    };
    for (const s of this.rowsSeries(tier.index, start, end, ids)) s.t.forEach((t, i) => add(s.id, t, s.v[i]!));
    if (tier.index === 0) for (const id of ids) this.pending.get(id)?.t.forEach((t, i) => add(id, t, this.pending.get(id)!.v[i]!));
    return out;
  }

  /** Points of the chosen tier up to its completed buckets, raw points after. */
  private points(tier: Tier, ids: Set<number>, start: number, end: number): Map<number, Buffered> {
    if (tier.index === 0) return this.collect(tier, ids, start, end);
    const cut = this.doneUntil[tier.index]!;
    const coarse = this.collect(tier, ids, start, Math.min(end, cut));
    if (end <= cut) return coarse;
    const fine = this.collect(this.tiers[0]!, ids, Math.max(start, cut + 1), end);
    for (const [id, b] of fine) {
      const c = coarse.get(id);
      if (c) {
        c.t.push(...b.t);
        c.v.push(...b.v);
      } else coarse.set(id, b);
    }
    return coarse;
  }

  private idSet(fields: string[]): Set<number> {
    return new Set(fields.map((f) => this.ids.get(f)).filter((id): id is number => id !== undefined));
  }

  async fields(since: number): Promise<string[]> {
    const out: string[] = [];
    for (const [name, id] of this.ids) if (Math.max(this.lastSeen.get(id) ?? 0, this.storedLast.get(id) ?? 0) >= since) out.push(name);
    return out.sort();
  }

  async ranges(fields: string[], start: number, end: number, stepS: number): Promise<Range[]> {
    const stepMs = stepS * 1000;
    const tier = tierForQuery(this.tiers, stepMs, start, this.o.now());
    const pts = this.points(tier, this.idSet(fields), start - stepMs, end);
    const out: Range[] = [];
    for (const f of fields) {
      const b = pts.get(this.ids.get(f) ?? -1);
      const values = b ? stepAverages(b, start, end, stepS) : [];
      if (values.length) out.push({ metric: { __name__: f }, values });
    }
    return out;
  }

  async raw(fields: string[], start: number, end: number): Promise<RawSeries[]> {
    const tier = tierForQuery(this.tiers, 0, start, this.o.now());
    const pts = this.points(tier, this.idSet(fields), start, end);
    const out: RawSeries[] = [];
    for (const f of new Set(fields)) {
      const b = pts.get(this.ids.get(f) ?? -1);
      if (b?.t.length) out.push({ field: f, t: b.t, v: b.v });
    }
    return out;
  }

  /** Bucket averages of one tier as stored (for tests and diagnostics). */
  tierPoints(tierIndex: number, field: string, start: number, end: number): { t: number[]; v: number[] } {
    const id = this.ids.get(field);
    if (id === undefined) return { t: [], v: [] };
    const out = { t: [] as number[], v: [] as number[] };
    for (const s of this.rowsSeries(tierIndex, start, end, new Set([id]))) {
      s.t.forEach((t, i) => {
        if (t >= start && t <= end) {
          out.t.push(t);
          out.v.push(s.v[i]!);
        }
      });
    }
    return out;
  }

  async ping(): Promise<void> {
    if (!this.db) throw new Error(this.error ?? 'history database not open');
    this.db.prepare('SELECT 1').get();
  }

  status(): Record<string, unknown> {
    return {
      store: 'embedded',
      file: this.file,
      ok: this.error === null,
      error: this.error,
      fields: this.ids.size,
      pendingPoints: this.pendingCount,
      flushes: this.flushes,
      lastFlush: this.lastFlush === null ? null : new Date(this.lastFlush).toISOString(),
      pointsWritten: this.pointsWritten,
      chunkBytesWritten: this.bytesWritten,
      usedBytes: this.usedBytes(),
      maxBytes: this.o.maxBytes,
      evictedChunks: this.evicted,
      tiers: this.tiers.map((t) => ({ bucketSeconds: t.bucketMs / 1000, keepDays: t.keepMs / 86_400_000 })),
    };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.flushSync();
    this.db?.close();
    this.db = null;
  }
}
