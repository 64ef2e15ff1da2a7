// Exponential reconnect delays: initial, 2x, 4x, ... capped at max; reset after a success.
// The cap is 5 s, so a broker that comes back is seen within 5 s however long it was away.
export const RECONNECT_CAP_MS = 5_000;

export class Backoff {
  private attempt = 0;

  constructor(
    readonly initialMs = 500,
    readonly maxMs = RECONNECT_CAP_MS,
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
