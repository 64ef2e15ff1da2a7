// The embedded history store: append-only segment files in `history/` in the data dir (format 2,
// see segments.ts, chunk-codec.ts, series-blocks.ts and field-names.ts; `history/FORMAT` holds
// the version).
//
// Points are kept in memory and written once per flush interval as one compressed record per
// tier, each in a 4 KiB-aligned page run of its own: a flush of 200 fields is one page written
// once, with no journal, B-tree or checkpoint copy besides it (the SQLite store of format 1 wrote
// every chunk twice, WAL then database, plus the pages around it). Raw records hold all series
// in one chunk (the smallest write); tier records hold one chunk per series, so a long graph
// decodes only the fields it shows. A kill -9 loses the unflushed batch; a torn record at a
// file's end is cut off on open by its checksum, a bad one in the middle skipped and counted.
// Retention is per tier (tiers.ts), whole files go once past it; over historyMaxBytes the oldest
// files go first. A format-1 database (history.sqlite) is migrated on
// open and kept as history.sqlite.v1-migrated. A directory that cannot be opened or written
// degrades history (logged, in status) and keeps the newest points in bounded memory; control
// and the block API never notice.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../log.js';
import { DISK_FULL_DROP, type HistoryStore, type Range, type RawSeries, type StoreHealth } from '../store.js';
import { isDiskFull } from '../../store/storage-health.js';
import type { Series } from './chunk-codec.js';
import { FieldIds } from './field-ids.js';
import { NamesFile } from './field-names.js';
import { HistoryDrops } from '../drops.js';
import { INGEST_LIMITS, MAX_FIELD_NAMES, MAX_PENDING_POINTS, PENDING_RESERVE, QUERY_TURNS } from '../limits.js';
import { Turns } from '../turns.js';
import { checkFormat, FORMAT_VERSION } from './format.js';
import { migrateV1 } from './migrate-v1.js';
import { ensureDir } from './segments.js';
import { ExpiryClock } from './expiry-clock.js';
import { rangesOf, rawOf, rawSlicesOf, tierPointsOf, type Buffered, type ReadView } from './reading.js';
import { thinOlderHalf } from './thinning.js';
import { RecordFiles } from './record-files.js';
import { replayRaw } from './replay.js';
import { BucketAccumulator, nothingKeptBefore, tiersFor, type Tier } from './tiers.js';

export const HISTORY_DIR = 'history';
/** The format-1 SQLite database, migrated on open. */
export const LEGACY_DB_FILE = 'history.sqlite';

export interface EmbeddedOptions {
  dataDir: string;
  /** Wall clock, epoch ms. */
  now: () => number;
  /**
   * Monotonic ms, for the time between error logs (performance.now() by default) and for
   * retention (without it, retention counts on the wall clock: tests on a manual wall clock).
   */
  monotonic?: () => number;
  flushIntervalMs: number;
  retentionMs: number;
  maxBytes: number;
  log: Logger;
  /** Points kept in memory at most (the unflushed batch, or more while the directory is failing). */
  maxPendingPoints?: number;
  /** Where dropped points are counted (shared with the ingest); one of its own by default. */
  drops?: HistoryDrops;
}

const HOUR = 3_600_000;
/** How long after the store starts it rebuilds the buckets in progress, unless a write or query needs them sooner. */
const REPLAY_AFTER_MS = 1000;

export class EmbeddedStore implements HistoryStore {
  readonly kind = 'embedded' as const;
  private ready = false;
  private readonly dir: string;
  private readonly files: RecordFiles;
  private readonly tiers: Tier[];
  private readonly fieldIds = new FieldIds();
  private pending = new Map<number, Buffered>();
  private pendingCount = 0;
  private readonly acc: BucketAccumulator[];
  /** Per tier: buckets ending at or before this time are complete (on disk or in `unwritten`). */
  private readonly doneUntil: number[];
  /** Per tier: completed buckets not yet written; a coarse tier writes one record per rowSpan, so a long graph reads few records. */
  private readonly unwritten: Array<Map<number, Buffered>>;
  private timer: NodeJS.Timeout | null = null;
  private closing = false;
  private error: string | null = null;
  private errorIsDiskFull = false;
  private lastErrorLog = -Infinity;
  private readonly turns = new Turns(QUERY_TURNS.running, QUERY_TURNS.waiting);
  private flushes = 0;
  private lastFlush: number | null = null;
  private readonly expiry: ExpiryClock;
  private bytesWritten = 0;
  private pointsWritten = 0;
  private thinned = false;
  /** Set by open(): the buckets in progress and recent last-seen times are still to be rebuilt. */
  private replayDue = false;
  private replayTimer: NodeJS.Timeout | null = null;
  private droppedPoints = 0;
  private readonly drops: HistoryDrops;
  /** Ids of the controller's own fields: thinning leaves them whole while the directory works. */
  private readonly ownIds = new Set<number>();
  private readonly markOwn = (id: number) => void this.ownIds.add(id);
  private readonly names: NamesFile;
  /** Monotonic time of the last tidyNames(). */
  private lastTidy = -Infinity;

