// A model of the plant from the relay data: second order plus dead time (SOPDT) per side,
//
//   temperature - setting = offset + sum over sides of gain_i * G_i(output_i delayed by deadTime_i)
//   G_i = 1 / ((tau1 s + 1)(lag_i s + 1))
//
// in the outputs each side actually delivered (so the waits of minimum on/off times and a mutex
// are not mistaken for the plant's own dead time). A fermenter's beer behind its chamber air is
// exactly this shape: tau1 the beer (hours, shared), lag_i the air a heater or cooler works on
// (minutes; none for a heat wrap on the vessel), the dead time the probe, its filter and how heat
// gets around. For each (tau1, lags, dead times) the gains and the offset are a linear
// least-squares problem (plus terms for the unknown state the plant was in when the recording
// began). A coarse grid with one lag and dead time for all sides comes first; then each side's,
// and tau1, are refined in turn on finer grids.
import { Gram } from './lsq.js';

export interface ModelFit {
  /** degC of steady-state change per % of output, per side (signed: heating > 0). */
  gains: number[];
  /** Where the temperature settles with every output at 0, relative to the setting, degC. */
  offset: number;
  /** The slow lag shared by every side, s. */
  tau1: number;
  /** Per side: the fast lag (0: none) and the dead time, s. */
  lags: number[];
  deadTimes: number[];
  /** Root mean square of the residual (degC) and the share of the variance the model explains. */
  rmse: number;
  explained: number;
}

export interface FitInput {
  /** Temperature minus setting per sample, degC. */
  error: readonly number[];
  /** Delivered output per side per sample, %. */
  outputs: readonly (readonly number[])[];
  /** Seconds per sample. */
  interval: number;
  /** First sample the fit is judged on (the ones before only bring the model's state along). */
  from: number;
  /** The relay's period, s: sets the ranges searched. */
  period: number;
  /**
   * The sign each side's gain must have (+1 heats, -1 cools): a periodic relay signal also fits
   * half a period later with the signs flipped, which is never the plant.
   */
  signs: readonly number[];
}

/** Samples the fit works on at most (longer records are averaged down first). */
const MAX_FIT_SAMPLES = 1200;

interface Shape {
  tau1: number;
  lags: number[];
  shifts: number[];
}

interface Candidate extends Shape {
  sse: number;
  beta: number[];
}

export function fitModel(input: FitInput): ModelFit | null {
  const q = Math.max(1, Math.ceil(input.error.length / MAX_FIT_SAMPLES));
  const y = average(input.error, q);
  const used = input.outputs.map((o) => o.some((v) => v !== 0));
  const sides = input.outputs.filter((_o, i) => used[i]).map((o) => average(o, q));
  const signs = input.signs.filter((_s, i) => used[i]);
  const dt = input.interval * q;
  const from = Math.floor(input.from / q);
  const n = y.length;
  const m = sides.length;
  if (n - from < 20 || !m) return null;

  const p = input.period;
  // Under a relay the period is at least four dead times (an integrator with dead time and no
  // hysteresis oscillates at exactly four).
  const maxShift = Math.max(1, Math.min(Math.round((0.25 * p) / dt), Math.floor((n - from) / 3)));
  const cache = new Map<string, Float64Array>();
  const responseOf = (i: number, tau1: number, lag: number) => {
    const key = `${i}:${tau1}:${lag}`;
    let r = cache.get(key);
    if (!r) {
      if (cache.size > 4000) cache.clear();
      cache.set(key, (r = response(sides[i]!, dt, tau1, lag)));
    }
    return r;
  };
  let best: Candidate | null = null;
  const tryShape = (shape: Shape) => {
    if (shape.lags.some((l) => l > shape.tau1)) return;
    const responses = shape.lags.map((lag, i) => responseOf(i, shape.tau1, lag));
    const c = solveAt(y, responses, dt, shape, from);
    if (!c || signs.some((sg, i) => Math.sign(c.beta[i]!) !== sg)) return;
    if (!best || c.sse < best.sse) best = c;
  };
  const same = <T>(v: T) => Array.from({ length: m }, () => v);

  for (const tau1 of geometric(2 * p, 400 * p, 12))
    for (const lag of [0, ...geometric(Math.max(dt, p / 60), p, 8)])
      for (const shift of spread(0, maxShift, 16)) tryShape({ tau1, lags: same(lag), shifts: same(shift) });
  if (!best) return null;

  // Refine: each side's lag and dead time, then tau1, on grids that get finer each round.
  let step = { tau: 2, shift: Math.max(1, Math.round(maxShift / 8)) };
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < m; i++) {
      const around: Candidate = best!;
      const lag = around.lags[i]!;
      const lagList =
        lag === 0
          ? [0, Math.max(dt, p / 120), p / 30]
          : [0, lag / step.tau, lag / Math.sqrt(step.tau), lag, lag * Math.sqrt(step.tau), lag * step.tau];
      const sh = around.shifts[i]!;
      const shiftList = spread(Math.max(0, sh - step.shift), Math.min(maxShift, sh + step.shift), 7);
      for (const l of lagList)
        for (const s of shiftList)
          tryShape({
            tau1: around.tau1,
            lags: around.lags.map((x, k) => (k === i ? l : x)),
            shifts: around.shifts.map((x, k) => (k === i ? s : x)),
          });
    }
    const around: Candidate = best!;
    for (const f of [1 / step.tau, 1 / Math.sqrt(step.tau), Math.sqrt(step.tau), step.tau])
      tryShape({ tau1: around.tau1 * f, lags: around.lags, shifts: around.shifts });
    step = { tau: Math.sqrt(step.tau), shift: Math.max(1, Math.ceil(step.shift / 2)) };
  }
  const b: Candidate = best!;
  let mean = 0;
  for (let k = from; k < n; k++) mean += y[k]!;
  mean /= n - from;
  let variance = 0;
  for (let k = from; k < n; k++) variance += (y[k]! - mean) ** 2;
  const gains: number[] = [];
  const lags: number[] = [];
  const deadTimes: number[] = [];
  let s = 0;
  for (const u of used) {
    gains.push(u ? b.beta[s]! : 0);
    lags.push(u ? b.lags[s]! : 0);
    deadTimes.push(u ? b.shifts[s]! * dt : 0);
    if (u) s++;
  }
  return {
    gains,
    offset: b.beta[m]!,
    tau1: b.tau1,
    lags,
    deadTimes,
    rmse: Math.sqrt(b.sse / (n - from)),
    explained: variance > 0 ? 1 - b.sse / variance : 0,
  };
}

