// Append-only segment files of the embedded history store, one file per tier and period
// (`t<tier>-<period start, epoch ms>.seg`). A record is a 32-byte header (magic "EBH2", body
// length u32, CRC-32 of the body u32, tier u8, layout u8, the header check u16, t0 and t1 as
// float64 epoch ms, all little-endian) and its body, zero-padded to the next 4 KiB boundary: a
// flush dirties whole file-system pages once (an unaligned append rewrites the partly filled page
// before it) and every record starts on a page of its own. The header check covers the header's
// other fields (the body's CRC does not): a flipped bit in a record's tier, layout or times would
// otherwise file its points elsewhere or make every query over it fail. It is never 0; records
// written before it have 0 there (older releases ignore those bytes, so a rollback reads the
// files as they are), and every record's tier, layout and times must fit its file. Opening scans
// the headers: a bad record (bad magic, bad header, short body, CRC mismatch) between good ones
// is skipped and counted, and the file kept as it is; bad bytes after the last good record are a
// torn write and are cut off, so a crash never leaves a record that reads wrong.
import {
  closeSync,
  existsSync,
  ftruncateSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';

export const PAGE = 4096;
export const HEADER = 32;
const MAGIC = 0x32484245; // "EBH2"

/** How a record's body holds its series: one chunk for all, or a directory of one chunk per series. */
export const enum Layout {
  Whole = 0,
  PerSeries = 1,
}

export interface RecordRef {
  tier: number;
  layout: Layout;
  t0: number;
  t1: number;
  file: string;
  offset: number;
  length: number;
}

export interface SegmentFile {
  name: string;
  tier: number;
  period: number;
  size: number;
  records: RecordRef[];
  /** Bad records between good ones, skipped by the scan (the file keeps them). */
  skipped: BadSpan[];
}

const NAME = /^t(\d)-(\d+)\.seg$/;

/** Period of one file per tier: raw points an hour (so the size cap can drop little at a time), tiers a day and ten days. */
export const PERIOD_MS = [3_600_000, 86_400_000, 864_000_000];

export function segmentName(tier: number, period: number): string {
  return `t${tier}-${period}.seg`;
}

/** The file a record starting at t0 goes to (created in the map, empty, if new). */
export function segmentFor(segs: Map<string, SegmentFile>, tier: number, t0: number): SegmentFile {
  const p = PERIOD_MS[tier]!;
  const period = Math.floor(t0 / p) * p;
  const name = segmentName(tier, period);
  let seg = segs.get(name);
  if (!seg) segs.set(name, (seg = { name, tier, period, size: 0, records: [], skipped: [] }));
  return seg;
}

/** Bytes of a segment file that did not read as records, found by the scan. */
export interface BadSpan {
  offset: number;
  bytes: number;
  why: string;
}

export interface ScanReport {
  /** Bad bytes between good records: skipped, never rewritten. */
  onSkipped: (file: string, span: BadSpan) => void;
  /** Bad bytes after the last good record (a torn write): cut off when repairing. */
  onTorn: (file: string, span: BadSpan, cut: boolean) => void;
}

/**
 * Every segment file of the directory, checked record by record, oldest period first. A bad
 * record (rot in the middle of the card) is skipped: the scan looks for the next record page by
 * page (records start on pages; a rotten length field is never followed) and the file is left as
 * it is. Bad bytes after the last good record are a torn write and are cut off when `repair`.
 */
export function scanSegments(dir: string, report: ScanReport, repair = true): SegmentFile[] {
  const out: SegmentFile[] = [];
  for (const name of readdirSync(dir)) {
    const m = NAME.exec(name);
    if (!m) continue;
    const file = path.join(dir, name);
    const seg: SegmentFile = { name, tier: Number(m[1]), period: Number(m[2]), size: 0, records: [], skipped: [] };
    const fd = openSync(file, repair ? 'r+' : 'r');
    try {
      const size = fstatSync(fd).size;
      const head = Buffer.alloc(HEADER);
      let offset = 0;
      let bad: { offset: number; why: string } | null = null;
      while (offset < size) {
        const why = checkRecord(fd, offset, size, head, seg);
        if (why) {
          bad ??= { offset, why };
          offset += PAGE;
          continue;
        }
        if (bad) {
          const span = { offset: bad.offset, bytes: offset - bad.offset, why: bad.why };
          seg.skipped.push(span);
          report.onSkipped(file, span);
          bad = null;
        }
        offset += align(HEADER + seg.records.at(-1)!.length);
      }
      if (bad) {
        report.onTorn(file, { offset: bad.offset, bytes: size - bad.offset, why: bad.why }, repair);
        if (repair) ftruncateSync(fd, bad.offset);
        offset = bad.offset;
      } else if (offset > size && repair) {
        // A record whose padding was cut short is whole (its CRC passed): restore the padding.
        ftruncateSync(fd, offset);
      }
      seg.size = offset;
    } finally {
      closeSync(fd);
    }
    out.push(seg);
  }
  return out.sort((a, b) => a.period - b.period || a.tier - b.tier);
}

function checkRecord(fd: number, offset: number, size: number, head: Buffer, seg: SegmentFile): string | null {
  if (readSync(fd, head, 0, HEADER, offset) < HEADER) return 'short header';
  if (head.readUInt32LE(0) !== MAGIC) return 'no record header';
  const check = head.readUInt16LE(14);
  if (check !== 0 && check !== headerCheck(head)) return 'header checksum mismatch';
  const length = head.readUInt32LE(4);
  const tier = head[12]!;
  const layout = head[13]!;
  const t0 = head.readDoubleLE(16);
  const t1 = head.readDoubleLE(24);
  const why = headerProblem(seg, tier, layout, t0, t1);
  if (why) return why;
  if (offset + HEADER + length > size) return 'short record';
  const body = Buffer.alloc(length);
  readSync(fd, body, 0, length, offset + HEADER);
  if (crc32(body) !== head.readUInt32LE(8)) return 'checksum mismatch';
  seg.records.push({ tier, layout: layout as Layout, t0, t1, file: seg.name, offset: offset + HEADER, length });
  return null;
}

/**
 * The check of a header's fields but the magic and the check itself (bytes 4-13 and 16-31), in
 * bytes 14-15: never 0, which marks a record written before the check.
 */
function headerCheck(head: Buffer): number {
  return (crc32(head.subarray(16, HEADER), crc32(head.subarray(4, 14))) % 0xffff) + 1;
}

/** Why a header's tier, layout or times cannot be a record of `seg` (every writer files a record by its tier and t0), or null. */
function headerProblem(seg: SegmentFile, tier: number, layout: number, t0: number, t1: number): string | null {
  if (tier !== seg.tier) return `header names tier ${tier} in a file of tier ${seg.tier}`;
  if (layout !== layoutOf(tier)) return `header names layout ${layout} for tier ${tier}`;
  const period = PERIOD_MS[tier];
  if (period !== undefined && !(t0 >= seg.period && t0 < seg.period + period))
    return 'header start time outside the file period';
  if (!(t1 >= t0) || !Number.isFinite(t1)) return 'header end time before its start';
  return null;
}

/** How a tier's records hold their series: raw points one chunk for all, the tiers one chunk per series. */
export const layoutOf = (tier: number): Layout => (tier === 0 ? Layout.Whole : Layout.PerSeries);

const align = (n: number) => Math.ceil(n / PAGE) * PAGE;

/** Append one record (header, body, padding) with a single write; returns its reference. */
export function appendRecord(
  dir: string,
  seg: SegmentFile,
  layout: Layout,
  t0: number,
  t1: number,
  body: Buffer,
): RecordRef {
  const total = align(HEADER + body.length);
  const buf = Buffer.alloc(total);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt32LE(body.length, 4);
  buf.writeUInt32LE(crc32(body), 8);
  buf[12] = seg.tier;
  buf[13] = layout;
  buf.writeDoubleLE(t0, 16);
  // A record ends no earlier than it starts (the scan refuses a header that says otherwise).
  buf.writeDoubleLE(Math.max(t0, t1), 24);
  buf.writeUInt16LE(headerCheck(buf), 14);
  body.copy(buf, HEADER);
  const fd = openSync(path.join(dir, seg.name), 'a');
  try {
    // A failed earlier append may have left a partial record: 'a' writes at the true end, so
    // realign to what the index knows first.
    if (fstatSync(fd).size !== seg.size) ftruncateSync(fd, seg.size);
    let done = 0;
    while (done < total) done += writeSync(fd, buf, done, total - done);
  } catch (e) {
    try {
      ftruncateSync(fd, seg.size);
    } catch {
      // The scan on the next open cuts a partial record off.
    }
    throw e;
  } finally {
    closeSync(fd);
  }
  const ref: RecordRef = {
    tier: seg.tier,
    layout,
    t0,
    t1: Math.max(t0, t1),
    file: seg.name,
    offset: seg.size + HEADER,
    length: body.length,
  };
  seg.size += total;
  seg.records.push(ref);
  return ref;
}

export function readBody(dir: string, ref: RecordRef): Buffer {
  const fd = openSync(path.join(dir, ref.file), 'r');
  try {
    const body = Buffer.allocUnsafe(ref.length);
    if (readSync(fd, body, 0, ref.length, ref.offset) < ref.length)
      throw new Error(`history record in ${ref.file} at ${ref.offset} is short`);
    return body;
  } finally {
    closeSync(fd);
  }
}

export function removeSegment(dir: string, seg: SegmentFile): void {
  const file = path.join(dir, seg.name);
  if (existsSync(file)) unlinkSync(file);
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (!statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
}
