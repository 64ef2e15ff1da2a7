// From a fitted model to PID gains. The family is SIMC's (Skogestad 2003) for the plants a
// brewery has, slow and lag-dominated, which over a few hours look like integrators:
//
//   kp = 1 / (rate * T)        rate = gain / tau1 (degC/s per % of output), T = lambda * (dead time + lag)
//   ti = beta * T              SIMC's integrating rule is beta = 4; a longer ti overshoots less
//   td = alpha * lag           the derivative anticipates the heat or cold stored in the chamber air
//
// The dead time is the fitted one plus what the blocks add: half a PWM's period (its duty is
// delivered over the period) and the derivative filter's delay. tau1 itself (a beer's time
// constant of a day) is barely measurable in a few hours, which is why only the rate enters kp.
//
// Which member of the family is picked by simulating a 2 degC setpoint step both ways on the
// model with the same PID, PWM, constraint and mutex logic the blocks run (closed-loop.ts): the
// fastest that stays within the overshoot margin, checked again on models 30 % faster and 25 %
// slower, with more dead time, and leakier (a shorter tau1) than the one measured. Classic
// Ziegler–Nichols (kp = 0.6 Ku, ti = Tu/2, td = Tu/8) is not used: it aims at a quarter-amplitude
// decay (about 50 % overshoot) and is known to be far too aggressive on lag-dominated plants.
import type { DigitalConstraints } from '../digital-constraints.js';
import { filterDelay } from '../filter-chain.js';
import { derivativeStageForTd, type PidParams } from '../pid-math.js';
import { simulateStep, type PlantModel, type SideSetup, type StepOutcome } from './closed-loop.js';

export interface SideInfo {
  /** +1 for heating, -1 for cooling (the sign of kp). */
  sign: 1 | -1;
  /** PWM period of the side's output, s (0 for a continuous output). */
  pwmPeriod: number;
  /** The digital actuator's constraints, when the output is a PWM over one. */
  constraints: DigitalConstraints | null;
  /** Highest output, %. */
  max: number;
}

export interface Proposal {
  /** Gains per side (index as in the model). */
  params: PidParams[];
  /** The gains in use did at least as well on the models as any candidate: they are proposed again. */
  keepsCurrent: boolean;
  /** The dead time the gains allow for per side, s. */
  deadTimes: number[];
  /** The simulated steps on the fitted model (the worst of both directions for a pair). */
  expected: StepOutcome;
  /** False when no candidate met the margins (the most cautious one is proposed). */
  withinMargins: boolean;
  rule: string;
}

/**
 * The longest `rule` text a proposal may carry: the block stores it, and a stored text longer
 * than its field allows makes the whole block fail to load at the next start.
 */
export const RULE_TEXT_MAX = 120;

export interface RuleOptions {
  /** The setpoint step the expectation is for, degC, and the band it must settle in. */
  step: number;
  tolerance: number;
  /** The sensor's resolution, degC (see StepOptions). */
  resolution?: number;
}

/** Steps of about the square root of 2: a factor of 2 left a kettle between too bold and twice too slow. */
const LAMBDAS = [0.5, 0.7, 1, 1.4, 2, 2.8, 4, 5.6, 8];
const ALPHAS = [0, 1, 2];
const BETAS = [4, 8, 16];
/**
 * Overshoot allowed on the fitted model, and on the worse models, as a share of the tolerance.
 * On the integrator the relay sees, a PI's overshoot levels off near 5 % of the step however slow
 * lambda gets (ti = 16 T): a margin of exactly 0.1 degC would leave only the slowest lambda.
 */
const NOMINAL_OVERSHOOT = 0.6;
const WORST_OVERSHOOT = 1.25;
/** The most a step may overshoot at all, as a share of the tolerance (0.3 degC for 0.2). */
const ACCEPTABLE_OVERSHOOT = 1.5;
/**
 * A candidate replaces gains in use that overshoot no more on the measured model only when it
 * settles the model's step in at most this share of their time: the model is measured at one
 * setting and steps to another, and a few minutes sooner on it is within its error.
 */
const CLEARLY_SOONER = 0.75;
/** How much more overshoot, degC, the gains in use may show than the pick and still be kept. */
const OVERSHOOT_SLACK = 0.05;
/**
 * How far past the new setting, and how far from it late in a step, as a share of the
 * tolerance, gains in use may go on the model and still be kept when no candidate met the margins.
 */
const HOLD_NEAR = 2;
/** Slower than this many times (dead time + lag), a plant is taken as an integrator. */
const INTEGRATING = 8;

interface Candidate {
  lambda: number;
  alpha: number;
  beta: number;
  params: PidParams[];
  deadTimes: number[];
  nominal: StepOutcome;
  worst?: StepOutcome;
}

/** The worst of several steps: the most overshoot, the latest settling (none if one never settles), the furthest late. */
function worstStep(outcomes: readonly StepOutcome[]): StepOutcome {
  return {
    overshoot: Math.max(...outcomes.map((o) => o.overshoot)),
    settling: outcomes.some((o) => o.settling === null) ? null : Math.max(...outcomes.map((o) => o.settling!)),
    late: Math.max(...outcomes.map((o) => o.late)),
  };
}

