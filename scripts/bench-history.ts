// History benchmarks (called from bench.ts): ingest cost, bytes written per stored point (from
// /proc/self/io, WAL and checkpoints included), graph queries over 7 and 30 days, memory.
import { closeSync, fsyncSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { EmbeddedStore, HISTORY_DIR } from '../src/history/embedded/embedded-store.js';
import { HistoryIngest } from '../src/history/ingest.js';
import { selectTimeframe } from '../src/history/timeframe.js';
import { silentLogger } from '../src/log.js';

type RecordFn = (name: string, value: number, unit: string, target: number, kind?: 'max' | 'min') => void;

const DAY = 86_400_000;

/** A controller-like publisher: 50 fields of 10 blocks (temperatures in 1/16 steps, settings, PID/PWM floats, states). */
class Publisher {
  private temps: number[];
  private outputs: number[];
  private states: number[];
  constructor(
    readonly key: string,
    seed: number,
  ) {
    this.temps = Array.from({ length: 10 }, (_, i) => 18 + ((seed + i) % 5));
    this.outputs = Array.from({ length: 10 }, () => 50);
    this.states = Array.from({ length: 10 }, () => 0);
  }
  step(): Record<string, unknown> {
    const data: { [k: string]: unknown } = {};
    for (let i = 0; i < 10; i++) {
      if (Math.random() < 0.2) this.temps[i] = Math.round((this.temps[i]! + (Math.random() - 0.5) * 0.2) * 16) / 16;
      this.outputs[i] = Math.min(100, Math.max(0, this.outputs[i]! + (Math.random() - 0.5) * 3));
      if (Math.random() < 0.01) this.states[i] = 1 - this.states[i]!;
      data[`block ${i}`] = {
        'value[degC]': this.temps[i],
        'setting[degC]': 20,
        outputValue: this.outputs[i],
        state: this.states[i],
        enabled: true,
      };
    }
    return data;
  }
}

function writeBytes(): number {
  const m = /write_bytes: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/** Make the written pages reach the disk, as the kernel's writeback does between real flushes a minute apart. */
function settle(dir: string): void {
  const files = existsSync(path.join(dir, HISTORY_DIR))
    ? readdirSync(path.join(dir, HISTORY_DIR)).map((f) => path.join(HISTORY_DIR, f))
    : [];
  for (const f of files) {
    const p = path.join(dir, f);
    const fd = openSync(p, 'r+');
    fsyncSync(fd);
    closeSync(fd);
  }
}

function rig(flushIntervalMs = 60_000) {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-bench-history-'));
  let now = Date.now() - 31 * DAY;
  const store = new EmbeddedStore({
    dataDir: dir,
    now: () => now,
    flushIntervalMs,
    retentionMs: 365 * DAY,
    maxBytes: 4e9,
    log: silentLogger,
  });
  const ingest = new HistoryIngest({ store, now: () => now, log: silentLogger });
  return {
    dir,
    store,
    ingest,
    now: () => now,
    set: (t: number) => (now = t),
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function historyBench(record: RecordFn): Promise<void> {
  // Each publisher on its own topic, as controllers publish: the ingest admits a message a
  // publisher every few seconds (by the rig's clock) and 50 keys each, so one shared topic would
  // be throttled to nothing and the figures below would measure an empty store.
  // Ingest: 10 publishers x 50 fields every 5 s, a simulated hour, flushing every minute.
  if (!process.env.EB_ONLY || process.env.EB_ONLY === 'ingest') {
    const r = rig();
    const pubs = Array.from({ length: 10 }, (_, i) => new Publisher(`ctl-${i}`, i));
    let ingestMs = 0;
    let flushMs = 0;
    const rounds = 720;
    for (let i = 0; i < rounds; i++) {
      r.set(r.now() + 5000);
      const payloads = pubs.map((p) => Buffer.from(JSON.stringify({ key: p.key, data: p.step() })));
      const t0 = performance.now();
      for (let k = 0; k < payloads.length; k++) r.ingest.handle(`svc/history/${pubs[k]!.key}`, payloads[k]!);
      // handle() only admits and queues; the ingest itself runs in slices, here all at once.
      r.ingest.drain();
      ingestMs += performance.now() - t0;
      if (i % 12 === 11) {
        const t1 = performance.now();
        r.store.flushSync();
        flushMs += performance.now() - t1;
      }
    }
    record('history ingest, 10 publishers x 50 fields: per message', (ingestMs / (rounds * 10)) * 1000, 'µs', 500);
    record('history flush of one minute at 500 fields', flushMs / (rounds / 12), 'ms', 50);
    record('history CPU share at 500 fields every 5 s', ((ingestMs + flushMs) / (rounds * 5000)) * 100, '%', 2);
    await r.close();
  }

  // Bytes written per point and per day at 200 fields (4 publishers x 50), a simulated 6 hours.
  if (!process.env.EB_ONLY || process.env.EB_ONLY === 'bytes') {
    const r = rig();
    const pubs = Array.from({ length: 4 }, (_, i) => new Publisher(`ctl-${i}`, i));
    for (let i = 0; i < 24; i++) {
      r.set(r.now() + 5000);
      for (const p of pubs) r.ingest.handle(`svc/history/${p.key}`, JSON.stringify({ key: p.key, data: p.step() }));
      r.ingest.drain();
      if (i % 12 === 11) r.store.flushSync();
    }
    settle(r.dir);
    const before = writeBytes();
    const points0 = r.store.status().pointsWritten as number;
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    const rounds = 6 * 720;
    for (let i = 0; i < rounds; i++) {
      r.set(r.now() + 5000);
      for (const p of pubs) r.ingest.handle(`svc/history/${p.key}`, JSON.stringify({ key: p.key, data: p.step() }));
      r.ingest.drain();
      if (i % 12 === 11) {
        r.store.flushSync();
        settle(r.dir);
        // Six hours run here in seconds. In the service a minute of wall time passes between
        // flushes and V8's memory reducer collects while idle; without this the fast-forward's
        // short-lived garbage (parsed messages) grows the heap, which is not the buffer's size.
        global.gc?.();
      }
    }
    const written = writeBytes() - before;
    const rawPoints = rounds * 200;
    const stored = (r.store.status().pointsWritten as number) - points0;
    global.gc?.();
    record(
      'history bytes written per raw point at 200 fields (all tiers, WAL, checkpoints)',
      written / rawPoints,
      'B',
      4,
    );
    record('history bytes written per day at 200 fields', ((written / 6) * 24) / 1e6, 'MB', (4 * 200 * 17_280) / 1e6);
    record(
      'history chunk bytes per stored point (compressed payload only)',
      (r.store.status().chunkBytesWritten as number) / (r.store.status().pointsWritten as number),
      'B',
      2,
    );
    record('history points stored per raw point (tiers add)', stored / rawPoints, 'x', 1.2);
    record('history RSS growth over 6 h of ingest at 200 fields', (process.memoryUsage().rss - rss0) / 1e6, 'MB', 20);
    await r.close();
  }

  // Graph queries: 20 of 200 fields over 7 and 30 days (31 days stored: older part at one point a minute).
  if (!process.env.EB_ONLY || process.env.EB_ONLY === 'ranges') {
    const r = rig(600_000);
    const pubs = Array.from({ length: 4 }, (_, i) => new Publisher(`ctl-${i}`, i));
    const end = Date.now();
    const start = end - 31 * DAY;
    let t = start;
    let n = 0;
    const fillStarted = performance.now();
    while (t < end) {
      t += t < end - 2 * DAY ? 60_000 : 5000;
      r.set(t);
      for (const p of pubs) r.ingest.handle(`svc/history/${p.key}`, JSON.stringify({ key: p.key, data: p.step() }));
      r.ingest.drain();
      if (++n % 120 === 0) r.store.flushSync();
    }
    r.store.flushSync();
    const fillS = (performance.now() - fillStarted) / 1000;
    const fields = (await r.store.fields(end - DAY))
      .filter((f) => f.includes('value[degC]') || f.includes('outputValue'))
      .slice(0, 20);
    for (const days of [7, 30]) {
      const tf = selectTimeframe({ duration: `${days}d` }, end);
      await r.store.ranges(fields, tf.start, end, tf.step);
      const times: number[] = [];
      const cpu: number[] = [];
      let points = 0;
      for (let i = 0; i < 5; i++) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const ranges = await r.store.ranges(fields, tf.start, end, tf.step);
        times.push(performance.now() - t0);
        const c = process.cpuUsage(c0);
        cpu.push((c.user + c.system) / 1000);
        points = Math.max(...ranges.map((x) => x.values.length));
      }
      times.sort((a, b) => a - b);
      cpu.sort((a, b) => a - b);
      record(
        `history ranges, 20 fields over ${days} days (${points} points each)`,
        times[2]!,
        'ms',
        days === 7 ? 50 : 100,
      );
      record(`history ranges, 20 fields over ${days} days: CPU time`, cpu[2]!, 'ms', days === 7 ? 50 : 100);
    }
    record(
      `history database after 31 days at 200 fields (filled in ${fillS.toFixed(0)} s)`,
      r.store.usedBytes() / 1e6,
      'MB',
      100,
    );
    await r.close();
  }
}
