// The stored -> desired -> setting -> value pipeline of claimable blocks (reference §4.1):
// a claimer's request wins; an unclaimed block in STORED mode uses its stored value; an
// unclaimed block in CLAIMED mode stays inactive (null) until the user writes a setting.
import type { Linked } from '../../runtime/interfaces.js';
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

/**
 * The setting a setpoint's next update gives it. Its `setting` field holds what its last update
 * gave: in a batch no block runs between the items, so a check of a later item (an autotune
 * START) reads this, and sees the setting an earlier item wrote, as when they are sent apart.
 */
export function settingDue(pair: Linked<'SetpointSensorPairInterface'>): number | null {
  const stored = (pair.data as { storedSetting?: number | null }).storedSetting ?? null;
  return desired(pair as unknown as AnyBlock & { state: Driven<number> }, stored);
}

/** Claim `target` for `claimer` and hand it a request; the target updates within this tick. */
export function drive<T>(
  ctx: UpdateContext,
  target: Omit<AnyBlock, 'data' | 'state'> & { data: { claimedBy: string | null }; state: Driven<T> },
  claimer: AnyBlock,
  value: T | null,
): boolean {
  const held = target.data.claimedBy === claimer.id;
  if (!ctx.claim(target, claimer)) return false;
  if (!held || target.state.request !== value) {
    target.state.request = value;
    ctx.wake(target);
  }
  return true;
}

/** After a user write: a patch that sets the stored value without settingMode returns to STORED. */
export function storedModeRatchet(
  block: AnyBlock,
  given: Record<string, unknown>,
  storedKey: string,
  isPatch: boolean,
): void {
  const data = block.data as { settingMode: string };
  if (isPatch && storedKey in given && !('settingMode' in given)) data.settingMode = 'STORED';
}

/** The `onWrite` hook of a claimable block whose stored value is `storedKey`. */
export function returnToStoredOnPatch(storedKey: string) {
  return (block: AnyBlock, info: WriteInfo): void => storedModeRatchet(block, info.given, storedKey, info.patch);
}

/** The interfaces of an analog actuator that follows the setting pipeline. */
export const ANALOG_ACTUATOR_INTERFACES = [
  'ProcessValueInterface',
  'ActuatorAnalogInterface',
  'EnablerInterface',
  'ClaimableInterface',
] as const;

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
