// The choice of gains from a fitted model (src/blocks/shared/autotune/rule.ts), on the model the
// relay measured on a bench fridge (15 L, a heat wrap on the vessel, a compressor behind the
// chamber air on a 30-minute PWM, a mutex between them). There, the only SIMC candidate that kept
// its worst case within the overshoot margin was the most cautious one (kp -6, ti over a day on
// the cooler); it settled three times slower than the gains in use, which overshoot 0.3 degC in
// their worst case. A proposal must never be a change for the worse.
import t from 'tap';
import type { DigitalConstraints } from '../../src/blocks/shared/digital-constraints.js';
import { simulateStep } from '../../src/blocks/shared/autotune/closed-loop.js';
import { propose, RULE_TEXT_MAX, type SideInfo } from '../../src/blocks/shared/autotune/rule.js';
import { Pid } from '../../src/blocks/pid.js';
import type { Field, FieldTable } from '../../src/codec/fields.js';

const HOUR = 3600;
const constraints = (c: Record<string, unknown>) => structuredClone(c) as unknown as DigitalConstraints;
const mutex = (hold: number) => ({ enabled: true, mutexId: 'Mutex', extraHoldTime: hold });

const model = {
  gains: [17.473, -10.801],
  offset: -46.288,
  tau1: 828_471,
  lags: [45.5, 348.3],
  deadTimes: [0, 240],
};
// The fridge wizard's chain, on every bench fridge.
const sides: SideInfo[] = [
  { sign: 1, pwmPeriod: 10, max: 100, constraints: constraints({ mutexed: mutex(1200) }) },
  {
    sign: -1,
    pwmPeriod: 1800,
    max: 100,
    constraints: constraints({
      minOn: { enabled: true, duration: 120 },
      minOff: { enabled: true, duration: 300 },
      mutexed: mutex(2700),
    }),
  },
];
const inUse = [
  { kp: 100, ti: 6 * HOUR, td: 1800 },
  { kp: -50, ti: 6 * HOUR, td: 1800 },
];
const opts = { step: 2, tolerance: 0.2 };

t.test('the gains in use stay when no candidate beats them on the worse plants', async (t) => {
  const p = propose(model, sides, opts, inUse);
  t.ok(p.keepsCurrent, p.rule);
  t.same(p.params, inUse);
  t.match(p.rule, /the gains in use/);
});

t.test('without gains in use to compare with, the search still proposes SIMC gains', async (t) => {
  const p = propose(model, sides, opts);
  t.notOk(p.keepsCurrent);
  t.match(p.rule, /^SIMC/);
  t.ok(p.params[0]!.kp > 0 && p.params[1]!.kp < 0, 'the signs of the sides');
  // What it expects is what a simulation of its gains on the model shows.
  const integrator = { ...model, gains: model.gains.map((g) => g / model.tau1), offset: model.offset / model.tau1 };
  const run = (step: number) =>
    simulateStep(
      { ...integrator, tau1: Number.POSITIVE_INFINITY },
      sides.map((s, i) => ({ params: p.params[i]!, max: s.max, pwmPeriod: s.pwmPeriod, constraints: s.constraints })),
      { step, tolerance: 0.2, horizon: 48 * HOUR, dt: 30 },
    );
  const both = [run(2), run(-2)];
  t.ok(
    both.every((o) => o.settling !== null),
    'its steps settle on the model',
  );
});

t.test('a shape whose boldest lambda within the margin fails the worse plants tries its next lambda', async (t) => {
  // The model the relay measured on a bench kettle (20 L, 2.5 kW on a 2 s PWM, 36 s of dead time
  // and lag). In most shapes, the fastest lambda that kept the step on the model within 0.1 degC
  // overshot 0.3-0.7 degC on the plant with 30 % more gain and dead time. The search stopped
  // there, found no candidate that held on all the worse plants, and proposed the most sluggish
  // gains of all (kp 8, ti 2 h: 0.3 h to settle where the quick start's took 0.1 h).
  const kettle = { gains: [4.9509], offset: -41.092, tau1: 18214, lags: [19], deadTimes: [36] };
  const heater: SideInfo[] = [{ sign: 1, pwmPeriod: 2, max: 100, constraints: null }];
  const p = propose(kettle, heater, opts);
  t.ok(p.withinMargins, p.rule);
  t.ok(p.expected.settling !== null && p.expected.settling <= 600, `settles on the model in ${p.expected.settling} s`);
  t.ok(p.expected.overshoot <= 0.1 + 1e-9, `overshoot ${p.expected.overshoot.toFixed(3)} degC on the model`);
  t.ok(p.params[0]!.kp > 20, `kp ${p.params[0]!.kp.toFixed(1)}`);
});

t.test(
  'a kettle: the step on the model may overshoot 0.12 degC, where a PI on an integrator cannot do 0.1',
  async (t) => {
    // A bench kettle (39 L, 5.2 kW): on the integrator the relay sees, every shape's overshoot
    // levels off near 5 % of the step (0.1 degC) however slow lambda gets, so a margin of exactly
    // 0.1 left only a lambda 8 times the loop delay: 9 min to settle on the plant where the quick
    // start's gains took 4 (with 0.4 degC of overshoot).
    const kettle = { gains: [1.6652], offset: -11.652, tau1: 5533, lags: [9.69], deadTimes: [42] };
    const heater: SideInfo[] = [{ sign: 1, pwmPeriod: 2, max: 100, constraints: null }];
    const p = propose(kettle, heater, opts);
    t.ok(p.withinMargins, p.rule);
    t.ok(
      p.expected.settling !== null && p.expected.settling <= 300,
      `settles on the model in ${p.expected.settling} s`,
    );
    t.ok(p.expected.overshoot <= 0.12, `overshoot ${p.expected.overshoot.toFixed(3)} degC on the model`);
  },
);

