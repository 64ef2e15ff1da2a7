// `npm run bench:autotune`: the PID autotune on plants nobody tuned by hand. Ten fermenters in a
// fridge, ten kettles and ten glycol-jacketed conicals with seeded random parameters
// (scripts/bench/autotune-plants.ts) are each tuned from the quick start's gains, the result is
// applied, and a 2 degC setpoint step is watched; the same step is watched with the quick
// start's gains on the same plant. Everything runs in-process on a manual clock.
//
// Target per kind: the beer settles within +/-0.2 degC with an overshoot of at most 0.3 degC in
// at least 9 of 10 plants, and the tuned gains do no worse than the defaults on any plant.
// The run exits 1 when a target is missed. Options: --kind fermenter|kettle|conical (repeatable),
// --count N, --seed N, --plant I (repeatable: only the I-th plant of each kind, from 0), --docs (write the table into docs/autotune.md). `npm run bench` runs it too
// (--no-autotune skips it there).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  beerTimeConstant,
  plantCases,
  shortestRunDose,
  type Gains,
  type Kind,
  type PlantCase,
} from './bench/autotune-plants.js';
import { Rig } from './bench/autotune-rig.js';

const TOLERANCE = 0.2;
const MAX_OVERSHOOT = 0.3;
/** Tuned settling may be this much slower than the defaults' and still count as no worse. */
const SLOWER_SLACK = 1.1;
const OVERSHOOT_SLACK = 0.05;

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = path.join(ROOT, 'docs', 'autotune.md');
const BEGIN = '<!-- bench:autotune:begin -->';
const END = '<!-- bench:autotune:end -->';

export interface Step {
  /** Hours to stay within the tolerance for good; null: not settled by the end of the window. */
  settling: number | null;
  overshoot: number;
}

export interface Row {
  c: PlantCase;
  tuningHours: number | null;
  state: string;
  message: string;
  gains: { heat: Gains; cool: Gains | null } | null;
  /** The tuning's result as the block shows it. */
  result: Record<string, unknown> | null;
  defaults: Step;
  tuned: Step | null;
}

export const meets = (s: Step | null) => !!s && s.settling !== null && s.overshoot <= MAX_OVERSHOOT;

/** No worse than the defaults: settles when they do, not much slower, not more overshoot. */
export const noWorse = (r: Row): boolean => noWorseThan(r.defaults, r.tuned);

/** The same for any two steps on one plant: `t` against the defaults' `d`. */
export function noWorseThan(d: Step, t: Step | null): boolean {
  if (!t) return false;
  if (d.settling !== null && t.settling === null) return false;
  if (d.settling !== null && t.settling !== null && t.settling > d.settling * SLOWER_SLACK + 0.05) return false;
  return t.overshoot <= Math.max(d.overshoot + OVERSHOOT_SLACK, MAX_OVERSHOOT);
}

/** Steps the setting by the case's step and watches the beer for the case's window. */
export function watchStep(rig: Rig, c: PlantCase): Step {
  const target = c.setpoint + c.step;
  rig.patch('Setpoint', 'SetpointSensorPair', { storedSetting: target });
  const start = rig.time;
  let lastOutside = start;
  let overshoot = 0;
  rig.run(c.observe, (t) => {
    const beer = rig.plant.beer;
    overshoot = Math.max(overshoot, (beer - target) * Math.sign(c.step));
    if (Math.abs(beer - target) > TOLERANCE) lastOutside = t;
  });
  // Settled: inside the band for good, and for at least the last fifth of the window.
  const settled = lastOutside <= start + 0.8 * c.observe;
  return { settling: settled ? (lastOutside - start) / 3600 : null, overshoot };
}

/** A rig of the plant from its start through a tuning (to its end: a proposal or an abort). */
function tuned(c: PlantCase): { rig: Rig; started: number } {
  const rig = new Rig(c);
  rig.run(c.warmup);
  rig.patch('Heat PID', 'Pid', { tuning: { command: 'START', ...c.tuning } });
  const started = rig.time;
  rig.run(c.tuning.maxDuration + 3600, undefined, () => rig.data('Heat PID').tuning.state !== 'RUNNING');
  return { rig, started };
}

/**
 * The brewer's choice at the proposal, both ways: one rig applies the result, its twin (the same
 * plant through the same tuning: everything is seeded) discards it and goes on with the defaults.
 * Both settle, and both see the same step from the same history.
 */
