// One run of the relay: the relay itself, what it recorded, and the output levels it asks of the
// tuned PID and its pair (tuner.ts drives it from the PID's update, conclusion.ts takes over once
// its cycles agree).
import type { Search } from './conclusion.js';
import { SampleRecord } from './record.js';
import type { Relay } from './relay.js';

export class TuneRun {
  readonly record: SampleRecord;
  lastT: number | null = null;
  /** Temperature minus setting at lastT. */
  lastError: number | null = null;
  /** ms without a value in the gaps of this run that have ended. */
  gapMs = 0;
  /** Set once the cycles agree: the relay runs on while the gains are computed. */
  search: Search | null = null;

  constructor(
    readonly relay: Relay,
    readonly sides: number,
    readonly sign: 1 | -1,
    /** The pair's id (followed through a rename) and nid, which identifies it. */
    public pairId: string | null,
    readonly pairNid: number | null,
    readonly setting: number,
    readonly bias: number,
    readonly max: number,
    /** Monotonic ms when this run (or its resumption) began, and the seconds tuned before it. */
    readonly since: number,
    readonly before: number,
  ) {
    this.record = new SampleRecord(since, sides);
  }

  elapsed(now: number): number {
    return this.before + (now - this.since) / 1000;
  }

  /** Outputs (%) of the tuned PID and its pair in the relay's current phase. */
  outputs(): { self: number; pair: number } {
    const { scale, phase } = this.relay;
    if (this.sides === 1) {
      const hi = this.bias + scale.up * (this.max - this.bias);
      const lo = this.bias * (1 - scale.up);
      const rise = this.sign > 0 ? hi : lo;
      const fall = this.sign > 0 ? lo : hi;
      return { self: phase === 'up' ? rise : fall, pair: 0 };
    }
    const heat = phase === 'up' ? this.max * scale.up : 0;
    const cool = phase === 'down' ? this.max * scale.down : 0;
    return this.sign > 0 ? { self: heat, pair: cool } : { self: cool, pair: heat };
  }

  /** The levels as the block shows them: the output while the temperature is to rise, and to fall. */
  levels(): { up: number; down: number } {
    const { scale } = this.relay;
    if (this.sides === 2) return { up: this.max * scale.up, down: this.max * scale.down };
    const hi = this.bias + scale.up * (this.max - this.bias);
    const lo = this.bias * (1 - scale.up);
    return this.sign > 0 ? { up: hi, down: lo } : { up: lo, down: hi };
  }
}
