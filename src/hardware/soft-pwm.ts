// Software PWM on one GPIO line, for FastPwm and soft start on Pi GPIO lines. Edges are timed
// with Node timers: about 1 ms resolution and a few ms of jitter under load, so only the low
// frequencies are offered (80 and 100 Hz, see GpioPins) and a single period's duty can be off by
// 10 % or more. The average is kept: each period starts by settling the difference between
// the duty asked and the high time measured, so the error of late edges is carried forward.
// Near 0 % and 100 % (pulses or gaps under the ~1-3 ms a timer can resolve) pulses merge: at
// 100 Hz and 5 % the line switches every few periods instead of every 10 ms. Good for heating elements, lamps and SSR soft start; not for motor drivers or
// anything that needs a clean waveform (use a kernel PWM channel for that).
import type { GpioLine } from '../../drivers/gpio/types.js';

export interface PwmScheduler {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realScheduler: PwmScheduler = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export const SOFT_PWM_FREQUENCIES = [80, 100];

export class SoftPwm {
  duty = 0;
  private hz = 100;
  private timer: unknown = null;
  private periodStart = 0;
  private onTarget = 0;
  /** Level last written, and the high time since the period started. */
  private level = false;
  private highMs = 0;
  private highSince = 0;
  /** On time (ms) owed to the next period because an edge came late or early. */
  private carry = 0;

  constructor(
    private readonly line: GpioLine,
    private readonly onError: (e: unknown) => void,
    private readonly clock: PwmScheduler = realScheduler,
  ) {}

  get running(): boolean {
    return this.timer !== null;
  }

  /** Duty 0-100 %; 0 and 100 are a steady level. */
  set(duty: number, hz: number): void {
    this.duty = Math.min(100, Math.max(0, duty));
    this.hz = SOFT_PWM_FREQUENCIES.includes(hz) ? hz : 100;
    if (this.duty === 0 || this.duty === 100) {
      this.stop();
      this.write(this.duty === 100);
    } else if (!this.running) {
      this.carry = 0;
      this.periodStart = this.clock.now();
      this.highMs = 0;
      this.highSince = this.periodStart;
      this.rise();
    }
  }

  stop(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private get periodMs(): number {
    return 1000 / this.hz;
  }

  /** Start of a period: settle the debt of the last one from the measured high time. */
  private rise(): void {
    const now = this.clock.now();
    const period = this.periodMs;
    const high = this.highMs + (this.level ? now - this.highSince : 0);
    this.carry += (this.duty / 100) * (now - this.periodStart) - high;
    this.carry = Math.min(period, Math.max(-period, this.carry));
    // Far behind (the process stalled): start afresh rather than catch up in a burst.
    if (now - this.periodStart > 2 * period) this.carry = 0;
    this.periodStart = now;
    this.highMs = 0;
    this.highSince = now;
    this.onTarget = Math.min(period, Math.max(0, (this.duty / 100) * period + this.carry));
    if (this.onTarget > 0) this.write(true);
    this.timer = this.clock.setTimeout(() => this.fall(), this.onTarget);
  }

  private fall(): void {
    const now = this.clock.now();
    if (this.onTarget < this.periodMs) this.write(false);
    this.timer = this.clock.setTimeout(() => this.rise(), Math.max(0, this.periodStart + this.periodMs - now));
  }

  private write(active: boolean): void {
    const now = this.clock.now();
    if (this.level && !active) this.highMs += now - this.highSince;
    if (!this.level && active) this.highSince = now;
    this.level = active;
    this.line.write(active).catch(this.onError);
  }
}
