import t from 'tap';
import { FILTER_STAGES, FilterChain, filterDelay } from '../../src/blocks/shared/filter-chain.js';
import { link, setup } from './setup.js';

t.test('step response: smooth, no overshoot, slower stages respond later', async (t) => {
  const chain = new FilterChain();
  chain.reset(20);
  const halfway = new Map<string, number>();
  let outside = 0;
  let falling = 0;
  const last = new Map<string, number>();
  for (let s = 1; s <= 6000; s++) {
    chain.push(21, 5);
    for (const stage of FILTER_STAGES) {
      const v = chain.read(stage)!;
      if (v > 21 + 1e-9 || v < 20 - 1e-9) outside++;
      if (v < (last.get(stage) ?? 20) - 1e-12) falling++;
      last.set(stage, v);
      if (!halfway.has(stage) && v >= 20.5) halfway.set(stage, s);
    }
    if (s === 1) t.equal(chain.read('FILTER_NONE'), 21, 'FILTER_NONE is the raw value');
  }
  t.equal(outside, 0, 'no stage overshoots the step');
  t.equal(falling, 0, 'every stage rises monotonically');
  for (const stage of FILTER_STAGES)
    t.ok(Math.abs(chain.read(stage)! - 21) < 1e-6, `${stage} settles at the new value`);
  const times = FILTER_STAGES.map((s) => halfway.get(s)!);
  for (let i = 1; i < times.length; i++)
    t.ok(times[i]! > times[i - 1]!, `${FILTER_STAGES[i]} reaches half the step later (${times[i]} s)`);
  t.ok(times[0]! <= 10, `15s filter is at half the step within 10 s (${times[0]} s)`);
  t.ok(times[5]! >= 300 && times[5]! <= 900, `30m filter takes minutes (${times[5]} s)`);
  t.end();
});

t.test('a ramp: every stage follows with its group delay and reports the slope', async (t) => {
  const chain = new FilterChain();
  const slope = 0.001; // degC/s
  chain.reset(10);
  for (let s = 1; s <= 20000; s++) chain.push(10 + slope * s, 5);
  const input = 10 + slope * 20000;
  for (const stage of FILTER_STAGES) {
    const lag = (input - chain.read(stage)!) / slope;
    t.ok(
      Math.abs(lag - filterDelay(stage)) < 0.1 * filterDelay(stage) + 1,
      `${stage}: lag ${lag.toFixed(1)} s ~ delay ${filterDelay(stage).toFixed(1)} s`,
    );
    t.ok(Math.abs(chain.derivative(stage)! - slope) < 1e-6, `${stage}: derivative ${chain.derivative(stage)} = slope`);
  }
  t.end();
});

t.test('derivative of a quantised sensor: slow stages are smooth where the raw difference is noise', async (t) => {
  const chain = new FilterChain();
  const slope = 0.2 / 3600; // 0.2 degC/h, read in 1/16 degC steps
  const q = (v: number) => Math.round(v * 16) / 16;
  chain.reset(q(18));
  let rawMax = 0;
  let slowMaxErr = 0;
  let slowSignFlips = 0;
  let last = 0;
  for (let s = 1; s <= 6 * 3600; s++) {
    chain.push(q(18 + slope * s + 0.01 * Math.sin(s / 7)), 5);
    rawMax = Math.max(rawMax, Math.abs(chain.derivative('FILTER_NONE')!));
    if (s > 3600) {
      const d = chain.derivative('FILTER_30m')!;
      slowMaxErr = Math.max(slowMaxErr, Math.abs(d - slope));
      if (last !== 0 && Math.sign(d) !== Math.sign(last)) slowSignFlips++;
      last = d;
    }
  }
  t.ok(rawMax >= 0.0625, 'the raw derivative jumps a full sensor step per second');
  t.ok(
    slowMaxErr < slope,
    `30m derivative stays within the slope (max error ${(slowMaxErr * 3600).toFixed(3)} degC/h)`,
  );
  t.equal(slowSignFlips, 0, '30m derivative never changes sign on a steady rise');
  t.end();
});

t.test('step bypass: a jump beyond the threshold passes at once, without a derivative spike', async (t) => {
  const chain = new FilterChain();
  chain.reset(20);
  for (let s = 0; s < 100; s++) chain.push(20, 2);
  chain.push(65, 2);
  for (const stage of FILTER_STAGES) {
    t.equal(chain.read(stage), 65, `${stage} jumps to the new value`);
    t.equal(chain.derivative(stage), 0, `${stage} derivative is 0 after the bypass`);
  }
  chain.push(66, 2);
  t.ok(chain.read('FILTER_30m')! < 65.1, 'a step below the threshold is filtered');
  // Threshold 0 means 5 degC: a 4 degC step is filtered, a 6 degC step passes.
  const c2 = new FilterChain();
  c2.reset(20);
  c2.push(24, 0);
  t.ok(c2.read('FILTER_3m')! < 21, '4 degC step filtered with the default threshold');
  c2.push(30, 0);
  t.equal(c2.read('FILTER_3m'), 30, '6 degC jump bypasses with the default threshold');
  t.end();
});

t.test('SetpointSensorPair: 1 Hz sampling, re-seed, value null within 2 s of the sensor', async (t) => {
  const s = setup();
  s.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  s.create('sp', 'SetpointSensorPair', {
    sensorId: link('sensor'),
    storedSetting: 21,
    filter: 'FILTER_3m',
    enabled: true,
  });
  await s.run(10_000);
  t.equal(s.data('sp').value, 20);
  t.equal(s.data('sp').setting, 21);
  // Many writes (forced updates) within one second must not feed the filter extra samples.
  s.patch('sensor', 'TempSensorExternal', { setting: 21 });
  await s.run(1000);
  const afterOneSample = s.data('sp').value;
  const chain = (s.block('sp').state as { filter: FilterChain }).filter;
  for (let i = 0; i < 20; i++) s.patch('sp', 'SetpointSensorPair', { storedSetting: 21 + i / 100 });
  t.equal(chain.read('FILTER_3m'), afterOneSample, 'writes do not push filter samples');
  t.equal(s.data('sp').valueUnfiltered, 21);
  // Sensor gone: the filtered value rides through one failed sample, then goes null.
  s.patch('sensor', 'TempSensorExternal', { enabled: false });
  await s.run(1000);
  t.not(s.data('sp').value, null, 'value held over a single failed sample');
  t.equal(s.data('sp').valueUnfiltered, null);
  await s.run(1000);
  t.equal(s.data('sp').value, null, 'value null within 2 s of the sensor going null');
  // Back: re-seeded from the first reading, no slow crawl from the old value.
  s.patch('sensor', 'TempSensorExternal', { enabled: true, setting: 30 });
  await s.run(1000);
  t.equal(s.data('sp').value, 30, 're-seeded at the current reading');
  t.equal(chain.derivative('FILTER_3m'), 0, 'no derivative spike after re-seeding');
  // resetFilter restarts the filter at the current reading.
  s.patch('sensor', 'TempSensorExternal', { setting: 31 });
  await s.run(2000);
  t.ok(s.data('sp').value < 31);
  s.patch('sp', 'SetpointSensorPair', { resetFilter: true });
  t.equal(s.data('sp').value, 31, 'resetFilter takes the raw value at once');
  t.equal(s.data('sp').resetFilter, false, 'resetFilter is a one-shot command');
  t.end();
});
