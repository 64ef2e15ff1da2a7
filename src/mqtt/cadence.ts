// A fixed-cadence timer: run k is due at start + k * interval, never "interval after the
// previous run", so late timers and slow runs do not accumulate drift. After a stall (a late
// timer, a slow run) one run goes at once, late, and stands for every slot the stall covered;
// the next run is on the next slot still ahead, never caught up in a burst.
export class Cadence {
  private timer: NodeJS.Timeout | null = null;
  private startedAt = 0;
  private k = 0;
  private running = false;

  constructor(
    readonly intervalMs: number,
    /** Called with the time the run was due (on the `now` clock). */
    private readonly run: (due: number) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(intervalMs > 0)) throw new Error(`cadence interval must be positive, got ${intervalMs}`);
  }

  /** The first run is immediate. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.startedAt = this.now();
    this.k = 0;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private due(): number {
    return this.startedAt + this.k * this.intervalMs;
  }

  private schedule(): void {
    this.timer = setTimeout(() => this.fire(), Math.max(0, this.due() - this.now()));
  }

  private fire(): void {
    this.timer = null;
    if (!this.running) return;
    try {
      this.run(this.due());
    } finally {
      // The next slot still ahead. Not the slot now in progress: a run that fired late has just
      // stood for it, and running it at once as well made two runs back to back after every stall
      // (two history messages, and a third on the next slot: a burst).
      const nextSlot = Math.floor((this.now() - this.startedAt) / this.intervalMs) + 1;
      this.k = Math.max(this.k + 1, nextSlot);
      if (this.running) this.schedule();
    }
  }
}