export function benchCase(c: PlantCase): Row {
  const { rig, started } = tuned(c);
  const tu = rig.data('Heat PID').tuning;
  const row: Row = {
    c,
    tuningHours: tu.state === 'PROPOSED' ? (rig.time - started) / 3600 : null,
    state: tu.state,
    message: tu.message,
    gains: null,
    result: tu.result,
    defaults: { settling: null, overshoot: 0 },
    tuned: null,
  };
  if (tu.state !== 'PROPOSED') {
    rig.run(c.settle);
    row.defaults = watchStep(rig, c);
    return row;
  }
  const twin = tuned(c).rig;
  twin.patch('Heat PID', 'Pid', { tuning: { command: 'DISCARD' } });
  twin.run(c.settle);
  row.defaults = watchStep(twin, c);

  rig.patch('Heat PID', 'Pid', { tuning: { command: 'APPLY' } });
  const g = (id: string): Gains => ({ kp: rig.data(id).kp, ti: rig.data(id).ti, td: rig.data(id).td });
  row.gains = { heat: g('Heat PID'), cool: c.cool ? g('Cool PID') : null };
  rig.run(c.settle);
  row.tuned = watchStep(rig, c);
  return row;
}

const h = (v: number | null) => (v === null ? 'no' : `${v.toFixed(1)} h`);
const deg = (v: number) => `${v.toFixed(2)}`;
const gainText = (g: Gains) => `${Math.round(g.kp)} / ${Math.round(g.ti / 60)} min / ${Math.round(g.td / 60)} min`;

function table(rows: Row[]): string {
  const pulsed = rows.some((r) => shortestRunDose(r.c) !== null);
  const lines = [
    `| plant |${pulsed ? ' one compressor run °C |' : ''} step | tuning time | tuned kp / ti / td (heat; cool) | defaults: settled in, overshoot °C | tuned: settled in, overshoot °C | |`,
    `|---|${pulsed ? '---|' : ''}---|---|---|---|---|---|`,
  ];
  for (const r of rows) {
    const dose = shortestRunDose(r.c);
    const run = pulsed ? ` ${dose === null ? '—' : deg(dose)} |` : '';
    const gains = r.gains
      ? `${gainText(r.gains.heat)}${r.gains.cool ? `; ${gainText(r.gains.cool)}` : ''}`
      : `${r.state}: ${r.message}`;
    const tuned = r.tuned ? `${h(r.tuned.settling)}, ${deg(r.tuned.overshoot)}` : '—';
    const verdict = !r.tuned ? 'failed' : !meets(r.tuned) ? 'misses target' : noWorse(r) ? 'ok' : 'worse than defaults';
    lines.push(
      `| ${r.c.name} |${run} ${r.c.step > 0 ? '+' : ''}${r.c.step} °C | ${r.tuningHours === null ? '—' : `${r.tuningHours.toFixed(1)} h`} | ${gains} | ${h(r.defaults.settling)}, ${deg(r.defaults.overshoot)} | ${tuned} | ${verdict} |`,
    );
  }
  return lines.join('\n');
}

export interface KindSummary {
  kind: Kind;
  count: number;
  /** Plants whose tuned gains meet the target, and whose defaults do. */
  good: number;
  defaultsGood: number;
  /** Plants where the tuned gains did worse than the defaults (or the tuning failed). */
  worse: number;
  ok: boolean;
  text: string;
}

