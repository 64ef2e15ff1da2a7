// A fixed-cadence timer: run k is due at start + k * interval, never "interval after the
// previous run", so late timers and slow runs do not accumulate drift. After a stall the
// current slot runs at once (late) and older missed slots are skipped, never caught up in a burst.
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
      const elapsedSlots = Math.floor((this.now() - this.startedAt) / this.intervalMs);
      this.k = Math.max(this.k + 1, elapsedSlots);
      if (this.running) this.schedule();
    }
  }
}
