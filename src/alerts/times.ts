// Alert times: the tracker counts on the monotonic clock, so a wall clock that jumps (NTP on a
// Pi without a real-time clock) neither fires, resolves nor stretches an alert. Wall-clock
// times exist only where a person reads them (the API, the stored row, a message's `at`) and
// are made from the monotonic ones against the clock as it reads now.
import type { Clock } from '../runtime/clock.js';
import { isWallSet } from '../shared/wall-set.js';
import type { ActiveAlert } from './types.js';

export interface AlertClock {
  /** Monotonic ms. */
  now(): number;
  /** Wall-clock epoch ms. */
  wall(): number;
}

/**
 * The alerts' clock on the runtime's. A wall clock not set reads as the system's (1970: what a
 * message says then); how far that was from the monotonic clock is kept, so what was written
 * meanwhile can be moved as far as the clock moves when it is set (AlertStore.placeUnset).
 */
export class RuntimeAlertClock implements AlertClock {
  private unsetOffset: number | null = null;

  constructor(private readonly rc: Clock) {}

  now(): number {
    return this.rc.now();
  }

  wall(): number {
    const wall = this.rc.wall();
    if (wall !== null) return wall;
    const t = Date.now();
    this.unsetOffset = t - this.rc.now();
    return t;
  }

  /** How far the clock moved when it was set to `wall`; null when it was not read while not set. */
  setBy(wall: number): number | null {
    return this.unsetOffset === null ? null : wall - this.rc.now() - this.unsetOffset;
  }
}

const TIMES = ['firstSeenAt', 'lastSeenAt', 'firedAt', 'lastNotifiedAt'] as const;

/**
 * Where monotonic times fall on the wall clock as it reads now: the one rule by which this run's
 * times say when they happened, a jump or a clock set included the moment the clock reads it
 * (the active alerts: toWall; the history entries this run wrote: history-store.ts).
 */
export function wallOf(clock: AlertClock): (mono: number) => number {
  const shift = clock.wall() - clock.now();
  return (mono) => Math.round(mono + shift);
}

/** The alert with its times as wall-clock epoch ms (the API and the stored row). */
export function toWall(a: ActiveAlert, clock: AlertClock): ActiveAlert {
  const at = wallOf(clock);
  const out = { ...a };
  for (const k of TIMES) if (out[k] !== null) out[k] = at(out[k]!);
  return out;
}

/**
 * A stored alert (wall-clock times, written by an earlier run) on this run's monotonic clock.
 * The time between its last sighting and now counts when the clock shows it; a clock behind
 * that sighting (a Pi that booted at an old saved time) gives nothing for the gap, never less,
 * and so does a clock that was not set when the alert was stored or is not set now (a Pi
 * without a real-time clock before network time: 1970): its times are then as long before now
 * as they were before its last sighting, never 1970 once the clock is set. A time stored
 * while the clock was not set, beside a last sighting that was (stored by an earlier version),
 * is taken as that sighting: what it was is not known. Where the gap is not shown, the alert says
 * so (stopUnknown): how long it has been active is then at least what its times say.
 */
export function fromWall(a: ActiveAlert, clock: AlertClock): ActiveAlert {
  const now = clock.now();
  const wall = clock.wall();
  const last = a.lastSeenAt;
  const shown = isWallSet(last) && isWallSet(wall) && wall >= last;
  const gap = shown ? wall - last : 0;
  const out = { ...a };
  if (!shown) out.stopUnknown = true;
  for (const k of TIMES) {
    const t = out[k];
    if (t === null) continue;
    const before = isWallSet(last) && !isWallSet(t) ? 0 : Math.max(0, last - t);
    out[k] = now - gap - before;
  }
  return out;
}
