import t from 'tap';
import { f } from '../../src/codec/fields.js';
import { defineBlock } from '../../src/runtime/types.js';
import { runFor } from '../../src/runtime/loop.js';
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
  runtime.create({ id: 's', type: 'TempSensorMock', data: { setting: 20, fluctuations: [{ amplitude: 1, period: 3600 }] } });
  runtime.create({ id: 'sp', type: 'SetpointSensorPair', data: { enabled: true, storedSetting: 20, 'sensorId<>': 's', filter: 'FILTER_NONE' } });
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
