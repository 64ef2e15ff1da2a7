// Digital constraints (reference §6.5) and the switching history of a digital actuator. The
// constraints are evaluated in a fixed order; the first that needs more time blocks the change,
// shows `limiting` and `remaining`, and the actuator re-checks when that time has passed.
import type { DataOf } from '../../codec/fields.js';
import type { digitalConstraintsField } from './fields.js';

export type DigitalConstraints = DataOf<{ c: typeof digitalConstraintsField }>['c'];

export interface Transition {
  /** Monotonic ms. */
  t: number;
  on: boolean;
}

/**
 * How long an output waits at a start for its channel to be read before writing what is stored
 * anyway (a module that answers writes but whose reads keep failing): a 1-Wire module is polled
 * every second, so that is many failed reads.
 */
export const FIRST_READ_WAIT_MS = 15_000;

/**
 * One look of an output that waits for its first read at a start (DigitalActuator, MotorValve):
 * when to look again, or null once FIRST_READ_WAIT_MS have passed since the first look and it
 * writes what is stored without the read. `s.unreadSince` is cleared by the caller once it reads.
 */
export function awaitFirstRead(s: { unreadSince: number | null }, now: number, pollMs: number): number | null {
  s.unreadSince ??= now;
  const until = s.unreadSince + FIRST_READ_WAIT_MS;
  return now < until ? Math.min(now + pollMs, until) : null;
}

/** Transitions kept per actuator: enough for the PWM to look at the last two cycles. */
export const HISTORY_LENGTH = 8;

export function record(history: Transition[], t: number, on: boolean): void {
  history.push({ t, on });
  if (history.length > HISTORY_LENGTH) history.splice(0, history.length - HISTORY_LENGTH);
}

/** Milliseconds spent on within [from, to] according to `history` (oldest first). */
export function onTimeBetween(history: Transition[], from: number, to: number): number {
  let total = 0;
  for (let i = 0; i < history.length; i++) {
    const h = history[i]!;
    if (!h.on) continue;
    const start = Math.max(h.t, from);
    const end = Math.min(history[i + 1]?.t ?? Infinity, to);
    if (end > start) total += end - start;
  }
  return total;
}

export interface ConstraintCheck {
  /** The applied state and since when (ms). */
  on: boolean;
  since: number;
  /** The requested state and since when it has been requested without interruption. */
  want: boolean;
  wantSince: number;
  now: number;
  /** Try to take the mutex; only asked when every time constraint allows switching on. */
  lock(): { granted: boolean; wait: number };
}

const ORDER = ['minOff', 'minOn', 'delayedOn', 'delayedOff', 'mutexed'] as const;

/** Clears the read-only flags, then evaluates the change `check.on -> check.want`. */
export function checkConstraints(c: DigitalConstraints, check: ConstraintCheck): { allowed: boolean; wait: number } {
  for (const key of ORDER) {
    const k = c[key];
    if (k) {
      k.limiting = false;
      k.remaining = 0;
    }
  }
  if (check.want === check.on) return { allowed: true, wait: 0 };
  const { now, want } = check;
  for (const key of ORDER) {
    const k = c[key];
    if (!k?.enabled) continue;
    let wait = 0;
    if (key === 'mutexed') {
      if (want) wait = check.lock().wait;
    } else {
      const duration = ((k as { duration: number | null }).duration ?? 0) * 1000;
      if (key === 'minOff' && want) wait = duration - (now - check.since);
      else if (key === 'minOn' && !want) wait = duration - (now - check.since);
      else if (key === 'delayedOn' && want) wait = duration - (now - check.wantSince);
      else if (key === 'delayedOff' && !want) wait = duration - (now - check.wantSince);
    }
    if (wait > 0) {
      k.limiting = true;
      k.remaining = wait / 1000;
      return { allowed: false, wait };
    }
  }
  return { allowed: true, wait: 0 };
}

/** What a constrained digital output (DigitalActuator, MotorValve) tracks between updates. */
export interface SwitchTiming {
  /** Applied transitions, oldest first. */
  history: Transition[];
  wanted: boolean | null;
  /** Since when `wanted` has held without interruption (ms). */
  wantSince: number;
}

/**
 * One update of a constrained output: note when the wanted state changed, check the constraints
 * for switching from the last applied state, and record the switch when allowed (and `canSwitch`).
 * `on` is the state to apply; `retryMs` how soon to look again, at most `maxMs`.
 */
export function constrainedSwitch(
  s: SwitchTiming,
  c: DigitalConstraints,
  want: boolean,
  now: number,
  lock: ConstraintCheck['lock'],
  maxMs: number,
  canSwitch = true,
): { on: boolean; retryMs: number } {
  if (want !== s.wanted) {
    s.wanted = want;
    s.wantSince = now;
  }
  const last = s.history[s.history.length - 1]!;
  const check = checkConstraints(c, { on: last.on, since: last.t, want, wantSince: s.wantSince, now, lock });
  let on = last.on;
  if (canSwitch && want !== on && check.allowed) {
    on = want;
    record(s.history, now, on);
  }
  return { on, retryMs: check.allowed ? maxMs : Math.min(maxMs, Math.max(1, check.wait)) };
}
