// Issue 26: a flapping sensor (20 unplug/plug cycles) makes one alert with a count.
// Each cycle waits on the sim's 1-Wire poller in real time: a pulled probe reads null only once
// its last reading is stale (2 s past its next read) and a plugged one reads again at the next
// round (1 s cycle, 750 ms conversion), so the twenty cycles take some 80 s however fast the
// machine is. They were the second half of delivery.test.ts, which then took 102 s of tap's 120 s
// per file in a CI run (87 s of it these cycles) and timed out on a loaded machine.
// tags: slow (the built service, twenty real-time unplug/plug cycles)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { HttpReceiver, until } from './receivers.js';
import { beerSensor, FAST_ALERTS, plug, sensorValue, startService, writeConfig } from './sim-service.js';

t.test('a flapping sensor (20 unplug/plug cycles) makes one alert with a count', async (t) => {
  const http = new HttpReceiver();
  await http.start();
  t.teardown(() => http.stop());
  const cfg = writeConfig({
    webhook: { url: http.url('/hook') },
    ...FAST_ALERTS,
    rules: { sensorNull: { after: 2 }, resolveAfter: 6 },
  });
  const svc = await startService(cfg, t);
  const sensor = await beerSensor(svc.api, limit(15000));
  const key = `sensor-null:${sensor.nid}`;
  for (let i = 0; i < 20; i++) {
    await plug(svc.api, false);
    await until(`null in cycle ${i}`, limit(8000), async () => (await sensorValue(svc.api, sensor.id)) === null, 50);
    await plug(svc.api, true);
    await until(`a value in cycle ${i}`, limit(8000), async () => (await sensorValue(svc.api, sensor.id)) !== null, 50);
  }
  const resolved = await until('the one resolve', limit(15000), () =>
    http.json('/hook').find((m) => m.key === key && m.event === 'resolved'),
  );
  const mine = http.json('/hook').filter((m) => m.key === key);
  t.same(
    mine.map((m) => m.event),
    ['fired', 'resolved'],
    'one alert: fired once, resolved once',
  );
  t.ok(resolved.count >= 15, `the resolve counts the flaps (${resolved.count})`);
  t.match(resolved.message, `went bad ${resolved.count} times`);
});
