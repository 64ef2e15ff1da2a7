// Slow PWM over a constrained digital actuator (reference §6.3), driven by the actuator's real
// switching history rather than by a timer of its own.
//
// `balance` is how many ms of ON time the actuator delivered ahead (+) or behind (-) of the
// setting, integrated from what the actuator actually did. In steady cycling it swings between
// -h and +h, h = d(1-d)P/2. Below 50 % the ON time is fixed (d*P) and the OFF phase ends when the
// balance is back at -h; above 50 % the OFF time is fixed and the ON phase ends at +h. When a
// constraint (minOn, minOff, delayedOn/Off, a mutex) delays a toggle, the balance goes past the
// band and the adaptive phase of the next cycle(s) is stretched or shortened to make up for it.
// The adaptive phase never goes below 75 % of its nominal length, and the balance is clamped
// to +/-5h, so a phase is stretched to at most 3x nominal: after a long block the PWM does not
// try to catch up for hours (the controller above it corrects for that already).
// The balance is kept at 0 % and 100 % too. Coming back from 0 %, the time spent there is
// counted as owed at the new duty, up to -h: after a long OFF a pulse starts at once, but a
// setting that dips to 0 % and comes back does not start a new pulse each time (and from
// 100 % the other way round).
import { onTimeBetween, type Transition } from './digital-constraints.js';
import type { Tracking } from './pipeline.js';

interface Segment {
  start: number;
  end: number;
  onMs: number;
  /** Integral of the duty setting (0..1) over the segment, in ms. */
  settingMs: number;
}

export interface PwmDecision {
  /** The state to ask of the actuator. */
  want: boolean;
  /** ms until the next planned toggle (<= 0: overdue, waiting for the actuator). */
  wait: number;
}

const MIN_PHASE_FRACTION = 0.75;
/**
 * A toggle planned closer than this (ms) is due now. d * P in floating point can come out a hair
 * past the step that was due for it (2.2 % of 2 s is 44.000000000000004 ms); added to the time,
 * the hair vanishes, the scheduler sees no next time and waits a second, with the actuator on.
 */
const DUE_WITHIN_MS = 1e-3;
const BALANCE_LIMIT = 5;

export class PwmCycle {
  balance = 0;
  /** Achieved duty (%) over about two periods; null before there is any history. */
  value: number | null = null;
  /** For anti-windup: how far the achieved duty falls short of the average setting. */
  tracking: Tracking | null = null;
  private mode: 'off' | 'on' | 'mod' = 'off';
  private lastT: number | null = null;
  private lastDuty: number | null = null;
  private segments: Segment[] = [];
  /** When the current 0 % or 100 % stretch began. */
  private modeSince = -Infinity;

  /**
   * Account for what the actuator did since the last call, then decide. `duty` is 0..1 or null
   * (inactive: the caller switches the actuator off).
   */
  step(now: number, duty: number | null, periodMs: number, history: Transition[]): PwmDecision {
    const current = history[history.length - 1];
    const on = current?.on ?? false;
    const edge = current?.t ?? now;
    if (this.lastT !== null && now > this.lastT) {
      const dt = now - this.lastT;
      const onMs = onTimeBetween(history, this.lastT, now);
      this.balance += onMs - (this.lastDuty ?? 0) * dt;
      this.addSegment(this.lastT, now, onMs, (this.lastDuty ?? 0) * dt);
    }
    this.lastT = now;
    this.lastDuty = duty;
    this.measure(now, on, duty, periodMs);

    if (duty === null || duty <= 0 || duty >= 1) {
      const mode = duty !== null && duty >= 1 ? 'on' : 'off';
      if (this.mode !== mode) this.modeSince = now;
      this.mode = mode;
      this.balance = Math.max(-periodMs, Math.min(periodMs, this.balance));
      return { want: mode === 'on', wait: Infinity };
    }
    const h = (duty * (1 - duty) * periodMs) / 2;
    const stretch = now - this.modeSince;
    if (this.mode === 'off') this.balance = Math.max(-h, this.balance - duty * stretch);
    if (this.mode === 'on') this.balance = Math.min(h, this.balance + (1 - duty) * stretch);
    this.mode = 'mod';
    this.balance = Math.max(-BALANCE_LIMIT * h, Math.min(BALANCE_LIMIT * h, this.balance));
    const nominalOn = duty * periodMs;
    const nominalOff = periodMs - nominalOn;
    // The first history entry is the state found at start-up, not a toggle.
    const phase = history.length <= 1 ? Infinity : now - edge;
    if (on) {
      const wait = snap(
        duty < 0.5
          ? nominalOn - phase
          : Math.max((h - this.balance) / (1 - duty), MIN_PHASE_FRACTION * nominalOn - phase),
      );
      return { want: wait > 0, wait };
    }
    const wait = snap(
      duty >= 0.5 ? nominalOff - phase : Math.max((this.balance + h) / duty, MIN_PHASE_FRACTION * nominalOff - phase),
    );
    return { want: wait <= 0, wait };
  }

  private addSegment(start: number, end: number, onMs: number, settingMs: number): void {
    const last = this.segments[this.segments.length - 1];
    const span = end - start;
    const pure = (on: number, len: number) => (on === 0 ? 'off' : on === len ? 'on' : null);
    // Runs of the same state are merged (prorating them at the window edge is exact), so the
    // list holds a few entries per cycle whatever the update rate.
    if (
      last &&
      last.end === start &&
      pure(onMs, span) !== null &&
      pure(last.onMs, last.end - last.start) === pure(onMs, span)
    ) {
      last.end = end;
      last.onMs += onMs;
      last.settingMs += settingMs;
    } else {
      this.segments.push({ start, end, onMs, settingMs });
    }
  }

  private measure(now: number, on: boolean, duty: number | null, periodMs: number): void {
    const from = now - 2 * periodMs;
    while (this.segments.length && this.segments[0]!.end <= from) this.segments.shift();
    let total = 0;
    let onMs = 0;
    let settingMs = 0;
    for (const s of this.segments) {
      const span = s.end - s.start;
      const part = s.start < from ? (s.end - from) / span : 1;
      total += span * part;
      onMs += s.onMs * part;
      settingMs += s.settingMs * part;
    }
    if (total <= 0) {
      this.tracking = null;
      return;
    }
    const raw = (100 * onMs) / total;
    // Monotone per phase: rises only while on, falls only while off, so it does not jitter.
    if (this.value === null) this.value = raw;
    else this.value = on ? Math.max(this.value, raw) : Math.min(this.value, raw);
    // Within a window W the balance swings by 2h = d(1-d)P at most: that much is normal.
    const d = duty ?? 0;
    this.tracking = {
      shortfall: (100 * settingMs) / total - raw,
      tolerance: (100 * d * (1 - d) * periodMs) / total + 1,
    };
  }
}

const snap = (wait: number): number => (Math.abs(wait) < DUE_WITHIN_MS ? 0 : wait);