  constructor(private readonly o: EmbeddedOptions) {
    this.dir = path.join(o.dataDir, HISTORY_DIR);
    this.drops = o.drops ?? new HistoryDrops(o.log, { intervalMs: INGEST_LIMITS.dropLogIntervalMs, now: o.now });
    this.tiers = tiersFor(o.retentionMs);
    this.expiry = new ExpiryClock(o.monotonic);
    this.names = new NamesFile(this.dir);
    this.files = new RecordFiles(this.dir, this.tiers, this.expiry, o.log, o.now);
    this.acc = this.tiers.map((t) => new BucketAccumulator(t.bucketMs || 1));
    this.doneUntil = this.tiers.map(() => 0);
    this.unwritten = this.tiers.map(() => new Map());
    this.open();
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.o.flushIntervalMs);
    this.timer.unref();
    // Off the start's path: the API answers first (an hour of raw records takes a Pi a while).
    this.replayTimer ??= setTimeout(() => this.settle(), REPLAY_AFTER_MS);
    this.replayTimer.unref();
  }

  /** The replay, if the open left it to do: before anything reads or adds to what it rebuilds. */
  private settle(): void {
    if (!this.replayDue || !this.ready) return;
    this.replayDue = false;
    this.replay();
  }

  private open(): void {
    try {
      mkdirSync(this.o.dataDir, { recursive: true });
      const legacy = path.join(this.o.dataDir, LEGACY_DB_FILE);
      if (existsSync(legacy) && !existsSync(this.dir)) migrateV1(legacy, this.dir, this.o.log);
      ensureDir(this.dir);
      checkFormat(this.dir);
      const names = this.names.read(this.o.log);
      this.fieldIds.load(names.entries, names.next);
      this.files.scan();
      for (const t of this.tiers.slice(1))
        this.doneUntil[t.index] = Math.max(this.doneUntil[t.index]!, ...this.files.index[t.index]!.map((r) => r.t1));
      this.ready = true;
      this.replayDue = true;
      this.error = null;
    } catch (e) {
      this.ready = false;
      this.fail('cannot open the history database', e);
    }
  }

  /** After a restart: rebuild the buckets in progress and the recent last-seen times from raw records. */
  private replay(): void {
    const began = performance.now();
    const points = replayRaw(this.files, this.fieldIds, this.tiers, this.doneUntil, this.acc);
    const ms = Math.round(performance.now() - began);
    if (points)
      this.o.log.debug({ points, ms }, `history: rebuilt the buckets in progress from ${points} raw points (${ms} ms)`);
  }

  private fail(what: string, e: unknown): void {
    const message = `${what}: ${(e as Error).message ?? String(e)}`;
    this.error = message;
    this.errorIsDiskFull = isDiskFull(e);
    // Monotonic: a wall clock set back would silence the log for as long as it had been ahead.
    const now = this.o.monotonic?.() ?? performance.now();
    if (now - this.lastErrorLog > 60_000) {
      this.lastErrorLog = now;
      this.o.log.error({ dir: this.dir }, `history degraded: ${message}`);
    }
  }

  write(key: string, fields: ReadonlyArray<readonly [string, number]>, t: number, reserved = false): void {
    // The buckets in progress take points in time order: the replayed ones first.
    this.settle();
    const bound = this.o.maxPendingPoints ?? MAX_PENDING_POINTS;
    // The controller's own points may use a reserve over the bound, so a flood leaves its history whole.
    const max = reserved ? bound + Math.ceil(bound * PENDING_RESERVE) : bound;
    if (this.pendingCount + fields.length > max && !this.thinned) this.thinPending();
    if (this.pendingCount + fields.length > max) {
      this.droppedPoints += fields.length;
      this.drops.dropPoints(
        // The points wait for a flush that a full disk keeps failing: that is the disk-full alert's.
        this.error !== null && this.errorIsDiskFull ? DISK_FULL_DROP : 'store full',
        fields.length,
        reserved,
        `${this.pendingCount} history points wait for the next flush (limit ${max}); ${fields.length} points of key ${JSON.stringify(key)} dropped`,
      );
      return;
    }
    const byField = this.fieldIds.keyFields(key);
    const created = reserved ? this.markOwn : undefined;
    const buckets = this.acc.map((a) => a.bucketOf(t));
    let refused = 0;
    // Index loops: this runs every few seconds, too seldom for V8 to optimise away the iterator objects of for-of.
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]![0];
      const v = fields[i]![1];
      const id = this.fieldIds.idInKey(
        byField,
        key,
        field,
        created,
        reserved ? Number.POSITIVE_INFINITY : MAX_FIELD_NAMES,
      );
      if (id === undefined) {
        refused++;
        continue;
      }
      let b = this.pending.get(id);
      if (!b) this.pending.set(id, (b = { t: [], v: [] }));
      b.t.push(t);
      b.v.push(v);
      this.fieldIds.seen(id, t);
      for (let k = 1; k < this.acc.length; k++) this.acc[k]!.addTo(id, buckets[k]!, v);
    }
    this.pendingCount += fields.length - refused;
    if (refused) {
      const detail = `the history holds ${MAX_FIELD_NAMES} field names (each while its points are kept); new fields of key ${JSON.stringify(key)} dropped`;
      this.drops.dropPoints('too many field names', refused, false, detail);
    }
  }

  /**
   * Memory is bounded: keep every other point of the oldest half of each series when the batch
   * overflows (long series: a failing directory keeps the newest points). Many short series
   * cannot be thinned, and scanning them again for every message is what kept a flooded
   * controller busy for minutes: when a pass frees less than a quarter, points over the bound
   * are dropped (counted) until the next flush instead.
   */
  private thinPending(): void {
    const before = this.pendingCount;
    // While the directory works (a flood from others), the controller's own series keep every
    // point: they have the reserve over the bound. While it fails, all series thin alike.
    const spareOwn = this.error === null;
    const { count, lost } = thinOlderHalf(this.pending, this.ownIds, spareOwn);
    this.pendingCount = count;
    this.thinned = count > before * 0.75;
    // Thinned while a full disk keeps the flushes failing: that is the disk-full alert's, not a second one.
    const diskFull = this.error !== null && this.errorIsDiskFull;
    const detail = `${before} history points waited for the next flush${diskFull ? ' (the disk is full)' : ''}; every other one of the older half thinned out`;
    const reason = diskFull ? DISK_FULL_DROP : 'thinned';
    this.drops.dropPoints(reason, lost.other, false, detail);
    this.drops.dropPoints(reason, lost.own, true, detail);
  }

  async flush(): Promise<void> {
    this.flushSync();
  }

  flushSync(): void {
    const now = this.o.now();
    this.thinned = false;
    if (!this.ready) this.open();
    if (!this.ready) return;
    this.settle();
    for (const tier of this.tiers.slice(1)) {
      for (const [id, b] of this.acc[tier.index]!.take(now)) {
        const u = this.unwritten[tier.index]!.get(id);
        if (u) {
          u.t.push(...b.t);
          u.v.push(...b.v);
        } else this.unwritten[tier.index]!.set(id, b);
      }
    }
    const toSeries = (m: Map<number, Buffered>) => [...m.entries()].map(([id, b]) => ({ id, t: b.t, v: b.v }));
    const writeRecord = (tier: number, series: Series[], t1: number) => {
      const { bytes, points } = this.files.append(tier, series, t1);
      this.bytesWritten += bytes;
      this.pointsWritten += points;
    };
    try {
      // Names first: a record never names a field the names file does not hold.
      const names = this.fieldIds.toSave(now);
      this.names.append(names);
      this.fieldIds.saved(names);
      const raw = toSeries(this.pending);
      if (raw.length) writeRecord(0, raw, Math.max(...raw.map((s) => s.t[s.t.length - 1]!)));
      this.pending = new Map();
      this.pendingCount = 0;
      for (const tier of this.tiers.slice(1)) {
        const done = Math.floor(now / tier.bucketMs) * tier.bucketMs;
        this.doneUntil[tier.index] = Math.max(this.doneUntil[tier.index]!, done);
        const series = toSeries(this.unwritten[tier.index]!);
        if (!series.length) continue;
        const oldest = Math.min(...series.map((x) => x.t[0]!));
        if (this.closing || oldest <= now - tier.rowSpanMs) {
          writeRecord(tier.index, series, done);
          this.unwritten[tier.index] = new Map();
        }
      }
      this.files.dropExpired(this.expiry.now(now, () => this.files.newestRecord()));
    } catch (e) {
      this.fail('history flush failed, points kept in memory', e);
      return;
    }
    this.flushes++;
    this.lastFlush = now;
    this.error = null;
    try {
      this.tidyNames();
      this.files.enforceCap(this.o.maxBytes);
    } catch (e) {
      this.fail('history upkeep (names file, size cap)', e);
    }
  }

  /** Hourly: forget the fields no tier keeps a point of, and rewrite the names file without them (or its stale lines). */
  private tidyNames(): void {
    const mono = this.o.monotonic?.() ?? performance.now();
    if (mono - this.lastTidy < HOUR) return;
    this.lastTidy = mono;
    const stale = this.fieldIds.staleIds(nothingKeptBefore(this.tiers, this.expiry.last ?? this.o.now()));
    if (!stale.size && !this.names.stale(this.fieldIds.size)) return;
    const kept = this.fieldIds.entries(stale);
    this.names.rewrite(kept, this.fieldIds.nextId);
    this.fieldIds.forget(stale, kept);
    for (const id of stale) this.ownIds.delete(id);
  }

  /** Bytes on disk: the segment files and the names file. */
  usedBytes(): number {
    return this.ready ? this.files.usedBytes() : 0;
  }

  /** What a query reads: as the store holds it now (flushes may come while the query waits for its turn). */
  private view(): ReadView {
    return {
      tiers: this.tiers,
      ids: this.fieldIds.byName,
      stored: this.ready ? this.files.snapshot() : () => [],
      doneUntil: this.doneUntil.slice(),
      unwritten: this.unwritten.slice(),
      pending: this.pending,
    };
  }

  async fields(since: number): Promise<string[]> {
    this.settle();
    return this.fieldIds.seenSince(since);
  }

  async ranges(fields: string[], start: number, end: number, stepS: number, signal?: AbortSignal): Promise<Range[]> {
    return this.turns.run(() => rangesOf(this.view(), fields, start, end, stepS, this.o.now()), signal);
  }

  async raw(fields: string[], start: number, end: number, signal?: AbortSignal): Promise<RawSeries[]> {
    return this.turns.run(() => rawOf(this.view(), fields, start, end, this.o.now()), signal);
  }

  rawSlices(fields: string[], start: number, end: number, signal?: AbortSignal): AsyncIterable<RawSeries[]> {
    return this.turns.each(rawSlicesOf(this.view(), fields, start, end, this.o.now()), signal);
  }

  /** Bucket averages of one tier as stored (for tests and diagnostics). */
  tierPoints(tierIndex: number, field: string, start: number, end: number): { t: number[]; v: number[] } {
    return tierPointsOf(this.view(), tierIndex, field, start, end);
  }

  async ping(): Promise<void> {
    if (!this.ready) throw new Error(this.error ?? 'history database not open');
    statSync(this.dir);
  }

  health(): StoreHealth {
    return { ok: this.error === null, error: this.error, diskFull: this.error !== null && this.errorIsDiskFull };
  }

  status(): Record<string, unknown> {
    return {
      store: 'embedded',
      dir: this.dir,
      format: FORMAT_VERSION,
      ...this.health(),
      fields: this.fieldIds.size,
      pendingPoints: this.pendingCount,
      maxPendingPoints: this.o.maxPendingPoints ?? MAX_PENDING_POINTS,
      droppedPoints: this.droppedPoints,
      flushes: this.flushes,
      lastFlush: this.lastFlush === null ? null : new Date(this.lastFlush).toISOString(),
      pointsWritten: this.pointsWritten,
      chunkBytesWritten: this.bytesWritten,
      usedBytes: this.usedBytes(),
      maxBytes: this.o.maxBytes,
      evictedChunks: this.files.evicted,
      corruptRecords: this.files.corruptRecords(),
      tiers: this.tiers.map((t) => ({ bucketSeconds: t.bucketMs / 1000, keepDays: t.keepMs / 86_400_000 })),
    };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.replayTimer) clearTimeout(this.replayTimer);
    this.closing = true;
    this.flushSync();
    this.ready = false;
  }
}