/** One member of the family for every side. */
export function gainsFor(
  model: PlantModel,
  sides: SideInfo[],
  c: { lambda: number; alpha: number; beta: number },
): { params: PidParams[]; deadTimes: number[] } {
  const params: PidParams[] = [];
  const deadTimes: number[] = [];
  sides.forEach((s, i) => {
    const gain = model.gains[i]!;
    if (gain === 0) {
      params.push({ kp: 0, ti: 0, td: 0 });
      deadTimes.push(0);
      return;
    }
    const lag = model.lags[i]!;
    const td = c.alpha * lag;
    const theta = model.deadTimes[i]! + s.pwmPeriod / 2 + (td > 0 ? filterDelay(derivativeStageForTd(td)) : 0);
    const T = c.lambda * Math.max(theta + lag, 1);
    const rate = Math.abs(gain) / model.tau1;
    params.push({ kp: (s.sign * 1) / (rate * T), ti: c.beta * T, td });
    deadTimes.push(theta);
  });
  return { params, deadTimes };
}

/** The model as the simulation takes it: an integrator when tau1 is far beyond the loop's own times. */
function asSimulated(model: PlantModel): PlantModel {
  const slowest = Math.max(...model.lags.map((l, i) => l + model.deadTimes[i]!), 1);
  if (model.tau1 < INTEGRATING * slowest) return model;
  return {
    ...model,
    gains: model.gains.map((g) => g / model.tau1),
    offset: model.offset / model.tau1,
    tau1: Number.POSITIVE_INFINITY,
  };
}

/** Candidate gains, tried one at a time (see proposer()); `propose` runs it to the end. */
export function propose(model: PlantModel, sides: SideInfo[], opts: RuleOptions, current?: PidParams[]): Proposal {
  const search = proposer(model, sides, opts, current);
  for (;;) {
    const r = search.next();
    if (r.done) return r.value;
  }
}

/**
 * The search as a generator: each `next()` runs a few simulations, so a block can spread it over
 * several updates instead of holding up the control loop.
 */
