// A setpoint step simulated on a fitted model with the same logic the blocks run between the PID
// and the plant: the PID algorithm (pid-math.ts, with its anti-windup and derivative limit), the
// slow PWM (pwm-cycle.ts) and the digital constraints and mutex of its actuator
// (digital-constraints.ts, mutex-token.ts). A PWM much faster than the plant is taken as its
// average. The tuning uses it to pick among candidate gains and to tell the brewer what to expect.
import { constrainedSwitch, record, type DigitalConstraints, type SwitchTiming } from '../digital-constraints.js';
import { filterDelay } from '../filter-chain.js';
import { newToken, refreshHold, tryLock } from '../mutex-token.js';
import { derivativeStageForTd, integralFor, pidStep, type PidParams } from '../pid-math.js';
import { PwmCycle } from '../pwm-cycle.js';

export interface PlantModel {
  /** degC per % per side (signed), as fitModel returns them. */
  gains: number[];
  /** Temperature with every output at 0, relative to the starting setting, degC. */
  offset: number;
  /** The shared slow lag (Infinity: a pure integrator), and per side the fast lag and dead time, s. */
  tau1: number;
  lags: number[];
  deadTimes: number[];
}

export interface SideSetup {
  params: PidParams;
  /** Highest output, %. */
  max: number;
  /** Period of a PWM over a digital actuator, s; 0 for a continuous output. */
  pwmPeriod: number;
  /** That actuator's constraints as its block holds them (minOn, minOff, mutexed, ...). */
  constraints: DigitalConstraints | null;
}

export interface StepOutcome {
  /** Furthest past the new setting in the step's direction, degC (0 when it never got there). */
  overshoot: number;
  /** Seconds until the temperature stays within the tolerance for good; null when it does not by the end. */
  settling: number | null;
  /** Furthest from the new setting over the last half of the simulated time, degC. */
  late: number;
}

export interface StepOptions {
  /** The setpoint change, degC (signed). */
  step: number;
  tolerance: number;
  /** Simulated time, s, and the step of the simulation, s. */
  horizon: number;
  dt: number;
  /**
   * The sensor's resolution, degC (a DS18B20 reads in sixteenths): the PID sees the temperature
   * in these steps. Without it, a pair held exactly at the setting never wakes the side that is not
   * needed, where on the plant one step of the reading does, and a minimum on time or a mutex hold
   * turns that into a swing.
   */
  resolution?: number;
  /** Sees the temperature (relative to the old setting) and the delivered outputs after every step. */
  trace?: (t: number, y: number, outputs: readonly number[]) => void;
}

/** A PWM this many simulation steps long or more is simulated; a faster one is its average. */
const SIMULATED_PWM_STEPS = 4;

interface Actuator extends SwitchTiming {
  /** The PWM, when it is slow enough to simulate; else the setting is delivered while on. */
  cycle: PwmCycle | null;
  constraints: DigitalConstraints;
}

