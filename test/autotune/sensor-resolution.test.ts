// The step simulation that picks the gains (src/blocks/shared/autotune/closed-loop.ts) feeds the
// PID the temperature in the steps a DS18B20 reads it in, as on the plant: a loop that looks
// calm on an exact reading can swing on one step of a real one.
import t from 'tap';
import { simulateStep } from '../../src/blocks/shared/autotune/closed-loop.js';

// An integrator (degC/s per %), heated by a continuous output, under a P-only PID.
const model = { gains: [0.0005], offset: 0, tau1: Number.POSITIVE_INFINITY, lags: [60], deadTimes: [30] };
const sides = [{ params: { kp: 40, ti: 0, td: 0 }, max: 100, pwmPeriod: 0, constraints: null }];

function outputs(resolution?: number): number[] {
  const seen: number[] = [];
  simulateStep(model, sides, {
    step: 1,
    tolerance: 0.2,
    horizon: 4 * 3600,
    dt: 5,
    resolution,
    trace: (_t, _y, o) => seen.push(o[0]!),
  });
  return seen.filter((o) => o > 0 && o < 100);
}

const Q = 1 / 16;
/** The outputs that are not kp x (setting - a level of the reading); the old setting sits a quarter step above a level. */
const offGrid = (os: number[]) =>
  os.map((o) => o / (40 * Q)).filter((s) => Math.abs(s - 0.25 - Math.round(s - 0.25)) > 1e-6);

t.test('with a resolution, a P-only output moves in steps of kp times the resolution', async (t) => {
  const os = outputs(Q);
  t.ok(os.length > 10, `${os.length} unclipped outputs`);
  t.same(offGrid(os), [], 'every output is kp x (setting - a level of the reading)');
});

t.test('without one, the output follows the exact temperature', async (t) => {
  const os = outputs();
  t.ok(os.length > 10, `${os.length} unclipped outputs`);
  t.ok(offGrid(os).length > os.length / 2, 'most outputs fall between the steps');
});
