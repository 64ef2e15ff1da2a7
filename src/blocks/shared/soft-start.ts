// Soft start (reference §5.5 DigitalActuator, FastPwm): on a channel that can do fast PWM, the
// applied duty ramps towards its target over the transition duration instead of jumping, which
// limits the inrush current of lamps, motors and heating elements. Channels without PWM
// (DS2408/DS2413 latches, plain relay GPIO lines) cannot ramp: they switch at once and report a
// transition duration value of 0 s.
import { f } from '../../codec/fields.js';
import type { IoArray } from '../../runtime/types.js';
import type { Linked } from '../../runtime/interfaces.js';
import { ChannelCapability } from './enums.js';

export const TransitionDurationPreset = { ST_OFF: 0, ST_FAST: 1, ST_MEDIUM: 2, ST_SLOW: 3, ST_CUSTOM: 4 } as const;
type PresetName = keyof typeof TransitionDurationPreset;

const PRESET_SECONDS: Record<Exclude<PresetName, 'ST_CUSTOM'>, number> = {
  ST_OFF: 0,
  ST_FAST: 0.25,
  ST_MEDIUM: 0.75,
  ST_SLOW: 2,
};

/** Ramp updates run this often while ramping. */
export const RAMP_INTERVAL_MS = 10;
/** At most this much duty change per ramp step, even after a late update. */
const MAX_STEP = 25;

export const softStartFields = {
  transitionDurationPreset: f.enum(TransitionDurationPreset, {
    stored: true,
    description: 'soft start: OFF, FAST 0.25 s, MEDIUM 0.75 s, SLOW 2 s or CUSTOM (transitionDurationSetting)',
  }),
  transitionDurationSetting: f.duration({ stored: true, description: 'the ramp time of ST_CUSTOM' }),
  transitionDurationValue: f.duration({
    readonly: true,
    default: 0,
    description: 'the ramp time in effect; 0 s where the channel cannot do PWM',
  }),
};

export const PWM_CAPABILITIES =
  ChannelCapability.PWM_80HZ | ChannelCapability.PWM_100HZ | ChannelCapability.PWM_200HZ | ChannelCapability.PWM_2000HZ;

/** The capability bits of channel `channel` of an IoArray block (0 when it has no such channel). */
export function channelCapabilities(array: Linked<'IoArrayInterface'> | null, channel: number | null): number {
  const chans = array?.data.channels ?? [];
  return chans.find((c) => c.id === channel)?.capabilities ?? 0;
}

export function canPwm(array: Linked<'IoArrayInterface'> | null, channel: number | null, io: IoArray | null): boolean {
  return !!io?.writeDuty && (channelCapabilities(array, channel) & PWM_CAPABILITIES) !== 0;
}

/** The ramp time (s) the settings ask for; 0 when the channel cannot ramp. */
export function transitionSeconds(
  d: { transitionDurationPreset: PresetName; transitionDurationSetting: number | null },
  canRamp: boolean,
): number {
  if (!canRamp) return 0;
  if (d.transitionDurationPreset === 'ST_CUSTOM') return Math.max(0, d.transitionDurationSetting ?? 0);
  return PRESET_SECONDS[d.transitionDurationPreset];
}

/** The applied duty (0-100) moving towards a target at 100 % per transition duration. */
export class DutyRamp {
  applied = 0;
  private target = 0;
  private lastT: number | null = null;

  /** Advance to `now`; returns the duty to apply. */
  step(now: number, target: number, durationMs: number): number {
    // A ramp starts now: the time the duty was at rest does not count.
    const atRest = this.lastT === null || this.applied === this.target;
    const dt = atRest ? 0 : Math.max(0, now - this.lastT!);
    this.lastT = now;
    this.target = target;
    if (durationMs <= 0) {
      this.applied = target;
      return target;
    }
    const maxDelta = Math.min(MAX_STEP, (100 * dt) / durationMs);
    const delta = Math.max(-maxDelta, Math.min(maxDelta, target - this.applied));
    this.applied += delta;
    if (Math.abs(target - this.applied) < 1e-9) this.applied = target;
    return this.applied;
  }

  /** Jump to `duty` (switched without a ramp). */
  set(now: number, duty: number): void {
    this.applied = duty;
    this.target = duty;
    this.lastT = now;
  }

  ramping(target: number): boolean {
    return this.applied !== target;
  }
}
