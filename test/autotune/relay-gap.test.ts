// A sensor gap during a tuning: the cycle it falls in is not measured when the gap is a notable
// part of a period (the outputs were off meanwhile, so its period and swing are not the plant's),
// the counted cycles before it still stand, and the record takes the temperature across the gap
// as moving straight from the last reading to the next, not as flat at the next.
import t from 'tap';
import { plantCases } from '../../scripts/bench/autotune-plants.js';
import { Rig } from '../../scripts/bench/autotune-rig.js';
import { SampleRecord } from '../../src/blocks/shared/autotune/record.js';
import { GAP_SHARE, Relay } from '../../src/blocks/shared/autotune/relay.js';

const MIN = 60_000;
const PERIOD = 20 * MIN;
const settings = { amplitude: 0.5, hysteresis: 0.05, cycles: 3, pair: true };

/**
 * A relay on a swing of +/-`amplitude` degC with a 20 min period, driven from `from` to `to`
 * (minutes). Cycles complete 20 s after each 20th minute, from minute 40 on; the first is a warm-up.
 */
function drive(relay: Relay, from: number, to: number, amplitude = 0.5): void {
  for (let t = from * MIN; t < to * MIN; t += 1000) relay.step(t, -amplitude * Math.sin((2 * Math.PI * t) / PERIOD));
}

t.test('a gap over its share of a period: that cycle is not measured, the ones before still count', async (t) => {
  const relay = new Relay(settings, 0, -0.1);
  drive(relay, 0, 85);
  t.equal(relay.counted().length, 2, 'two counted cycles before the gap');
  t.equal(relay.consistent(), null, 'not yet enough for a result');
  relay.interrupted(2 * GAP_SHARE * PERIOD);
  t.equal(relay.cyclesLeft(), 2, 'the cycle under way no longer counts: two to go');
  drive(relay, 85, 105);
  const disturbed = relay.cycles.filter((c) => c.disturbed);
  t.equal(disturbed.length, 1, 'that cycle is marked');
  t.equal(disturbed[0]!.counted, false);
  t.equal(relay.counted().length, 2, 'the counted cycles before it still stand');
  t.equal(relay.measured().length, relay.cycles.length - 1);
  t.equal(relay.consistent(), null);
  drive(relay, 105, 125);
  const tail = relay.consistent();
  t.ok(tail, 'the next clean cycle completes the measurement');
  t.notOk(
    tail!.some((c) => c.disturbed),
    'from cycles that were all measured',
  );
});

t.test('a gap that is a small part of a period leaves the cycle counted', async (t) => {
  const relay = new Relay(settings, 0, -0.1);
  drive(relay, 0, 85);
  relay.interrupted(0.5 * GAP_SHARE * PERIOD);
  drive(relay, 85, 105);
  t.equal(relay.cycles.filter((c) => c.disturbed).length, 0);
  t.ok(relay.consistent(), 'three counted cycles agree');
});

t.test('a disturbed cycle does not rescale the outputs', async (t) => {
  const relay = new Relay(settings, 0, -0.1);
  drive(relay, 0, 45);
  const scale = { ...relay.scale };
  // A swing of 2 degC would call for much lower levels, were it measured.
  relay.interrupted(10 * MIN);
  drive(relay, 45, 65, 2);
  t.equal(relay.cycles.filter((c) => c.disturbed).length, 1);
  t.same(relay.scale, scale, 'levels unchanged');
  t.equal(relay.adaptations, 0);
  drive(relay, 65, 85, 2);
  t.equal(relay.adaptations, 1, 'the same swing, measured, does rescale them');
});

t.test('the record takes the temperature across a gap as a straight line', async (t) => {
  const ramp = new SampleRecord(0, 1);
  ramp.add(2, 0.1, [0]);
  // 60 s without a reading, then 0.7: the samples in between rise from 0.1 to 0.7.
  ramp.add(60, 0.7, [0], 0.1);
  const across = ramp.error.slice(1, 31);
  t.equal(across.length, 30);
  t.ok(across[0]! > 0.1 && across[0]! < 0.15, `first sample ${across[0]} just above the last reading`);
  t.ok(across[29]! > 0.65 && across[29]! < 0.7, `last sample ${across[29]} just below the new reading`);
  t.ok(
    across.every((e, i) => i === 0 || e > across[i - 1]!),
    'rising all the way',
  );
  const mean = across.reduce((a, b) => a + b, 0) / across.length;
  t.ok(Math.abs(mean - 0.4) < 1e-9, `the mean is the line's (${mean})`);
  const flat = new SampleRecord(0, 1);
  flat.add(2, 0.1, [0]);
  flat.add(60, 0.7, [0]);
  t.same(new Set(flat.error.slice(1, 31)), new Set([0.7]), 'without a start, a span is flat as before');
});

t.test(
  'on a kettle, whose cycles last minutes, a 55 s gap puts its cycle aside and the tuning still concludes',
  async (t) => {
    const c = plantCases('kettle', 1, 50)[0]!;
    const rig = new Rig(c);
    rig.run(c.warmup);
    rig.patch('Heat PID', 'Pid', { tuning: { command: 'START', ...c.tuning } });
    const relay = () =>
      (rig.runtime.find('Heat PID')!.state as { tuning: { run: { relay: Relay } | null } }).tuning.run?.relay ?? null;
    rig.run(c.tuning.maxDuration, undefined, () => (relay()?.counted().length ?? 0) >= 1);
    const period = relay()!.typicalPeriod()!;
    t.ok(
      50_000 > GAP_SHARE * period,
      `a gap of 50 s or more is over ${GAP_SHARE * 100} % of the ${Math.round(period / 1000)} s period`,
    );
    const counted = relay()!.counted().length;
    rig.patch('Probe', 'TempSensorMock', { connected: false });
    rig.run(55);
    rig.patch('Probe', 'TempSensorMock', { connected: true });
    rig.run(c.tuning.maxDuration, undefined, () => relay() === null || relay()!.cycles.some((x) => x.disturbed));
    t.equal(relay()!.cycles.filter((x) => x.disturbed).length, 1, 'the cycle with the gap is put aside');
    t.ok(relay()!.counted().length >= counted, 'the cycles counted before it still count');
    rig.run(c.tuning.maxDuration, undefined, () => rig.data('Heat PID').tuning.state !== 'RUNNING');
    const tu = rig.data('Heat PID').tuning;
    t.equal(tu.state, 'PROPOSED', tu.message);
    t.ok(tu.result.kp > 0, `gains proposed (kp ${tu.result.kp})`);
  },
);
