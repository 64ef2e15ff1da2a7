// The records on disk of the embedded history store: its segment files (segments.ts) by name, an
// index per tier in time order, and what ages them out: retention per tier (tiers.ts, counted on
// the expiry clock) and the size cap, whole files at a time. Reading decodes the records a query
// overlaps (chunk-codec.ts, series-blocks.ts).
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../log.js';
import { decodeChunk, encodeChunk, type Series } from './chunk-codec.js';
import { decodeSeriesBlocks, encodeSeriesBlocks } from './series-blocks.js';
import type { ExpiryClock } from './expiry-clock.js';
import { NAMES_FILE } from './field-names.js';
import {
  appendRecord,
  Layout,
  layoutOf,
  readBody,
  removeSegment,
  scanSegments,
  segmentFor,
  type BadSpan,
  type RecordRef,
  type SegmentFile,
} from './segments.js';
import type { Tier } from './tiers.js';

/** Decoded series of a tier's records overlapping [start, end], wanted ids only, one record at a time. */
export type StoredRecords = (tier: number, start: number, end: number, wanted?: Set<number>) => Iterable<Series[]>;

export class RecordFiles {
  readonly segs = new Map<string, SegmentFile>();
  /** Per tier, records in time order. */
  readonly index: RecordRef[][];
  /** Records gone with their files (retention, size cap). */
  evicted = 0;
  /** Bad records already logged (file@offset), so a reopen does not log them again. */
  private readonly loggedSkips = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly tiers: Tier[],
    private readonly expiry: ExpiryClock,
    private readonly log: Logger,
    /** Wall clock, epoch ms. */
    private readonly now: () => number,
  ) {
    this.index = tiers.map(() => []);
  }

  /** Read the files' headers afresh: torn ends cut off, bad records skipped (each logged once). */
  scan(): void {
    this.segs.clear();
    this.index.forEach((x) => (x.length = 0));
    const report = {
      onSkipped: (file: string, span: BadSpan) => {
        const key = `${file}@${span.offset}`;
        if (this.loggedSkips.has(key)) return;
        this.loggedSkips.add(key);
        this.log.warn(
          { file, offset: span.offset, bytes: span.bytes },
          `history: bad record in ${file} (${span.why}, ${span.bytes} bytes at byte ${span.offset}) skipped; the records after it are kept and the file is left as it is`,
        );
      },
      onTorn: (file: string, span: BadSpan) =>
        this.log.warn(
          { file, offset: span.offset, bytes: span.bytes },
          `history: torn record at the end of ${file} (${span.why} at byte ${span.offset}); cut off ${span.bytes} bytes`,
        ),
    };
    for (const seg of scanSegments(this.dir, report)) {
      if (seg.tier >= this.tiers.length) continue;
      this.segs.set(seg.name, seg);
      this.index[seg.tier]!.push(...seg.records);
    }
    for (const refs of this.index) refs.sort((a, b) => a.t0 - b.t0);
  }

  /** Append one record of `series` to its tier's file; raw records hold all series in one chunk, tier records one chunk each. */
  append(tier: number, series: Series[], t1: number): { bytes: number; points: number } {
    let t0 = Infinity;
    let points = 0;
    for (const s of series) {
      t0 = Math.min(t0, s.t[0]!);
      points += s.t.length;
    }
    const body = tier === 0 ? encodeChunk(t0, series) : encodeSeriesBlocks(t0, series);
    const ref = appendRecord(this.dir, segmentFor(this.segs, tier, t0), layoutOf(tier), t0, Math.max(t0, t1), body);
    this.index[tier]!.push(ref);
    return { bytes: body.length, points };
  }

  /** Records wholly older than their tier keeps are no longer read; a file goes when all its records have. */
  cutoff(tier: number): number {
    return (this.expiry.last ?? this.now()) - this.tiers[tier]!.keepMs;
  }

  /** The newest end of a stored record, or null when there is none. */
  newestRecord(): number | null {
    let newest: number | null = null;
    for (const refs of this.index) for (const r of refs) newest = Math.max(newest ?? r.t1, r.t1);
    return newest;
  }

  dropExpired(now: number): void {
    for (const seg of [...this.segs.values()]) {
      const cutoff = now - this.tiers[seg.tier]!.keepMs;
      if (seg.records.length && seg.records.every((r) => r.t1 < cutoff)) this.removeFile(seg);
    }
  }

  private removeFile(seg: SegmentFile): void {
    removeSegment(this.dir, seg);
    this.segs.delete(seg.name);
    const gone = new Set(seg.records);
    this.index[seg.tier] = this.index[seg.tier]!.filter((r) => !gone.has(r));
    this.evicted += seg.records.length;
  }

  /** Bytes on disk: the segment files and the names file. */
  usedBytes(): number {
    let bytes = 0;
    for (const seg of this.segs.values()) bytes += seg.size;
    const names = path.join(this.dir, NAMES_FILE);
    return bytes + (existsSync(names) ? statSync(names).size : 0);
  }

  /** Over the cap, whole files go, the oldest period first (whatever its tier). */
  enforceCap(maxBytes: number): void {
    let used = this.usedBytes();
    while (used > maxBytes) {
      let oldest: SegmentFile | null = null;
      for (const seg of this.segs.values())
        if (!oldest || (seg.records[0]?.t0 ?? seg.period) < (oldest.records[0]?.t0 ?? oldest.period)) oldest = seg;
      if (!oldest) return;
      used -= oldest.size;
      this.removeFile(oldest);
    }
  }

  /** Decoded series of a tier's records overlapping [start, end] and within retention, wanted ids only. */
  series(tier: number, start: number, end: number, wanted?: Set<number>): Series[] {
    return [...this.decoded(this.index[tier]!, tier, start, end, wanted)].flat();
  }

  /**
   * The records as they are now, for a query that gives up its turn between records: flushes
   * meanwhile add records it does not read (their points it reads from the batch it began with).
   */
  snapshot(): StoredRecords {
    const index = this.index.map((refs) => refs.slice());
    // The files by identity: one that went (retention, the size cap) comes back under its name
    // with the next record of its period, and the old records' places in it hold other bytes.
    const files = new Map(this.segs);
    return (tier, start, end, wanted) => this.decoded(index[tier]!, tier, start, end, wanted, files);
  }

  /** Decoded series of each of `refs` overlapping [start, end] and within retention, one record at a time. */
  private *decoded(
    refs: RecordRef[],
    tier: number,
    start: number,
    end: number,
    wanted?: Set<number>,
    /** The files as they were when `refs` was taken (default: as they are now). */
    files: Map<string, SegmentFile> = this.segs,
  ): Generator<Series[]> {
    const cutoff = this.cutoff(tier);
    const want = wanted && ((id: number) => wanted.has(id));
    for (const r of refs) {
      if (r.t0 > end || r.t1 < start || r.t1 < cutoff) continue;
      // Its file went (retention, the size cap) while a query waited for its turn: expired, even
      // when a file of that name was made again since.
      const seg = this.segs.get(r.file);
      if (!seg || seg !== files.get(r.file)) continue;
      const body = readBody(this.dir, r);
      yield r.layout === Layout.PerSeries ? decodeSeriesBlocks(r.t0, body, want) : decodeChunk(r.t0, body, want);
    }
  }

  /** Bad records skipped in the files still held, per file. */
  corruptRecords(): { count: number; files: Array<{ file: string; records: number; bytes: number }> } {
    const files = [...this.segs.values()]
      .filter((seg) => seg.skipped.length)
      .map((seg) => ({
        file: seg.name,
        records: seg.skipped.length,
        bytes: seg.skipped.reduce((n, x) => n + x.bytes, 0),
      }));
    return { count: files.reduce((n, f) => n + f.records, 0), files };
  }
}
