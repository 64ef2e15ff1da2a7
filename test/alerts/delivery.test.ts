// Issue 26: delivery you can rely on. A receiver that is down gets the alert when it comes
// back; a kill -9 while the alert waits in the outbox delivers it after the restart, once per
// id. (The flapping sensor is flapping.test.ts: twenty real unplug/plug cycles, a file of its own.)
// tags: slow (the built service killed and restarted, receivers down for a while)
import t from 'tap';
import { killAndWait } from '../helpers/children.js';
import { limit } from '../helpers/limits.js';
import { getJson } from './http.js';
import { HttpReceiver, until } from './receivers.js';
import { beerSensor, FAST_ALERTS, plug, startService, writeConfig } from './sim-service.js';

function perId(messages: any[]): Map<string, number> {
  const n = new Map<string, number>();
  for (const m of messages) n.set(m.id, (n.get(m.id) ?? 0) + 1);
  return n;
}

t.test(
  'a receiver that is down gets the alert when it comes back; kill -9 with a waiting alert delivers it once after the restart',
  async (t) => {
    const http = new HttpReceiver();
    await http.start();
    await http.stop(); // the port is known, nothing listens: the receiver is down
    t.teardown(() => http.stop());
    const cfg = writeConfig({
      webhook: { url: http.url('/hook') },
      ...FAST_ALERTS,
      rules: { sensorNull: { after: 1 }, resolveAfter: 1 },
    });
    let svc = await startService(cfg, t);
    const sensor = await beerSensor(svc.api, limit(15000));
    const key = `sensor-null:${sensor.nid}`;
    await plug(svc.api, false);
    await until('a failed delivery recorded', limit(10000), async () =>
      (await getJson(`${svc.api}/alerts`)).history.some((h: any) => h.event === 'failed' && h.key === key),
    );
    const pending = (await getJson(`${svc.api}/alerts`)).outbox.pending;
    t.ok(pending >= 1, `the alert waits in the outbox (${pending})`);

    // Down for a while: retries back off, nothing is lost.
    await new Promise((r) => setTimeout(r, 3000));
    await http.start();
    const fired = await until('the alert after the receiver came back', limit(5000), () =>
      http.json('/hook').find((m) => m.key === key && m.event === 'fired'),
    );
    t.equal(fired.blockId, sensor.id);
    await until('outbox empty', limit(5000), async () => (await getJson(`${svc.api}/alerts`)).outbox.pending === 0);

    // Down again; the resolve waits in the outbox when the service is killed.
    await http.stop();
    await plug(svc.api, true);
    await until(
      'the resolve waits in the outbox',
      limit(10000),
      async () => (await getJson(`${svc.api}/alerts`)).outbox.pending >= 1,
    );
    await killAndWait(svc.child, 'SIGKILL');
    await http.start();
    svc = await startService(cfg, t);
    const resolved = await until('the resolve after the restart', limit(10000), () =>
      http.json('/hook').find((m) => m.key === key && m.event === 'resolved'),
    );
    t.equal(resolved.blockId, sensor.id);
    const unclean = await until('the unclean stop alert', limit(10000), () =>
      http.json('/hook').find((m) => m.condition === 'unclean-stop'),
    );
    t.match(unclean.message, 'unclean stop');
    await until(
      'outbox empty after the restart',
      limit(5000),
      async () => (await getJson(`${svc.api}/alerts`)).outbox.pending === 0,
    );
    await new Promise((r) => setTimeout(r, limit(1500))); // late duplicates would arrive by now
    for (const [id, n] of perId(http.json('/hook'))) t.equal(n, 1, `message ${id} delivered once`);
    t.equal(
      http.json('/hook').filter((m) => m.key === key && m.event === 'fired').length,
      1,
      'one fired message for the pulled probe',
    );
  },
);
