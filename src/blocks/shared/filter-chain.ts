// Low-pass filtering of setpoint sensor values: one second-order low-pass (two cascaded
// first-order sections) per FilterChoice, fed at 1 Hz, with a step bypass so that large real
// jumps (a probe moved, a kettle filled) pass through at once instead of crawling.
import type { FilterChoiceName } from './enums.js';

/** Approximate -3 dB periods (s) of each choice, as in the reference system. */
export const FILTER_PERIODS: Record<Exclude<FilterChoiceName, 'FILTER_NONE'>, number> = {
  FILTER_15s: 17,
  FILTER_45s: 57,
  FILTER_90s: 114,
  FILTER_3m: 228,
  FILTER_10m: 660,
  FILTER_30m: 2040,
};

const SECOND_ORDER_FACTOR = Math.sqrt(Math.SQRT2 - 1);
const DEFAULT_THRESHOLD = 5;

interface Stage {
  alpha: number;
  a: number;
  b: number;
  previous: number;
}

export class FilterChain {
  private stages = new Map<FilterChoiceName, Stage>();
  private raw: number | null = null;
  private lastRaw: number | null = null;

  constructor(private sampleSeconds = 1) {
    for (const [name, period] of Object.entries(FILTER_PERIODS)) {
      const fc = 1 / period / SECOND_ORDER_FACTOR;
      const tau = 1 / (2 * Math.PI * fc);
      this.stages.set(name as FilterChoiceName, { alpha: 1 - Math.exp(-sampleSeconds / tau), a: NaN, b: NaN, previous: NaN });
    }
  }

  get seeded(): boolean {
    return this.raw !== null;
  }

  reset(value: number): void {
    this.raw = value;
    this.lastRaw = value;
    for (const s of this.stages.values()) s.a = s.b = s.previous = value;
  }

  /** Add one sample. `threshold` (delta degC, 0 = 5) is the step that bypasses filtering. */
  push(value: number, threshold: number): void {
    if (!this.seeded) this.reset(value);
    const bypass = threshold > 0 ? threshold : DEFAULT_THRESHOLD;
    this.lastRaw = this.raw;
    this.raw = value;
    for (const s of this.stages.values()) {
      s.previous = s.b;
      if (Math.abs(value - s.b) >= bypass) {
        s.a = s.b = s.previous = value;
        continue;
      }
      s.a += s.alpha * (value - s.a);
      s.b += s.alpha * (s.a - s.b);
    }
  }

  read(choice: FilterChoiceName): number | null {
    if (this.raw === null) return null;
    if (choice === 'FILTER_NONE') return this.raw;
    return this.stages.get(choice)!.b;
  }

  /** Rate of change (degC per second) of a filter stage's output. */
  derivative(choice: FilterChoiceName): number | null {
    if (this.raw === null) return null;
    if (choice === 'FILTER_NONE') return (this.raw - (this.lastRaw ?? this.raw)) / this.sampleSeconds;
    const s = this.stages.get(choice)!;
    return (s.b - s.previous) / this.sampleSeconds;
  }
}
