// One chunk: the points of many series over one time span, compressed together.
//
// Layout before compression (version 2): version byte; varint count of distinct timestamp
// lists, each as its length and timestamps (first as an offset from the chunk base, then
// delta-of-delta, all zigzag varints), since the fields of one message share their times; varint
// series count, then per series its field id and the index of its timestamp list; then the
// values of all series as float64 XOR-ed with the series' previous value and byte-transposed (all
// first bytes, then all second bytes, ...), so slowly changing values become long runs of zero
// bytes. The whole is deflated (raw deflate, level 9). Version 1 (read for migration only) stored
// each series' count and timestamps in place of the timestamp list index.
import { deflateRawSync, inflateRawSync } from 'node:zlib';

export interface Series {
  id: number;
  t: number[];
  v: number[];
}

const VERSION = 2;

class Writer {
  private buf = Buffer.allocUnsafe(1024);
  len = 0;
  private room(n: number) {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  byte(b: number) {
    this.room(1);
    this.buf[this.len++] = b;
  }
  uvarint(n: number) {
    this.room(10);
    while (n >= 0x80) {
      this.buf[this.len++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.len++] = n;
  }
  svarint(n: number) {
    this.uvarint(n >= 0 ? n * 2 : -n * 2 - 1);
  }
  bytes(b: Buffer) {
    this.room(b.length);
    b.copy(this.buf, this.len);
    this.len += b.length;
  }
  done(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}
  byte(): number {
    if (this.pos >= this.buf.length) throw new Error('chunk truncated');
    return this.buf[this.pos++]!;
  }
  uvarint(): number {
    let n = 0;
    let mul = 1;
    for (;;) {
      const b = this.byte();
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 0x80;
    }
  }
  svarint(): number {
    const u = this.uvarint();
    return u % 2 ? -(u + 1) / 2 : u / 2;
  }
}

export function encodeChunk(base: number, series: Series[]): Buffer {
  const w = new Writer();
  w.byte(VERSION);
  const lists = new Map<string, number>();
  const listOf: number[] = [];
  const timeLists: number[][] = [];
  for (const s of series) {
    const key = s.t.join(',');
    let k = lists.get(key);
    if (k === undefined) {
      lists.set(key, (k = timeLists.length));
      timeLists.push(s.t);
    }
    listOf.push(k);
  }
  w.uvarint(timeLists.length);
  for (const t of timeLists) writeTimes(w, base, t);
  w.uvarint(series.length);
  let total = 0;
  series.forEach((s, i) => {
    w.uvarint(s.id);
    w.uvarint(listOf[i]!);
    total += s.v.length;
  });
  const words = new Uint32Array(total * 2);
  const f = new Float64Array(1);
  const u = new Uint32Array(f.buffer);
  let k = 0;
  for (const s of series) {
    let lo = 0;
    let hi = 0;
    for (const v of s.v) {
      f[0] = v;
      words[k++] = u[0]! ^ lo;
      words[k++] = u[1]! ^ hi;
      lo = u[0]!;
      hi = u[1]!;
    }
  }
  const bytes = new Uint8Array(words.buffer);
  const raw = Buffer.allocUnsafe(total * 8);
  for (let i = 0; i < total; i++) for (let b = 0; b < 8; b++) raw[b * total + i] = bytes[i * 8 + b]!;
  w.bytes(raw);
  return deflateRawSync(w.done(), { level: 9 });
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

export function decodeChunk(base: number, data: Buffer, wanted?: (id: number) => boolean): Series[] {
  const buf = inflateRawSync(data);
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
    for (let s = 0; s < count; s++) {
      const id = r.uvarint();
      const t = lists[r.uvarint()];
      if (!t) throw new Error('chunk series names a missing timestamp list');
      if (!wanted || wanted(id)) heads.push({ id, t, offset: total });
      total += t.length;
    }
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

/** One chunk per series after a directory (count, then id and byte length of each), so a query decodes only the series it asks for. */
export function encodeSeriesBlocks(base: number, series: Series[]): Buffer {
  const blocks = series.map((s) => encodeChunk(base, [s]));
  const w = new Writer();
  w.uvarint(series.length);
  series.forEach((s, i) => {
    w.uvarint(s.id);
    w.uvarint(blocks[i]!.length);
  });
  return Buffer.concat([w.done(), ...blocks]);
}

export function decodeSeriesBlocks(base: number, body: Buffer, wanted?: (id: number) => boolean): Series[] {
  const r = new Reader(body);
  const dir: Array<{ id: number; len: number }> = [];
  for (let n = r.uvarint(); n > 0; n--) dir.push({ id: r.uvarint(), len: r.uvarint() });
  let pos = r.pos;
  const out: Series[] = [];
  for (const { id, len } of dir) {
    if (pos + len > body.length) throw new Error('series block truncated');
    if (!wanted || wanted(id)) out.push(...decodeChunk(base, body.subarray(pos, pos + len)));
    pos += len;
  }
  return out;
}
