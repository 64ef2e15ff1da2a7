import t from 'tap';
import { f } from '../../src/codec/fields.js';
import { defineBlock } from '../../src/runtime/types.js';
import { runFor } from '../../src/runtime/loop.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { nextBeat, nextInterval } from '../../src/blocks/shared/cadence.js';
import { testRuntime } from '../helpers/runtime.js';
import { limit } from '../helpers/limits.js';

// A probe type that records when it ran, reads an input link and drives an output link.
const runs: string[] = [];
const Probe = defineBlock({
  type: 'Probe',
  role: 'controller',
  fields: {
    input: f.link('Probe', { stored: true }),
    output: f.link('Probe', { stored: true, drives: true }),
    interval: f.number({ stored: true, default: 1000 }),
    count: f.number({ readonly: true, default: 0 }),
  },
  implements: [],
  update(block, ctx) {
    runs.push(`${block.id}@${ctx.now}`);
    block.data.count = (block.data.count ?? 0) + 1;
    return ctx.now + (block.data.interval ?? 1000);
  },
});

t.test('due blocks run in dependency order: inputs first, drivers before their targets', async (t) => {
  const { runtime, clock } = testRuntime({ extraTypes: [Probe] });
  // Created in an order opposite to the data flow: actuator, then the chain feeding it.
  runtime.create({ id: 'act', type: 'Probe', data: {} });
  runtime.create({ id: 'pid', type: 'Probe', data: { 'output<>': 'act', 'input<>': 'act' } });
  runtime.write({ id: 'pid', type: 'Probe', data: { 'output<>': 'act' } });
  runtime.create({ id: 'sensor', type: 'Probe', data: {} });
  runtime.patch({ id: 'pid', type: 'Probe', data: { 'input<>': 'sensor' } });
  runs.length = 0;
  clock.advance(1000);
  runtime.tick();
  const order = runs.map((r) => r.split('@')[0]);
  t.ok(order.indexOf('sensor') < order.indexOf('pid'), `sensor before pid: ${order}`);
  t.ok(order.indexOf('pid') < order.indexOf('act'), `pid before its driven output: ${order}`);
});

t.test('each block runs when due; a write forces an immediate update', async (t) => {
  const { runtime, clock } = testRuntime({ extraTypes: [Probe] });
  runtime.create({ id: 'fast', type: 'Probe', data: { interval: 100 } });
  runtime.create({ id: 'slow', type: 'Probe', data: { interval: 5000 } });
  const before = (id: string) => runtime.find(id)!.data.count as number;
  const fast0 = before('fast');
  const slow0 = before('slow');
  await runFor(runtime, clock, 10_000, 50);
  t.equal(before('fast') - fast0, 100, 'fast ran every 100 ms');
  t.equal(before('slow') - slow0, 2, 'slow ran every 5 s');
  const c = before('slow');
  runtime.patch({ id: 'slow', type: 'Probe', data: { interval: 5000 } });
  t.equal(before('slow'), c + 1, 'the write ran the block at once');
});

t.test('hours of control run in milliseconds with a manual clock', async (t) => {
  const { runtime, clock } = testRuntime();
  runtime.create({
    id: 's',
    type: 'TempSensorMock',
    data: { setting: 20, fluctuations: [{ amplitude: 1, period: 3600 }] },
  });
  runtime.create({
    id: 'sp',
    type: 'SetpointSensorPair',
    data: { enabled: true, storedSetting: 20, 'sensorId<>': 's', filter: 'FILTER_NONE' },
  });
  const started = Date.now();
  let max = -Infinity;
  await runFor(runtime, clock, 6 * 3600 * 1000, 1000, [
    () => {
      const v = (runtime.find('sp')!.data.value as number | null) ?? -Infinity;
      max = Math.max(max, v);
    },
  ]);
  t.ok(Date.now() - started < limit(5000), 'six simulated hours in under 5 s of wall time');
  t.ok(Math.abs(max - 21) < 0.01, `the hourly fluctuation peaks at 21 degC (saw ${max})`);
});

t.test('a failing update does not stop the loop', async (t) => {
  const Broken = defineBlock({
    type: 'Broken',
    role: 'system',
    fields: {},
    implements: [],
    update() {
      throw new Error('boom');
    },
  });
  const { runtime, clock } = testRuntime({ extraTypes: [Probe, Broken] });
  runtime.create({ id: 'broken', type: 'Broken', data: {} });
  runtime.create({ id: 'ok', type: 'Probe', data: { interval: 100 } });
  const c = runtime.find('ok')!.data.count as number;
  await runFor(runtime, clock, 1000, 100);
  t.equal((runtime.find('ok')!.data.count as number) - c, 10);
});

t.test(
  'blocks that refresh every second share one beat: one step a second, however late steps run and whenever a block started',
  async (t) => {
    const { runtime, clock } = testRuntime({ clock: new ManualClock(20_437.5) });
    for (let i = 0; i < 3; i++) {
      runtime.create({
        id: `s${i}`,
        type: 'TempSensorMock',
        data: { setting: 20, fluctuations: [{ amplitude: 0.5, period: 600 }] },
      });
      runtime.create({
        id: `p${i}`,
        type: 'SetpointSensorPair',
        data: { enabled: true, storedSetting: 20, sensorId: { __objtype: 'Link', id: `s${i}` } },
      });
    }
    // Steps as a busy real loop runs them: each one late by a different amount, a block created
    // mid-second and one woken by a write. (With `now + 1000` each late step shifted the
    // sensors' phase for good, while the pairs kept theirs: two wake-ups a second.)
    const late = [13, 31, 7, 2, 44, 0, 19, 28];
    for (const [k, ms] of late.entries()) {
      clock.set(runtime.nextDue() + ms);
      runtime.tick();
      if (k === 2) runtime.create({ id: 'late', type: 'TempSensorMock', data: { setting: 18 } });
      if (k === 4) runtime.patch({ id: 'p1', type: 'SetpointSensorPair', data: { storedSetting: 19 } });
    }
    const due = new Set(
      runtime
        .blocks()
        .map((b) => b.nextUpdate)
        .filter(Number.isFinite),
    );
    t.same(
      [...due],
      [Math.ceil(clock.now() / 1000) * 1000],
      `every block is due on the same whole second (${[...due].join(', ')})`,
    );
    const steps: number[] = [];
    for (let i = 0; i < 5; i++) {
      const next = runtime.nextDue();
      steps.push(next);
      clock.set(next + 3);
      runtime.tick();
    }
    t.same(
      steps.map((s, i) => s - steps[0]!),
      [0, 1000, 2000, 3000, 4000],
      'and from then on one step a second',
    );
  },
);

t.test('nextBeat: the next multiple of the interval, strictly after now', async (t) => {
  t.equal(nextBeat(0, 1000), 1000);
  t.equal(nextBeat(999.9, 1000), 1000);
  t.equal(nextBeat(1000, 1000), 2000, 'a block run on its beat is due a whole interval later');
  t.equal(nextBeat(1043.2, 1000), 2000, 'a late run keeps the beat');
  t.equal(nextBeat(1043.2, 200), 1200);
  t.equal(nextInterval(-Infinity, 1043.2, 1000), 2000, 'a first run of a catch-up cadence starts on the beat');
  t.equal(nextInterval(2000, 2013, 1000), 3000);
});
