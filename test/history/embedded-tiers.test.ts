// The embedded store on a manual clock: downsampled tiers agree with raw averages, per-tier
// retention and historyRetention drop old data, the size cap evicts oldest first, and a data
// dir that cannot be written degrades history without throwing.
import t, { type Test } from 'tap';
import { mock } from 'node:test';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger, type Logger } from '../../src/log.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { EmbeddedStore, type EmbeddedOptions } from '../../src/history/embedded/embedded-store.js';

const MIN = 60_000;
const DAY = 86_400_000;

function setup(t: Test, opts: Partial<EmbeddedOptions> = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-tiers-'));
  const clock = new ManualClock(0, Date.UTC(2026, 0, 1));
  const store = new EmbeddedStore({
    dataDir: dir,
    now: () => clock.wall()!,
    monotonic: () => clock.now(),
    flushIntervalMs: 600_000,
    retentionMs: 365 * DAY,
    maxBytes: 1e9,
    log: silentLogger,
    ...opts,
  });
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, clock, store };
}

/** Feed `days` of 5-second points of two fields, flushing every 10 minutes. */
function feed(store: EmbeddedStore, clock: ManualClock, days: number, value: (t: number) => number) {
  const steps = (days * DAY) / 5000;
  for (let i = 0; i < steps; i++) {
    clock.advance(5000);
    const ts = clock.wall()!;
    store.write(
      'k',
      [
        ['wave', value(ts)],
        ['flat', 7],
      ],
      ts,
    );
    if (i % 120 === 119) store.flushSync();
  }
}

const wave = (ts: number) => 20 + 5 * Math.sin(ts / 3_600_000) + ((ts / 5000) % 7) / 10;

function mean(ts0: number, ts1: number): number {
  let s = 0;
  let n = 0;
  for (let ts = Math.ceil((ts0 + 1) / 5000) * 5000; ts <= ts1; ts += 5000) {
    s += wave(ts);
    n++;
  }
  return s / n;
}

t.test('tiers agree with raw averages', async (t) => {
  const { clock, store } = setup(t);
  const origin = clock.wall()!;
  feed(store, clock, 1, wave);
  const from = origin + 2 * 3_600_000;
  for (const [tier, bucket] of [
    [1, MIN],
    [2, 10 * MIN],
  ] as const) {
    const pts = store.tierPoints(tier, 'k/wave', from, from + 3_600_000);
    t.equal(pts.t.length, 3_600_000 / bucket + 1, `tier ${tier}: one point per bucket`);
    const worst = Math.max(...pts.t.map((end, i) => Math.abs(pts.v[i]! - mean(end - bucket, end))));
    t.ok(worst < 1e-9, `tier ${tier}: each bucket is the mean of its raw points (worst difference ${worst})`);
  }
  // A range whose step is whole 10-minute buckets reads tier 2 and equals the raw step means.
  const ranges = await store.ranges(['k/wave', 'k/flat'], from, from + 6 * 3_600_000, 1200);
  t.equal(ranges.length, 2);
  const worst = Math.max(
    ...ranges[0]!.values.map(([s, v]) => Math.abs(Number(v) - mean(s * 1000 - 1_200_000, s * 1000))),
  );
  t.ok(worst < 1e-9, `ranges from tier 2 equal raw averages (worst ${worst})`);
  t.ok(ranges[1]!.values.every(([, v]) => v === '7'));
  // The newest part, after the last completed bucket, comes from raw points (unflushed ones too).
  clock.advance(5000);
  store.write(
    'k',
    [
      ['wave', 99],
      ['flat', 7],
    ],
    clock.wall()!,
  );
  const tail = await store.ranges(['k/wave'], clock.wall()! - DAY, clock.wall()!, 86);
  t.equal(tail[0]!.values.at(-1)![0], clock.wall()! / 1000, 'the last step ends now');
  t.ok(Number(tail[0]!.values.at(-1)![1]) > 25, 'and includes the unflushed point');
});

t.test('retention per tier and historyRetention', async (t) => {
  const { clock, store } = setup(t, { retentionMs: 2.5 * DAY });
  const origin = clock.wall()!;
  feed(store, clock, 3, wave);
  const firstHour = [origin, origin + 3_600_000] as const;
  t.equal(store.tierPoints(0, 'k/wave', ...firstHour).t.length, 0, 'raw points older than 2 days are gone');
  t.equal(store.tierPoints(1, 'k/wave', ...firstHour).t.length, 0, 'tier 1 capped by historyRetention 2.5 d');
  const dayTwo = [origin + 0.75 * DAY, origin + 0.75 * DAY + 3_600_000] as const;
  t.equal(store.tierPoints(0, 'k/wave', ...dayTwo).t.length, 0, 'raw older than 2 days gone');
  t.equal(store.tierPoints(1, 'k/wave', ...dayTwo).t.length, 61, '1-minute averages within 2.5 days kept');
  const ranges = await store.ranges(['k/wave'], dayTwo[0], dayTwo[1], 10);
  t.equal(ranges[0]!.values.length, 61, 'a short query there falls back to 1-minute averages');
  t.equal(
    store.tierPoints(0, 'k/wave', clock.wall()! - 3_600_000, clock.wall()!).t.length,
    721,
    'the last hour is raw (both ends included)',
  );
});

