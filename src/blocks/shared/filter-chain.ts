// Low-pass filtering of setpoint sensor values (reference §6.2). Six stages, one per
// FilterChoice, each a cascade of SECTIONS equal first-order sections fed with the raw input at
// 1 Hz. A cascade of real poles has a smooth step response without overshoot (like the
// reference's Bessel filters). The stages run side by side rather than decimated one after the
// other: at 1 Hz that costs nothing, their delays do not add up, and reads need no interpolation.
//
// Step bypass: when the input differs from a stage's output by at least the threshold, the
// stage is reset to the input, so a real jump (a probe moved, a kettle filled) passes at once
// and does not show up as a long derivative spike.
import type { FilterChoiceName } from './enums.js';

export type FilterStage = Exclude<FilterChoiceName, 'FILTER_NONE'>;

/** Approximate -3 dB periods (s) of each choice, as in the reference system. */
export const FILTER_PERIODS: Record<FilterStage, number> = {
  FILTER_15s: 17,
  FILTER_45s: 57,
  FILTER_90s: 114,
  FILTER_3m: 228,
  FILTER_10m: 660,
  FILTER_30m: 2040,
};

export const FILTER_STAGES = Object.keys(FILTER_PERIODS) as FilterStage[];

const SECTIONS = 4;
/** A threshold of 0 means this (degC). */
export const DEFAULT_BYPASS_THRESHOLD = 5;

/** Time constant of each section so that the cascade is 3 dB down at `period`. */
function sectionTau(period: number): number {
  return Math.sqrt(2 ** (1 / SECTIONS) - 1) * (period / (2 * Math.PI));
}

/** Group delay (s) of a stage sampled every `sampleSeconds`: how far its output lags a ramp. */
export function filterDelay(choice: FilterChoiceName, sampleSeconds = 1): number {
  if (choice === 'FILTER_NONE') return 0;
  const keep = Math.exp(-sampleSeconds / sectionTau(FILTER_PERIODS[choice]));
  return (SECTIONS * sampleSeconds * keep) / (1 - keep);
}

class Stage {
  private readonly alpha: number;
  private readonly sections = new Array<number>(SECTIONS).fill(0);
  out = 0;
  previous = 0;

  constructor(period: number, sampleSeconds: number) {
    this.alpha = 1 - Math.exp(-sampleSeconds / sectionTau(period));
  }

  reset(value: number): void {
    this.sections.fill(value);
    this.out = this.previous = value;
  }

  push(value: number, bypass: number): void {
    if (Math.abs(value - this.out) >= bypass) {
      this.reset(value);
      return;
    }
    let x = value;
    for (let i = 0; i < SECTIONS; i++) {
      this.sections[i]! += this.alpha * (x - this.sections[i]!);
      x = this.sections[i]!;
    }
    this.previous = this.out;
    this.out = x;
  }
}

export class FilterChain {
  private readonly stages = new Map<FilterStage, Stage>();
  private raw: number | null = null;
  private lastRaw: number | null = null;

  constructor(private readonly sampleSeconds = 1) {
    for (const name of FILTER_STAGES) this.stages.set(name, new Stage(FILTER_PERIODS[name], sampleSeconds));
  }

  get seeded(): boolean {
    return this.raw !== null;
  }

  /** Restart every stage at `value` (no history, zero derivative). */
  reset(value: number): void {
    this.raw = this.lastRaw = value;
    for (const s of this.stages.values()) s.reset(value);
  }

  /** Add one sample. `threshold` (delta degC, 0 = 5) is the step that bypasses filtering. */
  push(value: number, threshold = 0): void {
    if (!this.seeded) this.reset(value);
    const bypass = threshold > 0 ? threshold : DEFAULT_BYPASS_THRESHOLD;
    this.lastRaw = this.raw;
    this.raw = value;
    for (const s of this.stages.values()) s.push(value, bypass);
  }

  read(choice: FilterChoiceName): number | null {
    if (this.raw === null) return null;
    if (choice === 'FILTER_NONE') return this.raw;
    return this.stages.get(choice)!.out;
  }

  /** Rate of change (degC per second) of a stage's output; FILTER_NONE gives the raw difference. */
  derivative(choice: FilterChoiceName): number | null {
    if (this.raw === null) return null;
    if (choice === 'FILTER_NONE') return (this.raw - (this.lastRaw ?? this.raw)) / this.sampleSeconds;
    const s = this.stages.get(choice)!;
    return (s.out - s.previous) / this.sampleSeconds;
  }
}
