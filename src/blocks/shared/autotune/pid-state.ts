// What a tuning keeps on a Pid block besides its stored fields (fields.ts): the run, what its
// pair is asked, and the start of a sensor gap; and the link interface the tuning reads and
// writes of the block.
import type { Linked } from '../../../runtime/interfaces.js';
import type { UpdateContext } from '../../../runtime/types.js';
import type { Look } from './chain.js';
import type { TuningData } from './fields.js';
import type { TuneRun } from './run.js';

/** What a tuner asks of its pair each update. */
export interface PairDrive {
  /** The tuner's nid: a rename of it is no change (its id is looked up each update). */
  byNid: number;
  request: number;
  at: number;
}

export interface TuningVolatile {
  run: TuneRun | null;
  paired: PairDrive | null;
  /** START was written; the next update begins a fresh run (not a resumption). */
  starting: boolean;
  /** Monotonic ms since which the setpoint has had no value (null: it has one). */
  gapSince: number | null;
}

export const newTuningVolatile = (): TuningVolatile => ({ run: null, paired: null, starting: false, gapSince: null });

/** What a tuning reads and writes of a Pid block (the `Pid` link interface). */
export type PidData = {
  enabled: boolean;
  kp: number | null;
  ti: number | null;
  td: number | null;
  inputId: string | null;
  outputId: string | null;
  tuning: TuningData;
};
export type PidVolatile = { integral: number; requested: number | null; tuning: TuningVolatile };
export type TunedPid = Linked<'Pid'>;

export const lookOf = (ctx: UpdateContext): Look => ({ resolve: ctx.resolve, referrers: ctx.referrers });
