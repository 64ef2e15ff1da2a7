// The pieces of the embedded store's chunk layouts (src/history/embedded/chunk-codec.ts and
// series-blocks.ts), written here from their description so the format tests do not use the code
// they check.

/** Varint bytes: 7 bits a byte, low bits first, the high bit set on all but the last. */
export function uvarint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

/** Zigzag then varint: 0, -1, 1, -2 ... as 0, 1, 2, 3 ... */
export function svarint(n: number): number[] {
  return uvarint(n >= 0 ? n * 2 : -n * 2 - 1);
}

/** A timestamp list: the first as an offset from `base`, then delta-of-delta, all zigzag varints. */
export function timeBytes(base: number, times: number[]): number[] {
  const out: number[] = [];
  let prev = base;
  let prevDelta = 0;
  times.forEach((x, i) => {
    out.push(...svarint(i === 0 ? x - prev : x - prev - prevDelta));
    prevDelta = x - prev;
    prev = x;
  });
  return out;
}

/** Each value's float64 bits XOR-ed with the previous value's. */
export function xorWords(values: number[]): bigint[] {
  let p = 0n;
  return values.map((v) => {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v);
    const w = b.readBigUInt64LE();
    const x = w ^ p;
    p = w;
    return x;
  });
}

/** The words' little-endian bytes transposed: every word's first byte, then every second byte, ... */
export function transposed(words: bigint[]): number[] {
  const bytes = Buffer.alloc(words.length * 8);
  words.forEach((w, i) => bytes.writeBigUInt64LE(w, i * 8));
  const out: number[] = [];
  for (let b = 0; b < 8; b++) for (let i = 0; i < words.length; i++) out.push(bytes[i * 8 + b]!);
  return out;
}
