// The stored -> desired -> setting -> value pipeline of claimable blocks (reference §4.1):
// a claimer's request wins; an unclaimed block in STORED mode uses its stored value; an
// unclaimed block in CLAIMED mode stays inactive (null) until the user writes a setting.
import type { AnyBlock, UpdateContext, WriteInfo } from '../../runtime/types.js';

export interface Driven<T> {
  /** What the current claimer last asked for. */
  request: T | null;
}

export function desired<T>(block: AnyBlock & { state: Driven<T> }, stored: T): T | null {
  const data = block.data as { claimedBy: string | null; settingMode: string; enabled?: boolean };
  if (data.enabled === false) return null;
  if (data.claimedBy) return block.state.request;
  return data.settingMode === 'CLAIMED' ? null : stored;
}

/** Claim `target` for `claimer` and hand it a request; the target updates within this tick. */
export function drive<T>(ctx: UpdateContext, target: Omit<AnyBlock, 'data' | 'state'> & { data: { claimedBy: string | null }; state: Driven<T> }, claimer: AnyBlock, value: T | null): boolean {
  const held = target.data.claimedBy === claimer.id;
  if (!ctx.claim(target, claimer)) return false;
  if (!held || target.state.request !== value) {
    target.state.request = value;
    ctx.wake(target);
  }
  return true;
}

/** After a user write: a patch that sets the stored value without settingMode returns to STORED. */
export function storedModeRatchet(block: AnyBlock, given: Record<string, unknown>, storedKey: string, isPatch: boolean): void {
  const data = block.data as { settingMode: string };
  if (isPatch && storedKey in given && !('settingMode' in given)) data.settingMode = 'STORED';
}

/** The `onWrite` hook of a claimable block whose stored value is `storedKey`. */
export function returnToStoredOnPatch(storedKey: string) {
  return (block: AnyBlock, info: WriteInfo): void => storedModeRatchet(block, info.given, storedKey, info.patch);
}

/** The interfaces of an analog actuator that follows the setting pipeline. */
export const ANALOG_ACTUATOR_INTERFACES = ['ProcessValueInterface', 'ActuatorAnalogInterface', 'EnablerInterface', 'ClaimableInterface'] as const;

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

/**
 * How well an analog actuator achieves its setting, for the anti-windup of a PID driving it.
 * Actuators whose value lags or ripples by design (PWM) publish this in their state; for the
 * others the PID compares setting and value directly.
 */
export interface Tracking {
  /** Average setting minus achieved value, over the actuator's own measuring window. */
  shortfall: number;
  /** A deviation that is normal for this actuator (PWM ripple); only the excess counts. */
  tolerance: number;
}
