// The relay of an Åström–Hägglund autotune: the output is switched between two levels around
// the setting whenever the temperature leaves a hysteresis band (which keeps sensor noise from
// switching it), so the loop oscillates at about its critical period. A cycle runs from one
// switch to "up" (heat on, or cooling off) to the next.
//
// The levels start at full scale and are scaled down (or back up) after a cycle whose swing
// missed the brewer's amplitude, each side on its own for a heat/cool pair; the cycle after a
// change, and the first one (from wherever the temperature started), are warm-ups and do not
// count. The measurement is complete only when the last `cycles` counted cycles agree with each
// other in period and swing: a tuning never concludes from a transient or from noise.

export type Phase = 'up' | 'down';

export interface RelaySettings {
  /** The swing wanted around the setting, degC (each way). */
  amplitude: number;
  /** The band around the setting inside which the relay does not switch, degC (each way). */
  hysteresis: number;
  /** Consistent cycles needed. */
  cycles: number;
  /** A heat/cool pair: each phase has its own output and scale. */
  pair: boolean;
}

export interface Cycle {
  /** Monotonic ms of the switch to up that starts it, the switch to down, and the next switch to up. */
  start: number;
  turn: number;
  end: number;
  /** Highest and lowest temperature minus setting during the cycle, degC. */
  high: number;
  low: number;
  scale: { up: number; down: number };
  /** False for a warm-up cycle, and for a disturbed one. */
  counted: boolean;
  /**
   * The sensor went without a value for a notable part of the cycle, with the outputs off: the
   * cycle is not measured, but the counted cycles before it still stand.
   */
  disturbed?: true;
}

/** Periods may differ this much from their median, swings this much (or 0.07 degC). */
export const PERIOD_TOLERANCE = 0.15;
export const SWING_TOLERANCE = 0.2;
const SWING_FLOOR = 0.07;
const MIN_SCALE = 0.05;
export const MAX_ADAPTATIONS = 6;
/** A sensor gap longer than this share of the typical period disturbs the cycle it falls in. */
export const GAP_SHARE = 0.05;