t.test('size cap: oldest first, never above the cap after a flush', async (t) => {
  const cap = 256 * 1024;
  const { clock, store } = setup(t, { maxBytes: cap });
  const origin = clock.wall()!;
  const used: number[] = [];
  for (let d = 0; d < 4; d++) {
    feed(store, clock, 1, wave);
    used.push(store.usedBytes());
  }
  t.ok(
    used.every((u) => u <= cap),
    `used bytes stay under the cap: ${used.join(', ')}`,
  );
  t.ok((store.status().evictedChunks as number) > 0, 'chunks were evicted');
  const now = clock.wall()!;
  t.equal(store.tierPoints(0, 'k/wave', now - 3_600_000, now).t.length, 721, 'the newest raw hour is kept');
  t.equal(store.tierPoints(2, 'k/wave', origin, origin + 3_600_000).t.length, 0, 'the oldest data went first');
});

t.test('an unwritable data dir degrades history: logged, in status, points kept in bounded memory', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ro-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const blocker = path.join(dir, 'not-a-dir');
  writeFileSync(blocker, 'x');
  chmodSync(blocker, 0o444);
  const errors: string[] = [];
  const log = {
    ...silentLogger,
    error: (_o: unknown, msg: string) => errors.push(msg),
    child: () => log,
  } as unknown as Logger;
  const clock = new ManualClock(0, Date.UTC(2026, 0, 1));
  const store = new EmbeddedStore({
    dataDir: blocker,
    now: () => clock.wall()!,
    flushIntervalMs: 60_000,
    retentionMs: DAY,
    maxBytes: 1e9,
    log,
    maxPendingPoints: 1000,
  });
  t.teardown(() => store.close());
  t.match(errors[0], /history degraded: cannot open the history database/);
  t.equal(store.status().ok, false);
  await t.rejects(store.ping());
  for (let i = 0; i < 5000; i++) {
    clock.advance(5000);
    store.write('k', [['v', i]], clock.wall()!);
  }
  store.flushSync();
  t.ok(
    (store.status().pendingPoints as number) <= 1000,
    `memory stays bounded (${store.status().pendingPoints} points)`,
  );
  const ranges = await store.ranges(['k/v'], clock.wall()! - 3_600_000, clock.wall()!, 10);
  t.ok(ranges[0]!.values.length > 0, 'recent points still answer queries');
});

t.test('a failing data dir is logged again after a minute, even when the wall clock was set back', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ro-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const blocker = path.join(dir, 'not-a-dir');
  writeFileSync(blocker, 'x');
  const errors: string[] = [];
  const log = { ...silentLogger, error: (_o: unknown, msg: string) => errors.push(msg), child: () => log };
  const clock = new ManualClock(0, Date.UTC(2026, 0, 1));
  mock.timers.enable({ apis: ['Date'], now: clock.wall()! });
  t.teardown(() => mock.timers.reset());
  const store = new EmbeddedStore({
    dataDir: blocker,
    now: () => clock.wall()!,
    monotonic: () => clock.now(),
    flushIntervalMs: 60_000,
    retentionMs: DAY,
    maxBytes: 1e9,
    log: log as unknown as Logger,
  });
  t.teardown(() => store.close());
  t.equal(errors.length, 1, 'logged at once');
  clock.advance(10_000);
  store.flushSync();
  t.equal(errors.length, 1, 'not again within the minute');
  // NTP corrects a clock that ran a month fast: the minute still passes.
  clock.jumpWall(-30 * DAY);
  mock.timers.setTime(clock.wall()!);
  clock.advance(61_000);
  mock.timers.tick(61_000);
  store.flushSync();
  t.equal(errors.length, 2, 'logged again a minute later, not a month later');
});

t.test('a wall clock set a month ahead does not expire the history at the next flush', async (t) => {
  // A bad RTC or a mistyped date: retention is a duration, kept on the monotonic clock.
  const { clock, store } = setup(t);
  feed(store, clock, 1, wave);
  const lastHour = [clock.wall()! - 3_600_000, clock.wall()!] as const;
  t.equal(store.tierPoints(0, 'k/wave', ...lastHour).t.length, 721, 'the last hour is raw');
  clock.jumpWall(30 * DAY);
  feed(store, clock, 0.1, wave);
  store.flushSync();
  t.equal(store.tierPoints(0, 'k/wave', ...lastHour).t.length, 721, 'still there after the jump and a flush');
  t.equal(store.tierPoints(1, 'k/wave', ...lastHour).t.length, 61, 'and its 1-minute averages');

  // Set right again, retention goes on as before: two days later the raw points are gone.
  clock.jumpWall(-30 * DAY);
  feed(store, clock, 2.2, wave);
  t.equal(store.tierPoints(0, 'k/wave', ...lastHour).t.length, 0, 'raw points older than 2 days expire');
  t.equal(store.tierPoints(1, 'k/wave', ...lastHour).t.length, 61, '1-minute averages kept for their 60 days');
});
