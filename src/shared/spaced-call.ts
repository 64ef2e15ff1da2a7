// A call made at most once per interval, for work a client's message sets off that it could
// repeat at will (Home Assistant's birth message, a presence topic's "down"): asked for sooner,
// it runs once when the interval ends (late, never dropped), however often it was asked meanwhile.
export class SpacedCall {
  private last = Number.NEGATIVE_INFINITY;
  private due: NodeJS.Timeout | null = null;

  constructor(
    private readonly intervalMs: number,
    private readonly fn: () => void,
  ) {}

  call(): void {
    if (this.due) return;
    const wait = this.last + this.intervalMs - performance.now();
    if (wait > 0) {
      this.due = setTimeout(() => {
        this.due = null;
        this.call();
      }, wait);
      this.due.unref();
      return;
    }
    this.last = performance.now();
    this.fn();
  }

  /** Drops a call held back (at stop). */
  cancel(): void {
    if (this.due) clearTimeout(this.due);
    this.due = null;
  }
}
