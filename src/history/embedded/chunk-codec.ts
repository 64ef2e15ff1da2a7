// One chunk: the points of many series over one time span, compressed together.
//
// Layout before compression (version 2): version byte; varint count of distinct timestamp
// lists, each as its length and timestamps (first as an offset from the chunk base, then
// delta-of-delta, all zigzag varints), since the fields of one message share their times; varint
// series count, then per series its field id, the index of its timestamp list and its class (0-8:
// the average count of non-zero bytes in its XOR-ed values); then the values as float64 XOR-ed with
// the series' previous value, series ordered by class (then as listed), byte-transposed (all first
// bytes, then all second bytes, ...): slowly changing values become long runs of zero bytes and
// the noisy series sit together instead of breaking those runs. The whole is compressed with
// Brotli (quality 8, 64 KiB window: 15% smaller than deflate level 9 on the benchmark's mix, as fast;
// larger windows made the encoder hold tens of MB).
// Tier records hold one packed block per series instead (series-blocks.ts).
// Version 1 (format 1, read for migration only) was deflated, in series order, with each series'
// count and timestamps in place of the list index and class.
import { brotliCompressSync, brotliDecompressSync, constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { Reader, Writer } from './varint-buffers.js';

export interface Series {
  id: number;
  t: number[];
  v: number[];
}

const VERSION = 2;

/** `brotli` for big chunks (smallest), `deflate` for small ones (quick to decode). */
export type Codec = 'brotli' | 'deflate';

export function encodeChunk(base: number, series: Series[], codec: Codec = 'brotli'): Buffer {
  // Each stage's loops are in a function of their own. The flush runs once a minute: a loop in
  // this function would be compiled on the stack (OSR) and the code after it deoptimised for lack
  // of type feedback, minute after minute; a small function is compiled once, whole.
  const w = new Writer();
  w.byte(VERSION);
  const { listOf, timeLists } = sharedTimeLists(series);
  w.uvarint(timeLists.length);
  for (const t of timeLists) writeTimes(w, base, t);
  w.uvarint(series.length);
  const words = series.map((s) => xorWords(s.v));
  const classes = words.map(classOf);
  const total = writeSeriesHeads(w, series, listOf, classes);
  w.bytes(transposed(inClassOrder(words, byClass(classes), total), total));
  const body = w.done();
  if (codec === 'deflate') return deflateRawSync(body, { level: 9 });
  return brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 8,
      [constants.BROTLI_PARAM_LGWIN]: 16,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

/** The distinct time lists, and for each series the index of its list. */
function sharedTimeLists(series: Series[]): { listOf: number[]; timeLists: number[][] } {
  const lists = new Map<string, number>();
  const listOf: number[] = [];
  const timeLists: number[][] = [];
  for (let i = 0; i < series.length; i++) {
    const t = series[i]!.t;
    // The fields of one message follow each other with the same times: most series match the last list.
    const last = listOf.length ? listOf[listOf.length - 1]! : -1;
    if (last >= 0 && sameTimes(t, timeLists[last]!)) {
      listOf.push(last);
      continue;
    }
    const key = t.join(',');
    let k = lists.get(key);
    if (k === undefined) {
      lists.set(key, (k = timeLists.length));
      timeLists.push(t);
    }
    listOf.push(k);
  }
  return { listOf, timeLists };
}

/** Each series' id, time list and value class; returns the number of values in all. */
function writeSeriesHeads(w: Writer, series: Series[], listOf: number[], classes: number[]): number {
  let total = 0;
  for (let i = 0; i < series.length; i++) {
    w.uvarint(series[i]!.id);
    w.uvarint(listOf[i]!);
    w.byte(classes[i]!);
    total += series[i]!.v.length;
  }
  return total;
}

/** The XOR-ed words of every series, one after the other in `order`, as bytes. */
function inClassOrder(words: Uint32Array[], order: number[], total: number): Uint8Array {
  const bytes = new Uint8Array(total * 8);
  let k = 0;
  for (let j = 0; j < order.length; j++) {
    const v = words[order[j]!]!;
    bytes.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), k);
    k += v.length * 4;
  }
  return bytes;
}

/** The values' bytes transposed: every value's first byte, then every second byte, and so on. */
function transposed(bytes: Uint8Array, total: number): Buffer {
  const raw = Buffer.allocUnsafe(total * 8);
  for (let i = 0; i < total; i++) for (let b = 0; b < 8; b++) raw[b * total + i] = bytes[i * 8 + b]!;
  return raw;
}

