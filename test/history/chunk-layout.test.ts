// The embedded store's record bodies keep their documented layout (chunk-codec.ts's header), so
// a store written by an earlier version reads back after an upgrade: a raw chunk is compared byte
// for byte with one written here from the description, for series of every class, with shared
// and distinct time lists; a tier record's series blocks are the blocks each series alone gets.
import t from 'tap';
import { brotliDecompressSync, inflateRawSync } from 'node:zlib';
import { uvarint, timeBytes, transposed, xorWords } from '../helpers/chunk-bytes.js';
import { decodeChunk, encodeChunk, type Series } from '../../src/history/embedded/chunk-codec.js';
import { decodeSeriesBlocks, encodeSeriesBlocks } from '../../src/history/embedded/series-blocks.js';

const BASE = Date.UTC(2026, 10, 1);

/** A version-2 chunk before compression, from the layout described in chunk-codec.ts. */
function v2Layout(base: number, series: Series[]): Buffer {
  const lists: string[] = [];
  const listOf = series.map((s) => {
    const key = JSON.stringify(s.t);
    if (!lists.includes(key)) lists.push(key);
    return lists.indexOf(key);
  });
  const out: number[] = [2, ...uvarint(lists.length)];
  for (const key of lists) {
    const times = JSON.parse(key) as number[];
    out.push(...uvarint(times.length), ...timeBytes(base, times));
  }
  const xored = series.map((s) => xorWords(s.v));
  // Class: the average count of non-zero bytes per value, rounded, at most 8.
  const classes = xored.map((words) => {
    let nz = 0;
    for (const w of words) for (let b = 0n; b < 64n; b += 8n) if ((w >> b) & 0xffn) nz++;
    return Math.min(8, Math.round(nz / Math.max(1, words.length)));
  });
  out.push(...uvarint(series.length));
  series.forEach((s, i) => out.push(...uvarint(s.id), ...uvarint(listOf[i]!), classes[i]!));
  const order = series.map((_, i) => i).sort((a, b) => classes[a]! - classes[b]! || a - b);
  out.push(...transposed(order.flatMap((i) => xored[i]!)));
  const layout = Buffer.from(out);
  classesOf.set(layout, classes);
  return layout;
}

/** The classes v2Layout gave the series of a layout it made. */
const classesOf = new WeakMap<Buffer, number[]>();

/** Series of every class: constant, slowly moving, noisy, integer steps, odd values; three time lists, interleaved. */
function mix(): Series[] {
  const times = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((i) => BASE + 5000 * i);
  const late = times.map((x) => x + 1234);
  const short = times.slice(0, 5);
  const out: Series[] = [];
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let id = 1; id <= 60; id++) {
    const t = id % 7 === 0 ? late : id % 5 === 0 ? short : times;
    const kind = id % 6;
    const v = t.map((_, i) =>
      kind === 0
        ? 20
        : kind === 1
          ? 20 + i / 64
          : kind === 2
            ? rnd() * 100
            : kind === 3
              ? i % 3
              : kind === 4
                ? [Number.NaN, -0, 1e300, -1e-300, 0][i % 5]!
                : 18.5 + Math.sin(i),
    );
    out.push({ id: id * 37, t, v });
  }
  return out;
}

t.test('a raw chunk holds the documented layout, byte for byte, in both codecs', async (t) => {
  const series = mix();
  const expected = v2Layout(BASE, series);
  t.ok(
    brotliDecompressSync(encodeChunk(BASE, series)).equals(expected),
    'brotli: the layout written from the description',
  );
  t.ok(inflateRawSync(encodeChunk(BASE, series, 'deflate')).equals(expected), 'deflate: the same');
  t.ok(
    new Set(classesOf.get(expected)).size >= 4,
    `series of several classes (${[...new Set(classesOf.get(expected))].join(', ')})`,
  );
  const back = decodeChunk(BASE, encodeChunk(BASE, series));
  t.same(
    back.map((s) => s.id),
    series.map((s) => s.id),
    'read back in list order',
  );
  t.same(back, series, 'with every time and value (NaN, -0 and the extremes included)');
});

t.test('a chunk of one series and of none keep the layout too', async (t) => {
  const one = [{ id: 5, t: [BASE + 10], v: [21.5] }];
  t.ok(brotliDecompressSync(encodeChunk(BASE, one)).equals(v2Layout(BASE, one)), 'one series, one point');
  t.ok(brotliDecompressSync(encodeChunk(BASE, [])).equals(v2Layout(BASE, [])), 'no series');
});

t.test("a tier record's series blocks are the blocks each series gets alone, after one header", async (t) => {
  const series = mix();
  const alone = series.map((s) => {
    const single = encodeSeriesBlocks(BASE, [s]);
    // One series: its count (1), id and block length as varints, then the block.
    const header = Buffer.from([1, ...uvarint(s.id)]);
    const rest = single.subarray(header.length);
    const len = readVarint(rest);
    return rest.subarray(len.bytes);
  });
  const all = encodeSeriesBlocks(BASE, series);
  const header = Buffer.from([
    ...uvarint(series.length),
    ...series.flatMap((s, i) => [...uvarint(s.id), ...uvarint(alone[i]!.length)]),
  ]);
  t.ok(all.equals(Buffer.concat([header, ...alone])), 'header, then each block as it is alone');
  t.same(decodeSeriesBlocks(BASE, all), series, 'read back whole');
  t.same(
    decodeSeriesBlocks(BASE, all, (id) => id === series[7]!.id),
    [series[7]],
    'one series picked',
  );
});

function readVarint(b: Buffer): { value: number; bytes: number } {
  let value = 0;
  let mul = 1;
  for (let i = 0; ; i++) {
    value += (b[i]! & 0x7f) * mul;
    if (b[i]! < 0x80) return { value, bytes: i + 1 };
    mul *= 0x80;
  }
}