export const period = (c: Cycle): number => c.end - c.start;
export const swing = (c: Cycle): number => (c.high - c.low) / 2;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export class Relay {
  phase: Phase;
  /** Since when the current phase runs (ms). */
  phaseSince: number;
  readonly scale: { up: number; down: number };
  readonly cycles: Cycle[] = [];
  adaptations = 0;
  /** The next completed cycle is a warm-up. */
  private warmup = true;
  /** The cycle under way had a notable sensor gap. */
  private disturbed = false;
  private cycleStart: number | null = null;
  private turn: number | null = null;
  private high = -Infinity;
  private low = Infinity;

  constructor(
    readonly settings: RelaySettings,
    now: number,
    error: number,
    scale: { up: number; down: number } = { up: 1, down: 1 },
  ) {
    this.phase = error > 0 ? 'down' : 'up';
    this.phaseSince = now;
    this.scale = { ...scale };
  }

  /** One sample of temperature minus setting. Returns the cycle it completed, if any. */
  step(now: number, error: number): Cycle | null {
    this.high = Math.max(this.high, error);
    this.low = Math.min(this.low, error);
    const h = this.settings.hysteresis;
    if (this.phase === 'up' && error > h) {
      this.phase = 'down';
      this.phaseSince = now;
      this.turn = now;
      return null;
    }
    if (this.phase !== 'down' || error >= -h) return null;
    this.phase = 'up';
    this.phaseSince = now;
    let done: Cycle | null = null;
    if (this.cycleStart !== null && this.turn !== null) {
      done = {
        start: this.cycleStart,
        turn: this.turn,
        end: now,
        high: this.high,
        low: this.low,
        scale: { ...this.scale },
        counted: !this.warmup && !this.disturbed,
        ...(this.disturbed ? { disturbed: true as const } : {}),
      };
      this.cycles.push(done);
      if (!this.disturbed) {
        this.warmup = false;
        this.adapt(done);
      }
      this.disturbed = false;
    }
    this.cycleStart = now;
    this.turn = null;
    this.high = error;
    this.low = error;
    return done;
  }

  /** Scale the levels toward the wanted swing; a change makes the next cycle a warm-up. */
  private adapt(c: Cycle): void {
    if (this.adaptations >= MAX_ADAPTATIONS) return;
    const { amplitude, hysteresis, pair } = this.settings;
    // The part of the swing past the switching point is what the level drives.
    const target = Math.max(amplitude - hysteresis, amplitude / 2);
    const over = { up: c.high - hysteresis, down: -c.low - hysteresis };
    const next = { ...this.scale };
    const rescale = (s: number, o: number) => {
      if (o <= target * 1.15 && (o >= target * 0.5 || s >= 1)) return s;
      const wanted = o > 0 ? (s * target) / o : 2 * s;
      return Math.max(MIN_SCALE, Math.min(1, 2 * s, Math.max(s / 4, wanted)));
    };
    if (pair) {
      next.up = rescale(this.scale.up, over.up);
      next.down = rescale(this.scale.down, over.down);
    } else {
      next.up = next.down = rescale(this.scale.up, Math.max(over.up, over.down));
    }
    if (Math.abs(next.up - this.scale.up) > 1e-9 || Math.abs(next.down - this.scale.down) > 1e-9) {
      this.scale.up = next.up;
      this.scale.down = next.down;
      this.adaptations++;
      this.warmup = true;
    }
  }

  /** Push harder on the current phase (the temperature does not come back); false at full scale. */
  push(now: number): boolean {
    const side = this.phase;
    if (this.scale[side] >= 1) return false;
    const s = Math.min(1, this.scale[side] * 2);
    if (this.settings.pair) this.scale[side] = s;
    else this.scale.up = this.scale.down = s;
    this.phaseSince = now;
    this.warmup = true;
    return true;
  }

  /**
   * The sensor went without a value for `ms`, the outputs off meanwhile: unless that is a small
   * part of a period, the cycle under way is not measured.
   */
  interrupted(ms: number): void {
    const typical = this.typicalPeriod();
    if (typical === null || ms > GAP_SHARE * typical) this.disturbed = true;
  }

  /** Counted cycles at the end with the current scales (disturbed ones left out), newest last. */
  counted(): Cycle[] {
    const out: Cycle[] = [];
    for (let i = this.cycles.length - 1; i >= 0; i--) {
      const c = this.cycles[i]!;
      if (c.disturbed) continue;
      if (!c.counted) break;
      out.unshift(c);
    }
    return out;
  }

  /** Completed cycles that were not disturbed. */
  measured(): Cycle[] {
    return this.cycles.filter((c) => !c.disturbed);
  }

  /** The last `cycles` counted cycles when they agree in period and swing, else null. */
  consistent(): Cycle[] | null {
    const n = this.settings.cycles;
    const tail = this.counted().slice(-n);
    if (tail.length < n) return null;
    const p = median(tail.map(period));
    const a = median(tail.map(swing));
    const ok = tail.every(
      (c) =>
        Math.abs(period(c) - p) <= PERIOD_TOLERANCE * p &&
        Math.abs(swing(c) - a) <= Math.max(SWING_TOLERANCE * a, SWING_FLOOR),
    );
    return ok ? tail : null;
  }

  /** The longest phase (ms) seen so far, or null before the first full cycle. */
  longestPhase(): number | null {
    if (!this.cycles.length) return null;
    return Math.max(...this.cycles.map((c) => Math.max(c.turn - c.start, c.end - c.turn)));
  }

  /** Cycles still to run (a warm-up included), or null before the first full cycle. */
  cyclesLeft(): number | null {
    if (!this.cycles.length) return null;
    const n = this.settings.cycles;
    const have = this.counted().length;
    // A full window that does not agree yet needs at least one more cycle.
    const left = have >= n ? (this.consistent() ? 0 : 1) : n - have;
    return left + (this.warmup || this.disturbed ? 1 : 0);
  }

  /** Median period of the recent cycles (ms), or null. */
  typicalPeriod(): number | null {
    const recent = this.measured().slice(-this.settings.cycles);
    return recent.length ? median(recent.map(period)) : null;
  }
}
