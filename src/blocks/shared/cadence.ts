// When periodic blocks run next: on a beat shared by all of them, or on a catch-up cadence of their own.

/**
 * The next beat of `interval` after `now`: the next multiple of it on the runtime's clock. Blocks
 * that refresh at the same interval then run in the same step (one wake-up of the loop), however
 * late their steps ran and whenever each was created or woken by a write; with `now + interval`
 * each step's lateness shifted a block's phase for good, and the loop woke once per phase.
 */
export function nextBeat(now: number, interval: number): number {
  return Math.floor(now / interval) * interval + interval;
}

/**
 * Interval helper with catch-up: the long-term average rate is exact even when updates run late.
 * A first run (or one after a long stall) starts on the beat (nextBeat).
 */
export function nextInterval(previousDue: number, now: number, interval: number): number {
  if (!Number.isFinite(previousDue) || now - previousDue > interval * 10) return nextBeat(now, interval);
  const next = previousDue + interval;
  return next > now ? next : now + 1;
}