function sameTimes(a: number[], b: number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// One float64 and its two 32-bit halves, shared by xorWords (which runs to the end without yielding).
const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);

/** Each value's float64 bits XOR-ed with the previous value's, as little-endian 32-bit halves. */
export function xorWords(v: number[]): Uint32Array {
  const words = new Uint32Array(v.length * 2);
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < v.length; i++) {
    F64[0] = v[i]!;
    words[2 * i] = U32[0]! ^ lo;
    words[2 * i + 1] = U32[1]! ^ hi;
    lo = U32[0]!;
    hi = U32[1]!;
  }
  return words;
}

function classOf(words: Uint32Array): number {
  let nz = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    for (let b = 0; b < 32; b += 8) if ((w >>> b) & 0xff) nz++;
  }
  return Math.min(8, Math.round((nz * 2) / Math.max(1, words.length)));
}

/** Series indexes ordered by class (0-8), in list order within a class. */
function byClass(classes: number[]): number[] {
  const order: number[] = [];
  for (let c = 0; c <= 8; c++) for (let i = 0; i < classes.length; i++) if (classes[i] === c) order.push(i);
  return order;
}

function writeTimes(w: Writer, base: number, t: number[]): void {
  w.uvarint(t.length);
  let prev = base;
  let prevDelta = 0;
  t.forEach((x, i) => {
    const delta = x - prev;
    w.svarint(i === 0 ? delta : delta - prevDelta);
    prevDelta = delta;
    prev = x;
  });
}

function readTimes(r: Reader, base: number, n: number, keep: boolean): number[] | null {
  if (!keep) {
    for (let i = 0; i < n; i++) r.uvarint();
    return null;
  }
  const t = new Array<number>(n);
  let prev = base;
  let delta = 0;
  for (let i = 0; i < n; i++) {
    const d = r.svarint();
    delta = i === 0 ? d : delta + d;
    prev += delta;
    t[i] = prev;
  }
  return t;
}

/** Points of the wanted series of a chunk (format-1 chunks are version 1, deflated). */
export function decodeChunk(
  base: number,
  data: Buffer,
  wanted?: (id: number) => boolean,
  codec: Codec = 'brotli',
): Series[] {
  const buf = codec === 'deflate' ? inflateRawSync(data) : brotliDecompressSync(data);
  const r = new Reader(buf);
  const version = r.byte();
  if (version !== 1 && version !== VERSION) throw new Error(`unknown chunk version ${version}`);
  const heads: Array<{ id: number; t: number[]; offset: number }> = [];
  let total = 0;
  if (version === 1) {
    const count = r.uvarint();
    for (let s = 0; s < count; s++) {
      const id = r.uvarint();
      const n = r.uvarint();
      const t = readTimes(r, base, n, !wanted || wanted(id));
      if (t) heads.push({ id, t, offset: total });
      total += n;
    }
  } else {
    // Every list is read (they are short and shared); only wanted series are kept.
    const lists: number[][] = [];
    for (let k = r.uvarint(); k > 0; k--) lists.push(readTimes(r, base, r.uvarint(), true)!);
    const count = r.uvarint();
    const all: Array<{ id: number; t: number[]; offset: number; keep: boolean }> = [];
    const classes: number[] = [];
    for (let s = 0; s < count; s++) {
      const id = r.uvarint();
      const t = lists[r.uvarint()];
      if (!t) throw new Error('chunk series names a missing timestamp list');
      classes.push(r.byte());
      all.push({ id, t, offset: 0, keep: !wanted || wanted(id) });
    }
    for (const i of byClass(classes)) {
      all[i]!.offset = total;
      total += all[i]!.t.length;
    }
    for (const h of all) if (h.keep) heads.push(h);
  }
  const planes = r.pos;
  if (buf.length - planes !== total * 8) throw new Error('chunk values truncated');
  // XOR in two 32-bit halves (little-endian words), cheaper than BigInt.
  const word = new Uint8Array(8);
  const halves = new Uint32Array(word.buffer);
  const f = new Float64Array(word.buffer);
  const out: Series[] = [];
  for (const h of heads) {
    const v = new Array<number>(h.t.length);
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < h.t.length; i++) {
      for (let b = 0; b < 8; b++) word[b] = buf[planes + b * total + h.offset + i]!;
      lo = (halves[0]! ^ lo) >>> 0;
      hi = (halves[1]! ^ hi) >>> 0;
      halves[0] = lo;
      halves[1] = hi;
      v[i] = f[0]!;
    }
    out.push({ id: h.id, t: h.t, v });
  }
  return out;
}
