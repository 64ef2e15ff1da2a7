// Exponential reconnect delays: initial, 2x, 4x, ... capped at max; reset after a success.
export class Backoff {
  private attempt = 0;

  constructor(
    readonly initialMs = 500,
    readonly maxMs = 15_000,
  ) {}

  next(): number {
    const delay = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    if (delay < this.maxMs) this.attempt++;
    return delay;
  }

  reset(): void {
    this.attempt = 0;
  }
}
