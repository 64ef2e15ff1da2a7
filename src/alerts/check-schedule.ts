// When the alert conditions are evaluated: in the control loop's wake-up (after the blocks ran),
// at most once per check interval, with a timer of their own only as the fallback for when no
// tick comes (control disabled). Intervals are on the monotonic clock.
import type { Timers } from '../runtime/clock.js';

/** A tick this much before the interval is up still evaluates (the loop's wake-ups are not exact). */
const TICK_JITTER_MS = 20;
/** Without ticks the conditions are evaluated this many intervals apart (5 s by default). */
const FALLBACK_FACTOR = 5;

export class CheckSchedule {
  /** Evaluates only when no control-loop tick has for a while (see start). */
  private timer: unknown = null;
  private lastEvaluated = -Infinity;

  constructor(
    private readonly timers: Timers,
    private readonly clock: { now(): number },
    private readonly checkIntervalMs: number,
    private readonly evaluate: () => void,
  ) {}

  /** The control loop ticked: the fallback is set again, and the conditions evaluated when due. */
  onTick(): void {
    this.armFallback();
    this.evaluateIfDue(this.checkIntervalMs - TICK_JITTER_MS);
  }

  /**
   * The fallback evaluation, FALLBACK_FACTOR intervals from now. Cleared and set anew rather than
   * refresh()ed: a cleared timer leaves Node's timer queue, while a refreshed one keeps its first
   * expiry there and wakes the process then. So while ticks come, it never fires.
   */
  armFallback(): void {
    if (this.timer) this.timers.clearTimeout(this.timer);
    this.timer = this.timers.setTimeout(() => this.onFallback(), this.checkIntervalMs * FALLBACK_FACTOR, {
      unref: true,
    });
  }

  stop(): void {
    if (this.timer) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  private onFallback(): void {
    this.timer = null;
    this.evaluateIfDue(this.checkIntervalMs);
    this.armFallback();
  }

  /** On the monotonic clock: a wall clock set back (NTP on a Pi without a clock) must not pause the checks. */
  private evaluateIfDue(sinceLastMs: number): void {
    const at = this.clock.now();
    if (at - this.lastEvaluated < sinceLastMs) return;
    this.lastEvaluated = at;
    this.evaluate();
  }
}