export function simulateStep(model: PlantModel, sides: SideSetup[], opts: StepOptions): StepOutcome {
  const { dt, horizon, step, tolerance } = opts;
  const n = sides.length;
  // Start at rest at the old setting, each PID's integral holding the output that keeps it there.
  const hold = equilibrium(model, sides);
  const integral = sides.map((s, i) => integralFor(hold[i]!, s.params));
  const requested: (number | null)[] = sides.map(() => null);
  const setting: (number | null)[] = sides.map(() => null);
  const delivered = [...hold];
  const actuators = sides.map((s, i) => actuatorFor(s, dt, hold[i]! > 0));
  const token = newToken();
  const lines = sides.map((_s, i) => new DelayLine(model.deadTimes[i]!, dt, hold[i]!));
  const a = model.lags.map((lag) => (lag > 0 ? Math.exp(-dt / lag) : 0));
  // A model with tau1 infinite is an integrator: its gains are rates (degC/s per %).
  const integrating = !Number.isFinite(model.tau1);
  const b = integrating ? 1 : Math.exp(-dt / model.tau1);
  const fast = sides.map((_s, i) => model.gains[i]! * hold[i]!);
  let y = 0;
  const q = opts.resolution ?? 0;
  // The old setting sits a quarter step above a level of the reading (on neither a level nor a midpoint).
  const read = (v: number) => (q > 0 ? Math.round(v / q + 0.25) * q - 0.25 * q : v);
  let seen = read(0);
  let derivative = 0;
  const lag = sides.map((s) => Math.max(dt, filterDelay(derivativeStageForTd(s.params.td))));
  const derivatives = sides.map(() => 0);
  let overshoot = 0;
  let lastOutside = 0;
  let late = 0;
  for (let t = 0; t < horizon; t += dt) {
    const now = Math.round(t * 1000);
    for (let i = 0; i < n; i++) {
      const s = sides[i]!;
      derivatives[i]! += (derivative - derivatives[i]!) * Math.min(1, dt / lag[i]!);
      const act = actuators[i];
      const terms = pidStep(
        s.params,
        integral[i]!,
        { setting: step, value: seen, derivative: derivatives[i]!, dt, boilPointAdjust: 1e6, boilMinOutput: 0 },
        {
          requested: requested[i]!,
          setting: setting[i]!,
          value: act?.cycle?.value ?? delivered[i]!,
          tracking: act?.cycle?.tracking ?? null,
        },
      );
      integral[i] = terms.integral;
      requested[i] = terms.output;
      setting[i] = Math.min(s.max, Math.max(0, terms.output));
    }
    for (let i = 0; i < n; i++) {
      const s = sides[i]!;
      const act = actuators[i];
      const lock = () => tryLock(token, String(i), now, () => true);
      const mutexed = act?.constraints.mutexed?.enabled ?? false;
      if (act) {
        const want = act.cycle
          ? act.cycle.step(now, setting[i]! / 100, s.pwmPeriod * 1000, act.history).want
          : setting[i]! > 0;
        const { on } = constrainedSwitch(act, act.constraints, want, now, lock, 1000);
        if (mutexed) {
          if (on && token.holder !== String(i)) lock();
          const offSince = on ? now : act.history[act.history.length - 1]!.t;
          refreshHold(token, String(i), on, offSince, (act.constraints.mutexed!.extraHoldTime ?? 0) * 1000, now);
        }
        delivered[i] = on ? (act.cycle ? 100 : setting[i]!) : 0;
      } else {
        delivered[i] = setting[i]!;
      }
    }
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const v = model.gains[i]! * lines[i]!.push(delivered[i]!);
      fast[i] = a[i]! * fast[i]! + (1 - a[i]!) * v;
      sum += fast[i]! - model.gains[i]! * hold[i]!;
    }
    // Deviations from the starting rest, where the offset cancels out.
    y = integrating ? y + sum * dt : b * y + (1 - b) * sum;
    const before = seen;
    seen = read(y);
    derivative = (seen - before) / dt;
    opts.trace?.(t + dt, y, delivered);
    const past = (y - step) * Math.sign(step);
    overshoot = Math.max(overshoot, past);
    if (Math.abs(y - step) > tolerance) lastOutside = t + dt;
    if (t >= horizon / 2) late = Math.max(late, Math.abs(y - step));
  }
  return { overshoot, settling: lastOutside >= horizon - dt / 2 ? null : lastOutside, late };
}

function actuatorFor(s: SideSetup, dt: number, on: boolean): Actuator | null {
  if (!s.constraints && s.pwmPeriod === 0) return null;
  const constraints = structuredClone(s.constraints ?? emptyConstraints());
  const cycle = s.pwmPeriod >= SIMULATED_PWM_STEPS * dt ? new PwmCycle() : null;
  const act: Actuator = { cycle, constraints, history: [], wanted: null, wantSince: 0 };
  // Long settled: the current state began well before the step.
  record(act.history, -3_600_000, on);
  return act;
}

function emptyConstraints(): DigitalConstraints {
  return {} as DigitalConstraints;
}

/** The outputs that hold the temperature at the starting setting (0 where a side is not needed). */
function equilibrium(model: PlantModel, sides: SideSetup[]): number[] {
  const out = sides.map(() => 0);
  // sum gains_i * u_i = -offset, by the side whose gain has the sign that gets there.
  const need = -model.offset;
  const i = sides.findIndex((_s, k) => model.gains[k]! !== 0 && Math.sign(model.gains[k]!) === Math.sign(need));
  if (i >= 0) out[i] = Math.min(sides[i]!.max, need / model.gains[i]!);
  return out;
}

class DelayLine {
  private readonly buffer: number[];
  private at = 0;

  constructor(seconds: number, dt: number, initial: number) {
    this.buffer = new Array(Math.max(0, Math.round(seconds / dt))).fill(initial);
  }

  push(v: number): number {
    if (!this.buffer.length) return v;
    const out = this.buffer[this.at]!;
    this.buffer[this.at] = v;
    this.at = (this.at + 1) % this.buffer.length;
    return out;
  }
}
