// `node dist/scripts/bench-autotune-choice.js [--seed N] [--runs K] [--plant I ...]`: how far a tuning
// could get on the fridges if its simulation were perfect. The emulated plant itself stands in for
// the simulation: each of a few gain sets around the quick start's is stepped 2 degC on it K
// times, with other noise from the probe and the step at other points of the compressor's cycle
// than the bench's own step. The set with the most good runs is picked, and then watched at the
// bench's own step beside the quick start's gains, as `npm run bench:autotune` judges a tuning.
// Nothing is tuned: this bounds what a better model could buy (docs/autotune.md). A draw of ten
// fridges takes some 8 minutes.
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { meets, noWorseThan, type Step, watchStep, wholeNumber } from './bench-autotune.js';
import { FRIDGE_DEFAULTS, type Gains, plantCases, type PlantCase } from './bench/autotune-plants.js';
import { Rig } from './bench/autotune-rig.js';

type Pair = { heat: Gains; cool: Gains };
const H = 3600;
const QUICK_START: Pair = { heat: FRIDGE_DEFAULTS.heat.gains, cool: FRIDGE_DEFAULTS.cool.gains };
const varied = (heat: Partial<Gains>, cool: Partial<Gains>): Pair => ({
  heat: { ...QUICK_START.heat, ...heat },
  cool: { ...QUICK_START.cool, ...cool },
});

/** The name of the quick start's set, the one a pick is measured against. */
export const QUICK = 'quick start';

/** The quick start's gains and six sets around them (the ones the grid of docs/autotune.md found on small fridges). */
export const CHOICES: Record<string, Pair> = {
  [QUICK]: QUICK_START,
  'no td': varied({ td: 0 }, { td: 0 }),
  'no cooler td': varied({}, { td: 0 }),
  'cooler kp halved, no cooler td': varied({}, { kp: QUICK_START.cool.kp / 2, td: 0 }),
  'cooler kp a quarter, ti 12 h, no td': varied(
    { ti: 12 * H, td: 0 },
    { kp: QUICK_START.heat.kp / -4, ti: 12 * H, td: 0 },
  ),
  'kp 50 both, ti 12 h, td 10 min': varied(
    { kp: QUICK_START.heat.kp / 2, ti: 12 * H, td: 600 },
    { kp: QUICK_START.cool.kp, ti: 12 * H, td: 600 },
  ),
  'cooler td 10 min': varied({}, { td: 600 }),
};

/** Minutes into the hold at which the stand-in's runs step (the bench's own step is at 0). */
const OFFSETS = [7, 19, 37, 53, 3, 41, 11, 29];
/** A run is good when it settles and overshoots at most this, degC (a margin below the target's 0.3). */
const GOOD_OVERSHOOT = 0.25;
/** Another set replaces the quick start's with as many good runs only when this much sooner on average. */
const CLEARLY_SOONER = 0.75;

export interface Score {
  good: number;
  /** Mean settling over the runs, h; a run that does not settle counts as the whole window. */
  meanHours: number;
}

/** The most good runs, then the soonest; the quick start's set stays unless another is clearly better. */
export function choose(scores: Record<string, Score>): string {
  const best = Object.entries(scores).reduce((a, b) =>
    b[1].good > a[1].good || (b[1].good === a[1].good && b[1].meanHours < a[1].meanHours) ? b : a,
  );
  const quick = scores[QUICK]!;
  if (quick.good >= best[1].good && best[1].meanHours > CLEARLY_SOONER * quick.meanHours) return QUICK;
  return best[0];
}

/** A step on the plant, held with `gains` from the start; `noiseSeed` null keeps the bench's own noise. */
export function stepWith(c: PlantCase, gains: Pair, noiseSeed: number | null, offsetMinutes: number): Step {
  const plant = c.plant as { sensor: Record<string, unknown> };
  const cc = noiseSeed === null ? c : { ...c, plant: { ...c.plant, sensor: { ...plant.sensor, seed: noiseSeed } } };
  const rig = new Rig(cc, gains);
  rig.run(c.warmup + c.settle + offsetMinutes * 60);
  return watchStep(rig, c);
}

function scoreOf(c: PlantCase, gains: Pair, runs: number, seedBase: number): Score {
  let good = 0;
  let hours = 0;
  for (let k = 0; k < runs; k++) {
    const s = stepWith(c, gains, seedBase + k, OFFSETS[k % OFFSETS.length]!);
    if (s.settling !== null && s.overshoot <= GOOD_OVERSHOOT) good++;
    hours += s.settling ?? c.observe / H;
  }
  return { good, meanHours: hours / runs };
}

const text = (s: Step) => `${s.settling === null ? 'no' : `${s.settling.toFixed(1)} h`}, ${s.overshoot.toFixed(2)}`;

function main(): void {
  const { values } = parseArgs({
    options: { seed: { type: 'string' }, runs: { type: 'string' }, plant: { type: 'string', multiple: true } },
  });
  const seed = wholeNumber('--seed', values.seed ?? '6001');
  const runs = wholeNumber('--runs', values.runs ?? '4');
  if (runs < 1) throw new Error('--runs 0: at least one run per set');
  const only = values.plant?.map((p) => wholeNumber('--plant', p));
  const cases = plantCases('fermenter', 10, seed);
  const missing = only?.find((i) => i >= cases.length);
  if (missing !== undefined) throw new Error(`--plant ${missing}: a draw has fridges 0-${cases.length - 1}`);
  let met = 0;
  let worse = 0;
  let quickMet = 0;
  cases.forEach((c, i) => {
    if (only && !only.includes(i)) return;
    // Noise seeds the draw's own plants never use (theirs are seed * 100 + i).
    const base = 900_000 + seed * 100 + i * 10;
    const scores = Object.fromEntries(Object.entries(CHOICES).map(([name, g]) => [name, scoreOf(c, g, runs, base)]));
    const pick = choose(scores);
    const quick = stepWith(c, QUICK_START, null, 0);
    const picked = pick === QUICK ? quick : stepWith(c, CHOICES[pick]!, null, 0);
    const ok = meets(picked);
    const noWorseThanQuick = noWorseThan(quick, picked);
    met += +ok;
    worse += +!noWorseThanQuick;
    quickMet += +meets(quick);
    const runsText = Object.entries(scores)
      .map(([name, s]) => `${name} ${s.good}/${runs} ${s.meanHours.toFixed(1)} h`)
      .join('; ');
    console.log(
      `${i} ${c.name} ${c.step > 0 ? '+' : ''}${c.step} degC: picked "${pick}" (${runsText})\n` +
        `    at the bench's step: quick start ${text(quick)}; picked ${text(picked)}` +
        `${ok ? '' : ', misses the target'}${noWorseThanQuick ? '' : ', worse than the quick start'}`,
    );
  });
  console.log(
    `seed ${seed}: the pick meets the target on ${met}, the quick start's gains on ${quickMet}; the pick is worse on ${worse}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
