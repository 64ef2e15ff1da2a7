// After a restart the embedded store rebuilds the buckets in progress and the recent last-seen
// times from the raw records (the replay): a restart gives the same buckets as no restart.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { silentLogger, type Logger } from '../../src/log.js';
import { EmbeddedStore } from '../../src/history/embedded/embedded-store.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

function store(dataDir: string, clock: { now: number }, log: Logger = silentLogger) {
  return new EmbeddedStore({
    dataDir,
    now: () => clock.now,
    flushIntervalMs: 60_000,
    retentionMs: 365 * DAY,
    maxBytes: 1e9,
    log,
  });
}

/** Points every 5 s from T0 + 5 s to T0 + 150 s, with a value that moves; a restart after `restartAt` if given. */
async function run(
  t: Test,
  restartAt: number | null,
): Promise<{ minutes: { t: number[]; v: number[] }; fields: string[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-replay-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const clock = { now: T0 };
  let s = store(dir, clock);
  for (let i = 1; i <= 30; i++) {
    clock.now = T0 + i * 5000;
    // Only before the restart: the field list must come from the replay.
    if (i <= 3) s.write('early', [['x', i]], clock.now);
    s.write('k', [['a', i * i]], clock.now);
    if (restartAt !== null && clock.now === restartAt) {
      await s.close();
      s = store(dir, clock);
    }
  }
  const fields = await s.fields(T0);
  // Hours later the minute buckets are complete and written as rows.
  clock.now = T0 + 7 * 3_600_000;
  s.flushSync();
  const minutes = s.tierPoints(1, 'k/a', T0, clock.now);
  await s.close();
  return { minutes, fields };
}

t.test('a restart inside a minute: the same minutes as without, and the same fields', async (t) => {
  const whole = await run(t, null);
  t.same(whole.minutes.t, [T0 + 60_000, T0 + 120_000, T0 + 180_000], 'three minutes of averages');
  const restarted = await run(t, T0 + 40_000);
  t.same(restarted.minutes, whole.minutes, 'the minute the restart fell in averages the points from both sides of it');
  t.same(restarted.fields, whole.fields, 'the fields seen only before the restart are listed');
});

t.test(
  'the replay is off the start path: done once, by the first write or query, or a second after start()',
  async (t) => {
    // Each replay logs one line (debug): count them.
    const lines: string[] = [];
    const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line).msg) });
    const replays = () => lines.filter((l) => l.startsWith('history: rebuilt the buckets in progress')).length;
    const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-replay-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const clock = { now: T0 + 5000 };
    const first = store(dir, clock);
    first.write('k', [['a', 1]], clock.now);
    first.flushSync();
    await first.close();

    const byWrite = store(dir, clock, log);
    t.equal(replays(), 0, 'opening the store does not replay');
    clock.now += 5000;
    byWrite.write('k', [['a', 2]], clock.now);
    byWrite.write('k', [['a', 3]], clock.now + 1);
    await byWrite.fields(T0);
    t.equal(replays(), 1, 'the first write replays, once');
    await byWrite.close();

    lines.length = 0;
    const byQuery = store(dir, clock, log);
    await byQuery.fields(T0);
    t.equal(replays(), 1, 'so does the first field list');
    await byQuery.close();

    lines.length = 0;
    const byTimer = store(dir, clock, log);
    byTimer.start();
    t.equal(replays(), 0, 'not at start()');
    await new Promise((r) => setTimeout(r, 1300));
    t.equal(replays(), 1, 'but a second later, with nothing asking');
    await byTimer.close();
  },
);
