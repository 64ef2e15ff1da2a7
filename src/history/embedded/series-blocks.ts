// Tier records' bodies (a raw record is one chunk, chunk-codec.ts). Tier records hold one packed
// block per series instead (encodeSeriesBlocks): no compressor, since setting up an inflate or
// Brotli decoder costs ~0.1-0.5 ms and a 30-day graph decodes thousands of blocks.
import { xorWords, type Series } from './chunk-codec.js';
import { Reader, Writer } from './varint-buffers.js';

/**
 * One packed block per series after a directory (count, then id and byte length of each), so a
 * query decodes only the series it asks for. A block: varint point count, the first timestamp
 * as a zigzag offset from the base, then runs of equal steps (zigzag step, varint run length);
 * then each value's float64 XOR-ed with the previous one, as a control byte and the bytes that
 * are not zero at either end: control `L * 9 + T` (L leading and T trailing zero bytes of the
 * little-endian word) followed by its 8 - L - T middle bytes, or control 0x80 + n for n + 1 zero
 * words (a value repeated).
 */
export function encodeSeriesBlocks(base: number, series: Series[]): Buffer {
  const blocks = new Writer();
  const lengths: number[] = [];
  for (const s of series) {
    const at = blocks.len;
    packSeries(base, s, blocks);
    lengths.push(blocks.len - at);
  }
  const w = new Writer();
  w.uvarint(series.length);
  series.forEach((s, i) => {
    w.uvarint(s.id);
    w.uvarint(lengths[i]!);
  });
  return Buffer.concat([w.done(), blocks.done()]);
}

/** One series' block, appended to `w`. */
function packSeries(base: number, s: Series, w: Writer): void {
  const n = s.t.length;
  w.uvarint(n);
  if (n) w.svarint(s.t[0]! - base);
  for (let i = 1; i < n; ) {
    const step = s.t[i]! - s.t[i - 1]!;
    let run = 1;
    while (i + run < n && s.t[i + run]! - s.t[i + run - 1]! === step) run++;
    w.svarint(step);
    w.uvarint(run);
    i += run;
  }
  const words = new Uint8Array(xorWords(s.v).buffer);
  for (let i = 0; i < n; ) {
    let zeros = 0;
    while (i + zeros < n && zeros < 128 && isZero(words, i + zeros)) zeros++;
    if (zeros) {
      w.byte(0x80 + zeros - 1);
      i += zeros;
      continue;
    }
    const o = i * 8;
    let lead = 0;
    while (words[o + 7 - lead] === 0) lead++;
    let trail = 0;
    while (words[o + trail] === 0) trail++;
    w.byte(lead * 9 + trail);
    for (let b = trail; b < 8 - lead; b++) w.byte(words[o + b]!);
    i++;
  }
}

function isZero(words: Uint8Array, i: number): boolean {
  for (let b = 0; b < 8; b++) if (words[i * 8 + b]) return false;
  return true;
}

function unpackSeries(base: number, id: number, body: Buffer): Series {
  const r = new Reader(body);
  const n = r.uvarint();
  const t = new Array<number>(n);
  if (n) t[0] = base + r.svarint();
  for (let i = 1; i < n; ) {
    const step = r.svarint();
    const run = r.uvarint();
    if (!run || i + run > n) throw new Error('series block timestamps corrupt');
    for (let k = 0; k < run; k++, i++) t[i] = t[i - 1]! + step;
  }
  const word = new Uint8Array(8);
  const f = new Float64Array(word.buffer);
  const v = new Array<number>(n);
  for (let i = 0; i < n; ) {
    const c = r.byte();
    if (c >= 0x80) {
      const run = c - 0x7f;
      if (i + run > n) throw new Error('series block values corrupt');
      for (let k = 0; k < run; k++) v[i++] = f[0]!;
      continue;
    }
    const lead = Math.floor(c / 9);
    const trail = c % 9;
    for (let b = 0; b < 8; b++) word[b]! ^= b >= trail && b < 8 - lead ? r.byte() : 0;
    v[i++] = f[0]!;
  }
  return { id, t, v };
}

export function decodeSeriesBlocks(base: number, body: Buffer, wanted?: (id: number) => boolean): Series[] {
  const r = new Reader(body);
  const count = r.uvarint();
  const picked: Array<[number, number, number]> = [];
  let pos = 0;
  for (let k = 0; k < count; k++) {
    const id = r.uvarint();
    const len = r.uvarint();
    if (!wanted || wanted(id)) picked.push([id, pos, len]);
    pos += len;
  }
  if (r.pos + pos > body.length) throw new Error('series block truncated');
  return picked.map(([id, at, len]) => unpackSeries(base, id, body.subarray(r.pos + at, r.pos + at + len)));
}
