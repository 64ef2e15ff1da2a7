// The PID algorithm (reference §6.1), free of block plumbing.
//
// The integral accumulates the derivative-corrected error (e - Dlim) in degC*s, scaled by the
// real time step, and I = integral * Kp / Ti. Correcting by the derivative keeps the integral
// from winding up while D is braking an approach. Anti-windup has two parts:
//  - conditional integration: while the output was clipped, growth that pushes further into the
//    clip is skipped;
//  - back-calculation (tracking time Ti/3): the integral bleeds by the part of the output the
//    actuator did not deliver, either clipped by its range and constraints, or not achieved
//    (a PWM blocked by a mutex or minimum off time, a setpoint driver whose target lags). The
//    actuator's normal deviation (PWM ripple) is tolerated. The bleed only shrinks the
//    integral toward zero, never flips or grows it.
import type { FilterChoiceName } from './enums.js';
import type { Tracking } from './pipeline.js';

/** Back-calculation gain per second: the integral tracks with a time constant of Ti/3. */
export const ANTI_WINDUP_GAIN = 3;
/** D acts on at most this much (degC) of derivative-predicted error (reference: +/-1 degC). */
export const DERIVATIVE_LIMIT = 1;
export const BOIL_POINT = 100;

export interface PidParams {
  kp: number;
  ti: number;
  td: number;
}

/** The filter stage the derivative is taken from when the user leaves the choice to Td. */
export function derivativeStageForTd(td: number): FilterChoiceName {
  if (td <= 20) return 'FILTER_15s';
  if (td <= 89) return 'FILTER_45s';
  if (td <= 179) return 'FILTER_90s';
  if (td <= 359) return 'FILTER_3m';
  if (td <= 959) return 'FILTER_10m';
  return 'FILTER_30m';
}

export interface Feedback {
  /** What the PID asked for last time, and what the output made of it. */
  requested: number | null;
  setting: number | null;
  value: number | null;
  tracking: Tracking | null;
}

export interface PidTerms {
  error: number;
  p: number;
  i: number;
  d: number;
  output: number;
  integral: number;
  boil: boolean;
}

export interface PidInput {
  setting: number;
  value: number;
  /** degC per second at the derivative stage. */
  derivative: number;
  /** Seconds since the previous step. */
  dt: number;
  boilPointAdjust: number;
  boilMinOutput: number;
}

export function pidStep(params: PidParams, integral: number, input: PidInput, feedback: Feedback): PidTerms {
  const { kp, ti, td } = params;
  const error = input.setting - input.value;
  const boil = input.setting >= BOIL_POINT + input.boilPointAdjust;
  const dLim = td > 0 ? clamp(input.derivative * td, -DERIVATIVE_LIMIT, DERIVATIVE_LIMIT) : 0;
  const p = kp * error;
  const d = -kp * dLim;
  let i = 0;
  if (ti > 0 && kp !== 0 && !boil) {
    let growth = (error - dLim) * input.dt;
    const excess = undelivered(feedback);
    // Growth that pushes further into a clip may only unwind the integral toward zero.
    if (excess.clipped && Math.sign(kp * growth) === Math.sign(excess.amount))
      growth = shrinkOnly(integral, integral + growth) - integral;
    const grown = integral + growth;
    const bled = grown - (ANTI_WINDUP_GAIN * input.dt * excess.amount) / kp;
    integral = shrinkOnly(grown, bled);
    i = (integral * kp) / ti;
  } else {
    integral = 0;
  }
  let output = p + i + d;
  if (boil) output = Math.max(output, input.boilMinOutput);
  return { error, p, i, d, output, integral, boil };
}

/** The part of the last request the output did not deliver (output units). */
export function undelivered(f: Feedback): { amount: number; clipped: boolean } {
  if (f.requested === null || f.setting === null) return { amount: 0, clipped: false };
  const clip = f.requested - f.setting;
  if (Math.abs(clip) > 1e-9 * Math.max(1, Math.abs(f.setting))) return { amount: clip, clipped: true };
  if (f.value === null) return { amount: 0, clipped: false };
  const shortfall = f.tracking ? f.tracking.shortfall : f.setting - f.value;
  const tolerance = f.tracking ? f.tracking.tolerance : 0;
  return { amount: Math.sign(shortfall) * Math.max(0, Math.abs(shortfall) - tolerance), clipped: false };
}

function shrinkOnly(before: number, after: number): number {
  if (Math.sign(after) !== Math.sign(before)) return 0;
  return Math.abs(after) < Math.abs(before) ? after : before;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

/** Bumpless parameter changes: keep I = integral * Kp / Ti unchanged. */
export function rescaleIntegral(integral: number, old: PidParams, next: PidParams): number {
  let v = integral;
  if (old.kp !== 0 && next.kp !== 0 && old.kp !== next.kp) v *= old.kp / next.kp;
  if (old.ti > 0 && next.ti > 0 && old.ti !== next.ti) v *= next.ti / old.ti;
  return v;
}

/** The integral that makes I equal `i`. */
export function integralFor(i: number, params: PidParams): number {
  return params.kp !== 0 && params.ti > 0 ? (params.ti * i) / params.kp : 0;
}
