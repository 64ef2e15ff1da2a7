// One contract for every history store: the embedded SQLite store and a real VictoriaMetrics.
// Points are written through the store interface at known times, flushed, and read back
// through fields, ranges (step averages with Prometheus' (g - step, g] windows) and raw.
import t from 'tap';
import { joinSlices } from '../helpers/slices.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/log.js';
import { EmbeddedStore } from '../../src/history/embedded/embedded-store.js';
import type { HistoryStore } from '../../src/history/store.js';
import { VictoriaStore } from '../../src/history/victoria-store.js';
import { startVictoria } from '../helpers/victoria.js';

const MIN = 60_000;
const DAY = 86_400_000;

interface Subject {
  name: string;
  open(): Promise<{ store: HistoryStore; close(): Promise<void> }>;
}

const subjects: Subject[] = [
  {
    name: 'embedded',
    open: async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-history-'));
      const store = new EmbeddedStore({
        dataDir: dir,
        now: Date.now,
        flushIntervalMs: 60_000,
        retentionMs: 365 * DAY,
        maxBytes: 1e9,
        log: silentLogger,
      });
      return { store, close: async () => (await store.close(), rmSync(dir, { recursive: true, force: true })) };
    },
  },
  {
    name: 'victoria',
    open: async () => {
      const vm = await startVictoria();
      const store = new VictoriaStore({ url: vm.url, log: silentLogger });
      return { store, close: async () => (await store.close(), await vm.stop()) };
    },
  },
];

/** Expected step averages, computed independently of the stores. */
function expectedSteps(
  points: Array<[number, number]>,
  start: number,
  end: number,
  stepMs: number,
): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let g = Math.floor(start / stepMs) * stepMs; g <= end; g += stepMs) {
    const inside = points.filter(([t]) => t > g - stepMs && t <= g).map(([, v]) => v);
    if (inside.length) out.push([g / 1000, inside.reduce((a, b) => a + b, 0) / inside.length]);
  }
  return out;
}

for (const subject of subjects) {
  t.test(subject.name, async (t) => {
    const { store, close } = await subject.open();
    t.teardown(close);
    const now = Date.now();
    const base = Math.floor((now - 3 * 3_600_000) / (10 * MIN)) * 10 * MIN;
    const a: Array<[number, number]> = [];
    const b: Array<[number, number]> = [];
    for (let i = 0; i < 720; i++) {
      const ts = base + i * 5000;
      a.push([ts, i * 0.25]);
      b.push([ts, 20 + Math.sin(i / 30)]);
      store.write(
        'c1',
        [
          ['a', i * 0.25],
          ['b/value[degC]', 20 + Math.sin(i / 30)],
          ['my field', -1.5],
        ],
        ts,
      );
    }
    store.write('old', [['x', 1]], now - 10 * DAY);
    store.write(
      'vals',
      [
        ['neg', -273.15],
        ['zero', 0],
        ['big', 1e20],
        ['tiny', 1.25e-7],
      ],
      base + 30 * MIN,
    );
    await store.flush();

    await t.test('ping', async () => store.ping());

    await t.test('health: the ok and error of the status, on its own', async (t) => {
      const status = store.status() as { ok: boolean; error: string | null };
      t.same({ ok: store.health().ok, error: store.health().error }, { ok: status.ok, error: status.error });
      t.equal(store.health().diskFull ?? false, false, 'not a full disk');
      t.equal(store.health().ok, true);
    });

    await t.test('fields: sorted, within the duration', async (t) => {
      const day = await store.fields(now - DAY);
      t.same(day, [...day].sort());
      for (const f of ['c1/a', 'c1/b/value[degC]', 'c1/my field', 'vals/neg']) t.ok(day.includes(f), f);
      t.notOk(day.includes('old/x'), 'a field last written 10 days ago is not in the last day');
      t.ok((await store.fields(now - 30 * DAY)).includes('old/x'), 'but is in the last 30 days');
    });

    await t.test('ranges: step averages in request order; fields without data left out', async (t) => {
      const start = base;
      const end = base + 3_600_000;
      const ranges = await store.ranges(['c1/b/value[degC]', 'nothing/here', 'c1/a'], start, end, 60);
      t.same(
        ranges.map((r) => r.metric.__name__),
        ['c1/b/value[degC]', 'c1/a'],
      );
      for (const [r, pts] of [
        [ranges[1]!, a],
        [ranges[0]!, b],
      ] as const) {
        const want = expectedSteps(pts, start, end, MIN);
        t.same(
          r.values.map(([ts]) => ts),
          want.map(([ts]) => ts),
          `${r.metric.__name__}: step times`,
        );
        const worst = Math.max(...r.values.map(([, v], i) => Math.abs(Number(v) - want[i]![1])));
        t.ok(worst < 1e-9, `${r.metric.__name__}: averages agree (worst difference ${worst})`);
        t.ok(r.values.every(([ts, v]) => typeof ts === 'number' && typeof v === 'string'));
      }
      const wide = await store.ranges(
        ['c1/a'],
        base - 20 * DAY,
        now,
        Math.floor((now - base + 20 * DAY) / 1000 / 1000),
      );
      t.ok(wide[0]!.values.length <= 1001, `a 20-day range has ${wide[0]!.values.length} points`);
    });

    await t.test('raw: every point as written', async (t) => {
      const raw = await store.raw(
        ['c1/a', 'vals/neg', 'vals/zero', 'vals/big', 'vals/tiny', 'c1/my field'],
        base - 2500,
        base + 10 * MIN + 2500,
      );
      const byName = Object.fromEntries(raw.map((r) => [r.field, r]));
      t.same(
        byName['c1/a']!.t,
        a.slice(0, 121).map(([ts]) => ts),
      );
      t.same(
        byName['c1/a']!.v,
        a.slice(0, 121).map(([, v]) => v),
      );
      t.same(byName['c1/my field']!.v[0], -1.5, 'a field name with a space');
      t.notOk(byName['vals/neg'], 'outside the window');
      const vals = await store.raw(
        ['vals/neg', 'vals/zero', 'vals/big', 'vals/tiny'],
        base + 29 * MIN,
        base + 31 * MIN,
      );
      t.same(
        vals.map((r) => [r.field, r.v]),
        [
          ['vals/neg', [-273.15]],
          ['vals/zero', [0]],
          ['vals/big', [1e20]],
          ['vals/tiny', [1.25e-7]],
        ],
      );
    });

    await t.test('rawSlices: the points of raw, in slices in time order', async (t) => {
      const fields = ['c1/a', 'c1/b/value[degC]', 'vals/big'];
      const [start, end] = [base - 2500, base + 3 * 3_600_000];
      const slices: Array<Array<{ field: string; t: number[]; v: number[] }>> = [];
      for await (const slice of store.rawSlices(fields, start, end)) slices.push(slice);
      for (let i = 1; i < slices.length; i++) {
        const before = Math.max(...slices[i - 1]!.map((s) => s.t[s.t.length - 1]!));
        t.ok(
          slices[i]!.every((s) => s.t[0]! > before),
          `slice ${i} begins after the one before`,
        );
      }
      const joined = joinSlices(slices);
      const raw = await store.raw(fields, start, end);
      t.same(
        [...joined].map(([field, s]) => ({ field, ...s })),
        raw.map((r) => ({ field: r.field, t: r.t, v: r.v })),
      );
    });
  });
}
