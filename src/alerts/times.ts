// Alert times: the tracker counts on the monotonic clock, so a wall clock that jumps (NTP on a
// Pi without a real-time clock) neither fires, resolves nor stretches an alert. Wall-clock
// times exist only where a person reads them (the API, the stored row, a message's `at`) and
// are made from the monotonic ones against the clock as it reads now.
import type { ActiveAlert } from './types.js';

export interface AlertClock {
  /** Monotonic ms. */
  now(): number;
  /** Wall-clock epoch ms. */
  wall(): number;
}

const TIMES = ['firstSeenAt', 'lastSeenAt', 'firedAt', 'lastNotifiedAt'] as const;

/** The alert with its times as wall-clock epoch ms (the API and the stored row). */
export function toWall(a: ActiveAlert, clock: AlertClock): ActiveAlert {
  const shift = clock.wall() - clock.now();
  const out = { ...a };
  for (const k of TIMES) if (out[k] !== null) out[k] = Math.round(out[k]! + shift);
  return out;
}

/**
 * A stored alert (wall-clock times, written by an earlier run) on this run's monotonic clock.
 * The time between its last sighting and now counts when the clock shows it; a clock behind
 * that sighting (a Pi that booted at an old saved time) gives nothing for the gap, never less.
 */
export function fromWall(a: ActiveAlert, clock: AlertClock): ActiveAlert {
  const now = clock.now();
  const wall = clock.wall();
  const gap = Math.max(0, wall - a.lastSeenAt);
  const out = { ...a };
  for (const k of TIMES) {
    if (out[k] === null) continue;
    out[k] = now - gap - Math.max(0, a.lastSeenAt - out[k]!);
  }
  return out;
}