/** Runs the bench on `count` plants of each kind; `npm run bench` calls it too. */
export function autotuneBench(kinds: Kind[], count: number, seed: number, only?: number[]): KindSummary[] {
  const out: KindSummary[] = [];
  for (const kind of kinds) {
    const t0 = performance.now();
    // Each kind's plants come from its own seed, so a run of one kind sees the plants of a full run.
    const cases = plantCases(kind, count, seed + KINDS.indexOf(kind)).filter((_c, i) => !only || only.includes(i));
    const rows = cases.map((c) => {
      const r = benchCase(c);
      process.stderr.write(
        `${kind} ${c.name}: ${r.state} ${r.tuningHours?.toFixed(1) ?? '-'} h; defaults ${h(r.defaults.settling)}/${deg(r.defaults.overshoot)}; tuned ${r.tuned ? `${h(r.tuned.settling)}/${deg(r.tuned.overshoot)}` : r.message}\n`,
      );
      if (process.env.BENCH_VERBOSE) {
        const truth = beerTimeConstant(c);
        const fitted = r.result?.timeConstant;
        if (truth !== null && typeof fitted === 'number')
          process.stderr.write(
            `  slow time constant: fitted ${(fitted / 3600).toFixed(1)} h, the plant's ${(truth / 3600).toFixed(1)} h\n`,
          );
        process.stderr.write(`  ${JSON.stringify(r.result)}\n`);
      }
      return r;
    });
    const good = rows.filter((r) => meets(r.tuned)).length;
    const worse = rows.filter((r) => !noWorse(r)).length;
    const defaultsGood = rows.filter((r) => meets(r.defaults)).length;
    const ok = good >= Math.ceil(0.9 * rows.length) && worse === 0;
    const tuningTimes = rows.flatMap((r) => (r.tuningHours === null ? [] : [r.tuningHours]));
    const summary =
      `**${kind}**: tuned gains meet the target on ${good} of ${rows.length} plants (the defaults on ${defaultsGood}); ` +
      `worse than the defaults on ${worse}; tuning took ${tuningTimes.length ? `${Math.min(...tuningTimes).toFixed(1)}-${Math.max(...tuningTimes).toFixed(1)} h` : '—'}` +
      ` (bench ${((performance.now() - t0) / 1000).toFixed(0)} s). ${ok ? 'Target met.' : 'TARGET MISSED.'}`;
    out.push({ kind, count, good, defaultsGood, worse, ok, text: `${summary}\n\n${table(rows)}` });
  }
  return out;
}

/** A command-line option that must be a whole number (0, 1, ...). */
export function wholeNumber(option: string, value: string | undefined): number {
  if (!/^\d+$/.test(value ?? '')) throw new Error(`${option} ${value ?? ''}: a whole number`);
  return Number(value);
}

export interface BenchOptions {
  kinds: Kind[];
  count: number;
  seed: number;
  /** Only these plants of each kind (indexes from 0); all when undefined. */
  only?: number[];
  docs: boolean;
}

/** The command line, checked: an error names the option and what it takes. */
export function benchOptions(args: string[]): BenchOptions {
  const { values } = parseArgs({
    args,
    options: {
      kind: { type: 'string', multiple: true },
      count: { type: 'string', default: '10' },
      seed: { type: 'string', default: '49' },
      docs: { type: 'boolean', default: false },
      plant: { type: 'string', multiple: true },
    },
  });
  const kinds = (values.kind ?? KINDS) as Kind[];
  for (const k of kinds) if (!KINDS.includes(k)) throw new Error(`--kind ${k}: one of ${KINDS.join(', ')}`);
  const seed = wholeNumber('--seed', values.seed);
  const count = wholeNumber('--count', values.count);
  if (count < 1) throw new Error(`--count ${count}: 1 plant or more`);
  const only = values.plant?.map((p) => {
    const i = wholeNumber('--plant', p);
    if (i >= count) throw new Error(`--plant ${p}: an index from 0 to ${count - 1}`);
    return i;
  });
  if (values.docs && only) throw new Error('--docs writes the full run: drop --plant');
  return { kinds, count, seed, only, docs: values.docs ?? false };
}

function main(): void {
  const { kinds, count, seed, only, docs } = benchOptions(process.argv.slice(2));
  const results = autotuneBench(kinds, count, seed, only);
  for (const r of results) console.log(`\n${r.text}`);
  if (docs) {
    const doc = readFileSync(DOCS, 'utf8');
    const a = doc.indexOf(BEGIN);
    const b = doc.indexOf(END);
    if (a < 0 || b < a) throw new Error(`${DOCS} has no ${BEGIN} ... ${END} markers`);
    const stamp = `Run of ${new Date().toISOString().slice(0, 10)}, seed ${seed}:`;
    writeFileSync(
      DOCS,
      `${doc.slice(0, a + BEGIN.length)}\n${stamp}\n\n${results.map((r) => r.text).join('\n\n')}\n${doc.slice(b)}`,
    );
    console.log(`\nwritten into ${path.relative(ROOT, DOCS)}`);
  }
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}

export const KINDS: Kind[] = ['fermenter', 'kettle', 'conical'];

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