export function* proposer(
  model: PlantModel,
  sides: SideInfo[],
  opts: RuleOptions,
  /** The gains in use: proposed again when no candidate does better on the models. */
  current?: PidParams[],
): Generator<void, Proposal> {
  const nominal = asSimulated(model);
  const loop = Math.max(...sides.map((s, i) => model.deadTimes[i]! + model.lags[i]! + s.pwmPeriod / 2), 1);
  const dt = Math.min(30, Math.max(0.5, loop / 30));
  const horizon = Math.min(48 * 3600, Math.max(3600, 60 * loop));
  const directions = sides.length > 1 ? [1, -1] : [sides[0]!.sign];
  const simSides = (params: PidParams[]): SideSetup[] =>
    sides.map((s, i) => ({ params: params[i]!, max: s.max, pwmPeriod: s.pwmPeriod, constraints: s.constraints }));
  const run = (m: PlantModel, params: PidParams[]): StepOutcome => {
    const outcomes = directions.map((d) =>
      simulateStep(m, simSides(params), {
        step: d * opts.step,
        tolerance: opts.tolerance,
        resolution: opts.resolution,
        horizon,
        dt,
      }),
    );
    return worstStep(outcomes);
  };
  const worse: PlantModel[] = [
    { ...nominal, gains: nominal.gains.map((g) => g * 1.3), deadTimes: nominal.deadTimes.map((d) => d * 1.3 + dt) },
    { ...nominal, gains: nominal.gains.map((g) => g * 0.75) },
  ];
  if (!Number.isFinite(nominal.tau1)) {
    // A leak the relay could not see: the integrator turned into a lag of a few loop times.
    const tau1 = 20 * loop;
    worse.push({ ...nominal, gains: nominal.gains.map((g) => g * tau1), offset: nominal.offset * tau1, tau1 });
  }
  if (sides.length > 1) {
    // Which side holds the temperature at rest is poorly measured: try each holding it at 3 %.
    // With minimum on times and a mutex hold, a pair that must trade small amounts of heat and
    // cold is where heating and cooling start to fight.
    for (let j = 0; j < sides.length; j++) worse.push({ ...nominal, offset: -nominal.gains[j]! * 3 });
  }
  const limit = NOMINAL_OVERSHOOT * opts.tolerance;
  const worstCase = function* (c: Candidate): Generator<void, StepOutcome> {
    const outcomes = [c.nominal];
    for (const m of worse) {
      outcomes.push(run(m, c.params));
      yield;
    }
    return worstStep(outcomes);
  };
  // Settling only at the end of the simulated window is not settling: the tail may be a drift.
  const robust = (c: Candidate) =>
    !!c.worst &&
    c.worst.settling !== null &&
    c.worst.settling <= horizon / 2 &&
    c.worst.overshoot <= WORST_OVERSHOOT * opts.tolerance;
  // For each shape (alpha, beta), lambda from the fastest up: the first that keeps the nominal
  // step within the margin goes on to the worse models, and if it overshoots there, the next
  // lambda of the same shape that is within the margin is tried, until one holds on them all.
  // (Stopping at the first, a plant where that one was a little too bold had no robust candidate
  // at all, and the fallback below proposed the most sluggish gains of all.)
  const shortlist: Candidate[] = [];
  const tried: Candidate[] = [];
  const good: Candidate[] = [];
  for (const alpha of ALPHAS) {
    for (const beta of BETAS) {
      let first = true;
      for (const lambda of LAMBDAS) {
        const g = gainsFor(model, sides, { lambda, alpha, beta });
        const c: Candidate = { lambda, alpha, beta, ...g, nominal: run(nominal, g.params) };
        tried.push(c);
        yield;
        if (c.nominal.settling === null || c.nominal.overshoot > limit) continue;
        if (first) shortlist.push(c);
        first = false;
        c.worst = yield* worstCase(c);
        if (robust(c)) {
          good.push(c);
          break;
        }
      }
    }
  }
  if (!shortlist.length) {
    // No shape met the margin on the model (a drift a slow side cannot catch in time, say): each
    // shape's gentlest overshoot goes on, so what is proposed has still been tried on the worse models.
    for (const alpha of ALPHAS)
      for (const beta of BETAS) {
        const shape = tried.filter((c) => c.alpha === alpha && c.beta === beta && c.nominal.settling !== null);
        if (shape.length) shortlist.push(shape.reduce((a, b) => (b.nominal.overshoot < a.nominal.overshoot ? b : a)));
      }
    for (const c of shortlist) {
      c.worst = yield* worstCase(c);
      if (robust(c)) good.push(c);
    }
  }
  // The gains in use on the same worse models: the best worst case wins.
  const incumbent: Candidate | null = current
    ? { lambda: 0, alpha: 0, beta: 0, params: current, deadTimes: [], nominal: run(nominal, current) }
    : null;
  if (incumbent) incumbent.worst = yield* worstCase(incumbent);
  const score = (c: Candidate) => c.worst?.settling ?? Number.POSITIVE_INFINITY;
  let pick = good.length
    ? good.reduce((a, b) => (score(b) < score(a) ? b : a))
    : (shortlist.length ? shortlist : tried).reduce((a, b) =>
        (b.worst ?? b.nominal).overshoot < (a.worst ?? a.nominal).overshoot ? b : a,
      );
  const worstOf = (c: Candidate) => c.worst ?? c.nominal;
  // The gains in use stay when, on the same worse models, they settle as soon as the pick and
  // overshoot no more than it (or no more than a step may overshoot at all): a proposal is never
  // a change for the worse, even where the margins above ruled the gains in use out. They stay
  // too when they do better on the measured model itself, the best estimate of the plant: the
  // worse models guard against a bold choice, they are no reason to give up gains that work.
  const noWorseOnWorse = (inc: Candidate) =>
    inc.worst!.settling !== null &&
    score(inc) <= score(pick) &&
    inc.worst!.overshoot <= Math.max(worstOf(pick).overshoot + OVERSHOOT_SLACK, ACCEPTABLE_OVERSHOOT * opts.tolerance);
  const betterOnMeasured = (inc: Candidate) =>
    inc.nominal.settling !== null &&
    (pick.nominal.settling === null || CLEARLY_SOONER * inc.nominal.settling <= pick.nominal.settling) &&
    inc.nominal.overshoot <= Math.max(pick.nominal.overshoot + OVERSHOOT_SLACK, limit);
  // Where no candidate met the margins, the model's ranking of gains is not to be trusted (a
  // plant where heat and cool must trade doses smaller than a compressor's shortest run, say):
  // gains in use that stay near the setting on the model, past it and late in the step, stay.
  const holdsNear = (inc: Candidate) =>
    !good.length && Math.max(inc.nominal.late, inc.nominal.overshoot) <= HOLD_NEAR * opts.tolerance;
  const keepReason = !incumbent
    ? null
    : noWorseOnWorse(incumbent) || betterOnMeasured(incumbent)
      ? 'no SIMC candidate did better both on the measured model and on the worse ones'
      : holdsNear(incumbent)
        ? 'no SIMC candidate met the margins on the model; these hold near the setting on it'
        : null;
  const keepsCurrent = keepReason !== null;
  if (keepsCurrent) pick = incumbent!;
  const deadTimes = keepsCurrent ? gainsFor(model, sides, { lambda: 1, alpha: 0, beta: 4 }).deadTimes : pick.deadTimes;
  return {
    params: pick.params,
    keepsCurrent,
    deadTimes,
    expected: pick.nominal,
    withinMargins: keepsCurrent || good.length > 0,
    rule: keepsCurrent
      ? `the gains in use: ${keepReason}`
      : `SIMC ${pick.alpha ? 'PID' : 'PI'}: kp = 1/(rate x ${pick.lambda} (dead time + lag)), ti = ${pick.beta} x that, td = ${pick.alpha} x lag`,
  };
}
