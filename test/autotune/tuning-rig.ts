// The emulated fermenter the tuning*.test.ts files tune (heat/cool pair on one setpoint, interlocked
// by a mutex), and the steps they take on it: start, command, run a tuning and watch both outputs.
import type { Test as Tap } from 'tap';
import { Fermenter } from '../helpers/fermenter.js';

export const gains = (f: Fermenter, id: string) => {
  const d = f.data(id);
  return { kp: d.kp, ti: d.ti, td: d.td };
};

export function fermenter(opts: { persistence?: Fermenter['persistence']; beer?: number } = {}): Fermenter {
  const beer = opts.beer ?? 20;
  return new Fermenter({
    setpoint: 20,
    stepMs: 1000,
    persistence: opts.persistence,
    plant: { ambient: 20, initial: { beer, air: beer } },
  });
}

export const start = (f: Fermenter, extra: Record<string, unknown> = {}) =>
  f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { tuning: { command: 'START', ...extra } } });
export const command = (f: Fermenter, c: string) =>
  f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { tuning: { command: c } } });
export const tuning = (f: Fermenter) => f.data('Heat PID').tuning;

/** The refusal of an APPLY of a result from a version that recorded no setup. */
export const NO_SETUP =
  'cannot apply: the result was proposed by an older version, which did not record the setup it was measured on, so it cannot be checked against the setup now; DISCARD and tune again';

/** Runs until the tuning is no longer RUNNING (or `hours` pass); watches both outputs. */
export async function runTuning(f: Fermenter, hours: number) {
  const seen = { both: 0, heat: 0, cool: 0, shortestHandover: Infinity, maxCycle: 0, computing: 0 };
  let lastOff: { which: 'heat' | 'cool'; t: number } | null = null;
  let prev = { heater: f.heaterOn, cooler: f.coolerOn };
  for (let h = 0; h < hours * 6 && tuning(f).state === 'RUNNING'; h++)
    await f.run(600, (s) => {
      if (s.heater && s.cooler) seen.both++;
      if (s.heater) seen.heat++;
      if (s.cooler) seen.cool++;
      if (prev.heater && !s.heater) lastOff = { which: 'heat', t: s.t };
      if (prev.cooler && !s.cooler) lastOff = { which: 'cool', t: s.t };
      const on = !prev.heater && s.heater ? 'heat' : !prev.cooler && s.cooler ? 'cool' : null;
      if (on && lastOff && lastOff.which !== on)
        seen.shortestHandover = Math.min(seen.shortestHandover, s.t - lastOff.t);
      prev = { heater: s.heater, cooler: s.cooler };
      seen.maxCycle = Math.max(seen.maxCycle, tuning(f).cycle ?? 0);
      if (tuning(f).state === 'RUNNING' && /computing the gains/.test(tuning(f).message)) seen.computing++;
    });
  return seen;
}

export async function tuneUntilRunningFor(t: Tap, f: Fermenter, seconds: number) {
  start(f);
  await f.run(seconds);
  t.equal(tuning(f).state, 'RUNNING', 'the tuning runs');
}
