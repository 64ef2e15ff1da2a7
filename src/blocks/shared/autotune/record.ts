// What a tuning measures, sampled at a fixed interval: the temperature (as the PID sees it,
// relative to the setting) and the output each side actually delivered (%), averaged over each
// interval. Bounded: when it is full, neighbouring samples are merged and the interval doubles,
// so a two-day tuning holds as many samples as a two-hour one, at a coarser step.

export const MAX_SAMPLES = 4096;
const FIRST_INTERVAL_S = 2;

export class SampleRecord {
  /** Seconds per sample. */
  interval = FIRST_INTERVAL_S;
  /** Temperature minus setting, degC, per sample. */
  readonly error: number[] = [];
  /** Delivered output per side (%), per sample; side 0 is the tuned PID, side 1 its pair. */
  readonly outputs: number[][];
  /** Monotonic ms at the start of sample 0. */
  readonly start: number;
  private bucket = { seconds: 0, error: 0, outputs: [] as number[] };

  constructor(start: number, sides: number) {
    this.start = start;
    this.outputs = Array.from({ length: sides }, () => []);
    this.bucket.outputs = new Array(sides).fill(0);
  }

  get length(): number {
    return this.error.length;
  }

  /** Seconds since the start at the middle of sample `i`. */
  timeOf(i: number): number {
    return (i + 0.5) * this.interval;
  }

  /** The index of the sample that holds `t` (ms on the monotonic clock). */
  indexAt(t: number): number {
    return Math.floor((t - this.start) / 1000 / this.interval);
  }

  /**
   * `seconds` of `error` and delivered `outputs` (the averages over that time); with `from`, the
   * error moves linearly from it to `error` over those seconds.
   */
  add(seconds: number, error: number, outputs: readonly number[], from: number | null = null): void {
    let left = seconds;
    while (left > 0) {
      const take = Math.min(left, this.interval - this.bucket.seconds);
      const b = this.bucket;
      const mid = (seconds - left + take / 2) / seconds;
      b.seconds += take;
      b.error += (from === null ? error : from + (error - from) * mid) * take;
      for (let k = 0; k < b.outputs.length; k++) b.outputs[k]! += (outputs[k] ?? 0) * take;
      left -= take;
      if (b.seconds >= this.interval - 1e-9) this.close();
    }
  }

  private close(): void {
    const b = this.bucket;
    this.error.push(b.error / b.seconds);
    b.outputs.forEach((sum, k) => this.outputs[k]!.push(sum / b.seconds));
    this.bucket = { seconds: 0, error: 0, outputs: new Array(b.outputs.length).fill(0) };
    if (this.error.length >= MAX_SAMPLES) this.halve();
  }

  /** Merge neighbours: half the samples at twice the interval. */
  private halve(): void {
    const merge = (a: number[]) => {
      const n = Math.floor(a.length / 2);
      for (let i = 0; i < n; i++) a[i] = (a[2 * i]! + a[2 * i + 1]!) / 2;
      a.length = n;
    };
    merge(this.error);
    for (const o of this.outputs) merge(o);
    this.interval *= 2;
  }
}
