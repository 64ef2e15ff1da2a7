// The token of a Mutex block (reference §6.5): at most one mutexed digital actuator holds it.
// The holder keeps it while on, and for its extraHoldTime after switching off, so that a heater
// cannot start right after the cooler stopped (and the other way round).

export interface MutexToken {
  holder: string | null;
  /** The holder's applied state at its last update. */
  holderOn: boolean;
  /** When the holder switched off (ms); meaningful while !holderOn. */
  offSince: number;
  /** The holder's extraHoldTime in ms. */
  holdMs: number;
}

export function newToken(): MutexToken {
  return { holder: null, holderOn: false, offSince: 0, holdMs: 0 };
}

/** How long (ms) from `now` the current holder keeps the token; 0 when free. */
export function holdRemaining(t: MutexToken, now: number): number {
  if (t.holder === null) return 0;
  if (t.holderOn) return t.holdMs;
  return Math.max(0, t.offSince + t.holdMs - now);
}

/**
 * Try to take the token for `id`. A holder that is gone (`holderValid` false) or whose hold ran
 * out loses it first. A refused request waits for the holder's remaining hold plus 1 ms.
 */
export function tryLock(
  t: MutexToken,
  id: string,
  now: number,
  holderValid: (holder: string) => boolean,
): { granted: boolean; wait: number } {
  if (t.holder === id) return { granted: true, wait: 0 };
  if (t.holder !== null && (!holderValid(t.holder) || (!t.holderOn && now - t.offSince >= t.holdMs))) t.holder = null;
  if (t.holder !== null) return { granted: false, wait: holdRemaining(t, now) + 1 };
  t.holder = id;
  t.holderOn = false;
  t.offSince = now;
  t.holdMs = 0;
  return { granted: true, wait: 0 };
}

/** The holder reports its state on every update; it lets go once off for its hold time. */
export function refreshHold(
  t: MutexToken,
  id: string,
  on: boolean,
  offSince: number,
  holdMs: number,
  now: number,
): void {
  if (t.holder !== id) return;
  t.holderOn = on;
  t.offSince = offSince;
  t.holdMs = holdMs;
  if (!on && now - offSince >= holdMs) t.holder = null;
}

export function unlock(t: MutexToken, id: string): void {
  if (t.holder === id) t.holder = null;
}
