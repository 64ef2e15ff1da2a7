// After the relay: once its cycles agree, a model is fitted to what was recorded and the search
// for gains begins (rule.ts, a few simulated steps per update, so the control loop is not held
// up); when the search is done, its proposal becomes the result the block shows.
import type { Chain } from './chain.js';
import type { TuningData } from './fields.js';
import { fitModel, type ModelFit } from './fit.js';
import type { SampleRecord } from './record.js';
import { period, swing, type Cycle } from './relay.js';
import { proposer, type Proposal } from './rule.js';
import type { Setup } from './setup.js';
import type { UnitPrefs } from '../../../codec/units.js';
import { delta, hours, round } from './words.js';

/** The step the expected settling is for, and its band (the bench measures the same). */
export const EXPECTATION = { step: 2, tolerance: 0.2, resolution: 1 / 16 };
/** A fit must explain this share of the measured swing, else the measurement is not trusted. */
const MIN_EXPLAINED = 0.8;

/** The gains being computed after the measurement, a few simulations per update. */
export interface Search {
  gen: Generator<void, Proposal>;
  fit: ModelFit;
  tail: Cycle[];
  periodS: number;
  amplitude: number;
}

/** Fit the model to the record from the first of the agreeing cycles on; a string says why the tuning stops. */
export function startSearch(chain: Chain, record: SampleRecord, tail: Cycle[]): Search | string {
  const periodS = tail.reduce((s, c) => s + period(c), 0) / tail.length / 1000;
  const amplitude = tail.reduce((s, c) => s + swing(c), 0) / tail.length;
  const fit = fitModel({
    error: record.error,
    outputs: record.outputs,
    interval: record.interval,
    from: Math.max(0, record.indexAt(tail[0]!.start)),
    period: periodS,
    signs: chain.sides.map((s) => s.sign),
  });
  if (!fit)
    return `stopped: no model fits the measurements with ${chain.sides.map((s) => `${s.pid.id} ${s.sign > 0 ? 'heating' : 'cooling'}`).join(' and ')}; check the kp signs and the wiring`;
  if (fit.explained < MIN_EXPLAINED)
    return `stopped: the measurements do not fit a model of the plant (it explains ${Math.round(fit.explained * 100)} % of the swing); was something else moving the temperature (a door, a pump, fermentation starting)? Try again`;
  const gen = proposer(
    fit,
    chain.sides.map((s) => ({ sign: s.sign, pwmPeriod: s.pwmPeriod, constraints: s.constraints, max: 100 })),
    EXPECTATION,
    chain.sides.map((s) => ({ kp: s.pid.data.kp ?? 0, ti: s.pid.data.ti ?? 0, td: s.pid.data.td ?? 0 })),
  );
  return { gen, fit, tail, periodS, amplitude };
}

/**
 * How far one shortest run of a pulsed side (a PWM over an actuator with a minimum on time: a
 * compressor) moves the temperature on the model, degC; the largest of the sides, null when none
 * is pulsed. The model's rate is well measured (the beer's slow time constant is not, and does
 * not enter). Where it is more than the band a step is judged by, one run alone leaves the band.
 */
export function shortestRun(chain: Chain, fit: ModelFit): number | null {
  const doses = chain.sides.flatMap((s, i) => {
    const minOn = s.constraints?.minOn?.enabled ? (s.constraints.minOn.duration ?? 0) : 0;
    if (!(minOn > 0) || s.pwmPeriod <= 0 || !Number.isFinite(fit.tau1) || fit.tau1 <= 0) return [];
    return [(Math.abs(fit.gains[i]!) / fit.tau1) * 100 * minOn];
  });
  return doses.length ? Math.max(...doses) : null;
}

/** The proposal as the block stores it, and the message that goes with it. */
export function resultOf(
  chain: Chain,
  search: Search,
  proposal: Proposal,
  units: UnitPrefs,
): { result: Omit<TuningData['result'], Exclude<keyof Setup, 'pairNid'>>; message: string } {
  const { fit, tail, periodS, amplitude } = search;
  const [mine, theirs] = proposal.params;
  const pair = chain.sides[1]?.pid ?? null;
  const pulse = shortestRun(chain, fit);
  const result: Omit<TuningData['result'], Exclude<keyof Setup, 'pairNid'>> = {
    kp: round(mine!.kp, 3),
    ti: Math.round(mine!.ti),
    td: Math.round(mine!.td),
    pairKp: theirs ? round(theirs.kp, 3) : null,
    pairTi: theirs ? Math.round(theirs.ti) : null,
    pairTd: theirs ? Math.round(theirs.td) : null,
    pair: pair?.id ?? '',
    pairNid: pair?.nid ?? null,
    period: Math.round(periodS),
    amplitude: round(amplitude, 3),
    gain: fit.gains[0]!,
    pairGain: theirs ? fit.gains[1]! : null,
    timeConstant: Math.round(fit.tau1),
    lag: Math.round(fit.lags[0]!),
    deadTime: Math.round(proposal.deadTimes[0]!),
    fit: round(fit.explained * 100, 1),
    settling: proposal.expected.settling === null ? null : Math.round(proposal.expected.settling),
    overshoot: round(proposal.expected.overshoot, 3),
    shortestRun: pulse === null ? null : round(pulse, 3),
    rule: proposal.rule,
  };
  const settle = proposal.expected.settling;
  const message =
    `measured ${tail.length} steady cycles of ${hours(periodS)}, +/-${delta(amplitude, units)}; expected for a ${delta(EXPECTATION.step, units)} step: ` +
    `${settle === null ? `does not settle within ${delta(EXPECTATION.tolerance, units)}` : `within ${delta(EXPECTATION.tolerance, units)} after ${hours(settle)}`}, overshoot ${delta(proposal.expected.overshoot, units)}` +
    (proposal.withinMargins
      ? ''
      : ' (no candidate met the overshoot margins on the model: the most cautious gains are proposed)') +
    '. APPLY to use them, DISCARD to keep the current gains';
  return { result, message };
}
