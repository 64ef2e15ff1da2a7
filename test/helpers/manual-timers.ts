// Timers on a ManualClock: code given these (a Timers seam, src/runtime/clock.ts) sleeps on the
// test's clock, and `advance(ms)` fires what falls due in order, each at its own time, letting the
// promises it started settle before the next. Seconds of timing logic run in milliseconds, and
// the same every time.
import type { ManualClock, Timers } from '../../src/runtime/clock.js';

interface Pending {
  at: number;
  ms: number;
  seq: number;
  fn: () => void;
}

/** A timer that fired: set `ms` ahead, fired at `at` (clock time). */
export interface Fired {
  ms: number;
  at: number;
}

/** File system requests in flight (the thread pool's): a step reading a sysfs file, a store writing. */
const fileIo = () => process.getActiveResourcesInfo().some((r) => r.startsWith('FSReq') || r.startsWith('FileHandle'));

/**
 * Lets what a fired timer started run to its end: promise chains, callbacks, and file reads and
 * writes (the control loop's step may read sysfs files), until nothing of that is in flight.
 */
async function settle(): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!fileIo()) return;
  }
}

export class ManualTimers implements Timers {
  private pending = new Set<Pending>();
  private seq = 0;
  /** The timers fired so far, in order. */
  readonly fired: Fired[] = [];

  constructor(readonly clock: ManualClock) {}

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { at: this.clock.now() + Math.max(0, ms), ms, seq: this.seq++, fn };
    this.pending.add(timer);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as Pending);
  }

  /** How many timers are set. */
  get size(): number {
    return this.pending.size;
  }

  /** Moves the clock `ms` forward, firing every timer due on the way at its due time. */
  async advance(ms: number): Promise<void> {
    const end = this.clock.now() + ms;
    await settle();
    for (;;) {
      let next: Pending | null = null;
      for (const p of this.pending)
        if (p.at <= end && (!next || p.at < next.at || (p.at === next.at && p.seq < next.seq))) next = p;
      if (!next) break;
      this.pending.delete(next);
      if (next.at > this.clock.now()) this.clock.set(next.at);
      this.fired.push({ ms: next.ms, at: next.at });
      next.fn();
      await settle();
    }
    this.clock.set(end);
  }
}
