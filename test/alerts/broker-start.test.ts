// "Broker unreachable" after a real stop and start of the app over the same data dir
// (restart-rig.ts): the MQTT client is not connected at the first checks after a start, before it
// could be, and with most of the alert's `after` carried over the restart (pending-record.ts) that
// fired "unreachable" at every start. Not connected is unknown until the first try to connect
// since the start has ended; a try that fails goes on with the time carried over.
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { until } from './receivers.js';
import { active, dataDir, open, pendingStored, put, SECOND, WALL } from './restart-rig.js';

t.test('broker-unreachable carried over a restart waits for the first try to connect', async (t) => {
  const dir = dataDir(t);
  // A port nothing listens on: the broker is unreachable.
  const config = { mqttUrl: 'mqtt://127.0.0.1:9' };
  let s = await open(dir, WALL, config);
  t.teardown(() => s.close());
  t.equal(await put(s, 'alerts/rules', { service: { unreachableAfter: 60 }, resolveAfter: 15 }), 200);
  await s.app.mqtt.start();
  await until('the first try failed', limit(10_000), () => s.app.mqtt.status().lastError ?? undefined);
  await s.run(50 * SECOND, 1000);
  t.ok(
    pendingStored(s).some((p) => p.key === 'broker-unreachable'),
    'unreachable for 50 s of its 60, stored as pending',
  );
  const stoppedAt = s.clock.wall()!;
  await s.close();

  s = await open(dir, stoppedAt + 60_000, config);
  // The client not started yet (a start, before the connection could be made): 15 s of checks.
  await s.run(15 * SECOND, 1000);
  t.same(await active(s, 'broker-unreachable'), [], 'no alert before the first try to connect has ended');
  await s.app.mqtt.start();
  await until('the first try failed', limit(10_000), () => s.app.mqtt.status().lastError ?? undefined);
  await s.run(15 * SECOND, 1000);
  const [alert] = await active(s, 'broker-unreachable');
  t.ok(alert, 'still unreachable after the try: fires with the 50 s carried over');
});