/** The plant's response G to `u` (held over each sample) from rest. */
function response(u: readonly number[], dt: number, tau1: number, tau2: number): Float64Array {
  const out = new Float64Array(u.length);
  const a = tau2 > 0 ? Math.exp(-dt / tau2) : 0;
  const b = Math.exp(-dt / tau1);
  let fast = 0;
  let slow = 0;
  for (let k = 0; k < u.length; k++) {
    // The value at the middle of sample k, from the states at its start.
    out[k] = slow;
    const nextFast = tau2 > 0 ? a * fast + (1 - a) * u[k]! : u[k]!;
    slow = b * slow + (1 - b) * (tau2 > 0 ? (fast + nextFast) / 2 : nextFast);
    fast = nextFast;
  }
  return out;
}

function solveAt(
  y: readonly number[],
  responses: Float64Array[],
  dt: number,
  shape: Shape,
  from: number,
): Candidate | null {
  const m = responses.length;
  // The decay of the state the plant was in when the recording began: the slow lag's and each fast one's.
  const decays = [shape.tau1, ...new Set(shape.lags.filter((l) => l > 0))].map((tau) => Math.exp(-dt / tau));
  const size = m + 1 + decays.length;
  const g = new Gram(size);
  const x = new Float64Array(size);
  const level = decays.map((d) => d ** from);
  for (let k = from; k < y.length; k++) {
    for (let i = 0; i < m; i++) {
      const shift = shape.shifts[i]!;
      x[i] = k >= shift ? responses[i]![k - shift]! : 0;
    }
    x[m] = 1;
    for (let j = 0; j < decays.length; j++) {
      x[m + 1 + j] = level[j]!;
      level[j]! *= decays[j]!;
    }
    g.add(x, y[k]!);
  }
  const r = g.solve();
  return r ? { ...shape, sse: r.sse, beta: r.beta } : null;
}

function average(values: readonly number[], q: number): number[] {
  if (q === 1) return [...values];
  const out: number[] = [];
  for (let i = 0; i + q <= values.length; i += q) {
    let s = 0;
    for (let j = 0; j < q; j++) s += values[i + j]!;
    out.push(s / q);
  }
  return out;
}

function geometric(lo: number, hi: number, count: number): number[] {
  if (hi <= lo) return [lo];
  const r = (hi / lo) ** (1 / (count - 1));
  return Array.from({ length: count }, (_, i) => lo * r ** i);
}

function spread(lo: number, hi: number, count: number): number[] {
  if (hi <= lo) return [lo];
  const out = new Set<number>();
  for (let i = 0; i < count; i++) out.add(Math.round(lo + ((hi - lo) * i) / Math.max(1, count - 1)));
  return [...out];
}
