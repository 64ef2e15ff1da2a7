// The emission loop keeps a fixed cadence: 60 emissions at a 50 ms interval show no
// accumulated drift (each is scheduled from the start time, not from the previous one).
// tags: alone (the emission cadence measured on the real clock)
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { Recorder, topic, until, VARIANTS } from './fixtures.js';
import { limit } from '../helpers/limits.js';

const INTERVAL = 50;
const COUNT = 60;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

for (const variant of VARIANTS) {
  t.test(variant.name, async (t) => {
    const bus = await variant.setup();
    t.teardown(() => bus.close());
    const rt = await startApp({ ...bus.overrides, emitInterval: String(INTERVAL) });
    t.teardown(() => rt.close());
    await until(() => rt.app.mqtt.connected, 'the runtime to connect');
    const sub = await Recorder.connect(bus.brokerUrl(rt.app));
    t.teardown(() => sub.end());
    await sub.subscribe(topic('history'));
    await until(() => sub.messages.length >= COUNT + 1, `${COUNT + 1} history messages`, COUNT * INTERVAL * 3);
    // The first one may have been caught mid-subscription; measure the next COUNT.
    const at = sub.messages.slice(1, COUNT + 1).map((m) => m.at);
    const span = at[COUNT - 1]! - at[0]!;
    // Drift shows as offsets from the ideal schedule that grow with k. Their trend (the median
    // of all pairwise slopes, so single late deliveries on a busy machine do not count) times
    // 59 intervals is the accumulated drift.
    const offsets = at.map((x, k) => x - at[0]! - k * INTERVAL);
    const slopes: number[] = [];
    for (let i = 0; i < COUNT; i++)
      for (let j = i + 1; j < COUNT; j++) slopes.push((offsets[j]! - offsets[i]!) / (j - i));
    const drift = median(slopes) * (COUNT - 1);
    const spread = Math.max(...offsets) - Math.min(...offsets);
    t.ok(
      Math.abs(drift) < INTERVAL / 2,
      `trend over ${COUNT - 1} intervals: ${drift.toFixed(1)} ms (offsets spread ${spread.toFixed(0)} ms)`,
    );
    // A loose bound on the raw span too: one late last delivery on a loaded machine must not fail
    // it, while a scheduler that drifts by even 2 ms per run (118 ms here) would.
    t.ok(
      Math.abs(span - (COUNT - 1) * INTERVAL) < 2 * INTERVAL,
      `first to last: ${span.toFixed(0)} ms, ideal ${(COUNT - 1) * INTERVAL} ms`,
    );

    // The service reports how late its state messages went out; a stalled event loop shows.
    const emitted = () =>
      (
        rt.app.status().mqtt as {
          emitted: { state: number; lateMs: { p50: number; p99: number; max: number; samples: number } };
        }
      ).emitted;
    const before = emitted();
    t.ok(before.lateMs.samples >= COUNT, `lateness kept for every published cycle (${before.lateMs.samples})`);
    t.ok(
      before.lateMs.p50 >= 0 && before.lateMs.p50 <= before.lateMs.p99 && before.lateMs.p99 <= before.lateMs.max,
      `p50 ${before.lateMs.p50} <= p99 ${before.lateMs.p99} <= max ${before.lateMs.max}`,
    );
    t.ok(before.lateMs.max < limit(300), `no stall yet (max ${before.lateMs.max} ms)`);
    const stalledAt = performance.now();
    while (performance.now() - stalledAt < 400); // the control loop's process is busy: every timer waits
    await until(() => emitted().state > before.state + 1, 'an emission after the stall');
    t.ok(emitted().lateMs.max >= 300, `the stall shows as lateness (max ${emitted().lateMs.max} ms)`);
  });
}
