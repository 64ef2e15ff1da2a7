// One chunk: the points of many series over one time span, compressed together.
//
// Layout before compression: version byte, varint series count, then per series its field id,
// point count and timestamps (first as an offset from the chunk base, then delta-of-delta, all
// zigzag varints); then the values of all series as float64 XOR-ed with the series' previous
// value and byte-transposed (all first bytes, then all second bytes, ...), so slowly changing
// values become long runs of zero bytes. The whole is deflated (raw deflate, level 9).
import { deflateRawSync, inflateRawSync } from 'node:zlib';

export interface Series {
  id: number;
  t: number[];
  v: number[];
}

const VERSION = 1;

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
  w.uvarint(series.length);
  let total = 0;
  for (const s of series) {
    w.uvarint(s.id);
    w.uvarint(s.t.length);
    let prev = base;
    let prevDelta = 0;
    s.t.forEach((t, i) => {
      const delta = t - prev;
      w.svarint(i === 0 ? delta : delta - prevDelta);
      prevDelta = delta;
      prev = t;
    });
    total += s.v.length;
  }
  const raw = Buffer.alloc(total * 8);
  const words = new BigUint64Array(total);
  const f = new Float64Array(1);
  const u = new BigUint64Array(f.buffer);
  let k = 0;
  for (const s of series) {
    let prev = 0n;
    for (const v of s.v) {
      f[0] = v;
      words[k++] = u[0]! ^ prev;
      prev = u[0]!;
    }
  }
  const bytes = Buffer.from(words.buffer);
  for (let i = 0; i < total; i++) for (let b = 0; b < 8; b++) raw[b * total + i] = bytes[i * 8 + b]!;
  w.bytes(raw);
  return deflateRawSync(w.done(), { level: 9 });
}

export function decodeChunk(base: number, data: Buffer, wanted?: (id: number) => boolean): Series[] {
  const buf = inflateRawSync(data);
  const r = new Reader(buf);
  if (r.byte() !== VERSION) throw new Error('unknown chunk version');
  const count = r.uvarint();
  const heads: Array<{ id: number; t: number[]; offset: number }> = [];
  let total = 0;
  for (let s = 0; s < count; s++) {
    const id = r.uvarint();
    const n = r.uvarint();
    const t = new Array<number>(n);
    let prev = base;
    let delta = 0;
    for (let i = 0; i < n; i++) {
      const d = r.svarint();
      delta = i === 0 ? d : delta + d;
      prev += delta;
      t[i] = prev;
    }
    heads.push({ id, t, offset: total });
    total += n;
  }
  const planes = r.pos;
  if (buf.length - planes !== total * 8) throw new Error('chunk values truncated');
  const word = Buffer.alloc(8);
  const f = new Float64Array(word.buffer, word.byteOffset, 1);
  const out: Series[] = [];
  for (const h of heads) {
    if (wanted && !wanted(h.id)) continue;
    const v = new Array<number>(h.t.length);
    let prev = 0n;
    for (let i = 0; i < h.t.length; i++) {
      for (let b = 0; b < 8; b++) word[b] = buf[planes + b * total + h.offset + i]!;
      const x = word.readBigUInt64LE(0) ^ prev;
      word.writeBigUInt64LE(x);
      v[i] = f[0]!;
      prev = x;
    }
    out.push({ id: h.id, t: h.t, v });
  }
  return out;
}
