// The runtime's sense of time. Everything time-dependent takes it from a Clock, so tests can
// run hours of control in milliseconds with a ManualClock.
export interface Clock {
  /** Monotonic milliseconds. */
  now(): number;
  /** Wall-clock epoch milliseconds, or null when the system clock is not trustworthy. */
  wall(): number | null;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  wall: () => {
    const t = Date.now();
    return t > 1_000_000_000_000 ? t : null;
  },
};

export class ManualClock implements Clock {
  constructor(
    private t = 0,
    private wallOrigin: number | null = Date.UTC(2026, 0, 1),
  ) {}
  now(): number {
    return this.t;
  }
  wall(): number | null {
    return this.wallOrigin === null ? null : this.wallOrigin + this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
}