t.test('a candidate that settles only at the end of the simulated window is not taken for robust', async (t) => {
  // A bench fridge (10 L, heater on the beer, compressor behind the air on a 30-minute PWM). A
  // candidate whose worst case got within 0.2 degC 31.9 h into a 32 h window counted as robust
  // and was proposed; on the plant it had not settled after a day.
  const fridge = { gains: [0.19815, -0.26446], offset: 2.3446, tau1: 8052, lags: [0, 963.6], deadTimes: [64, 64] };
  const p = propose(fridge, sides, opts);
  t.ok(
    p.expected.settling !== null && p.expected.settling <= 16 * HOUR,
    `expected to settle on the model in ${((p.expected.settling ?? Number.NaN) / HOUR).toFixed(1)} h (${p.rule})`,
  );
});

t.test('where no candidate meets the margins, gains in use that hold near the setting stay', async (t) => {
  // The model the relay measured on a bench fridge (11 L, a heat wrap on the vessel) stepping
  // 2 degC up to 0.5 degC below its room. There the beer needs less cooling than the compressor's
  // shortest run gives, and no candidate kept its step within the margins on the model. The
  // most cautious one was proposed all the same, and on the plant heat and cool took turns for
  // 16.7 h where the quick start's gains settled in 1.4 h.
  const fridge = { gains: [0.20867, -0.27075], offset: 0.99707, tau1: 10421, lags: [0, 858.5], deadTimes: [64, 64] };
  const fresh = propose(fridge, sides, opts);
  t.notOk(fresh.withinMargins, `no candidate met the margins: ${fresh.rule}`);

  const kept = propose(fridge, sides, opts, inUse);
  t.ok(kept.keepsCurrent, kept.rule);
  t.same(kept.params, inUse);
  t.match(kept.rule, /no SIMC candidate met the margins on the model; these hold near the setting/);
  t.ok(kept.expected.late <= 0.4 && kept.expected.overshoot <= 0.4, JSON.stringify(kept.expected));

  // Gains in use that overshoot more than a step may at all are no reason to give up.
  const bold = [
    { kp: 1000, ti: 600, td: 0 },
    { kp: -1000, ti: 600, td: 0 },
  ];
  const replaced = propose(fridge, sides, opts, bold);
  t.notOk(replaced.keepsCurrent, replaced.rule);
  t.same(replaced.params, fresh.params, 'the search proposes what it proposes without gains in use');
});

t.test('a candidate a few minutes sooner on the model does not replace the gains in use', async (t) => {
  // The model the relay measured on a bench fridge (28 L, the heater on the chamber air). The
  // best candidate settled the model's step in 1.6 h, the quick start's gains in 1.7 h, and the
  // candidate was proposed. On the plant its larger kp and td set heater and compressor pushing
  // against each other, and the beer had not settled after a day, where the defaults took 2.3 h.
  const fridge = {
    gains: [0.16328, -0.26044],
    offset: 2.6342,
    tau1: 23025,
    lags: [659.63, 751.18],
    deadTimes: [192, 0],
  };
  // As the tuning simulates: the PID reads the temperature in sixteenths, as a DS18B20 does.
  const sixteenths = { ...opts, resolution: 1 / 16 };
  const fresh = propose(fridge, sides, sixteenths);
  t.ok(fresh.withinMargins, fresh.rule);
  const kept = propose(fridge, sides, sixteenths, inUse);
  t.ok(kept.keepsCurrent, kept.rule);
  t.same(kept.params, inUse);
  t.ok(
    kept.expected.settling !== null &&
      fresh.expected.settling !== null &&
      fresh.expected.settling < kept.expected.settling &&
      fresh.expected.settling > 0.75 * kept.expected.settling,
    `the candidate settles sooner on the model, but not by a quarter: ${fresh.expected.settling} s against ${kept.expected.settling} s`,
  );
});

t.test('every rule text fits the field the block stores it in', async (t) => {
  // A proposal kept by the rule for plants where no candidate met the margins once carried a
  // 123-character text into a field of 120: the block stored it, and at the next start the whole
  // PID failed to load (kept aside as an undecodable record).
  const members = (field: Field | undefined): FieldTable => {
    if (field?.spec.kind !== 'object') throw new Error('not an object field');
    return field.spec.fields;
  };
  const rule = members(members(Pid.fields.tuning).result).rule!.spec;
  t.same(rule, { kind: 'string', maxLength: RULE_TEXT_MAX, default: '' }, 'the field takes its limit from the rule');
  const sixteenths = { ...opts, resolution: 1 / 16 };
  const cases = {
    'kept: no better on the worse plants': propose(model, sides, opts, inUse),
    'kept: holds near the setting': propose(
      { gains: [0.20867, -0.27075], offset: 0.99707, tau1: 10421, lags: [0, 858.5], deadTimes: [64, 64] },
      sides,
      opts,
      inUse,
    ),
    'kept: not a quarter sooner': propose(
      { gains: [0.16328, -0.26044], offset: 2.6342, tau1: 23025, lags: [659.63, 751.18], deadTimes: [192, 0] },
      sides,
      sixteenths,
      inUse,
    ),
    SIMC: propose(model, sides, opts),
  };
  const seen = new Set<string>();
  for (const [name, p] of Object.entries(cases)) {
    seen.add(p.rule.replace(/[\d.]+/g, '#'));
    t.ok(p.rule.length <= RULE_TEXT_MAX, `${name}: ${p.rule.length} characters: ${p.rule}`);
  }
  t.equal(seen.size, 3, 'each text was checked: both reasons to keep the gains in use, and SIMC');
});
