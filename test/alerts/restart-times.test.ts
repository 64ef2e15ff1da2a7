// Alerts across a real stop and start of the app over the same data dir (real SQLite), on a
// manual clock whose wall clock goes on through the stop as a real one does (restart-rig.ts):
// - a problem waiting out its `after` goes on from the time it had been seen, but not while its
//   condition is not known after the start (an external sensor waits its `timeout` for a first
//   write): that wait is no more part of the `after` than the time stopped was;
// - the alert it becomes says when the problem was really first seen (before the stop), not the
//   start less the time it had been seen.
import t from 'tap';
import { readingPending } from '../../src/runtime/types.js';
import { active, dataDir, open, pendingStored, put, SECOND, WALL } from './restart-rig.js';

t.test(
  'a pending sensor alert goes on after a restart from its first read, and keeps when it was first seen',
  async (t) => {
    const dir = dataDir(t);
    let s = await open(dir, WALL);
    t.teardown(() => s.close());
    t.equal(await put(s, 'alerts/rules', { sensorNull: { after: 120 }, resolveAfter: 15 }), 200);
    const created = await s.post('blocks/create', {
      id: 'Ext',
      type: 'TempSensorExternal',
      data: { timeout: { __objtype: 'Quantity', unit: 'second', value: 60 } },
    });
    t.equal(created.status, 201);
    // No write: pending for its 60 s timeout, then null. Seen null for 60 s of the 120 s `after`.
    let firstSeen: number | null = null;
    for (let i = 0; i < 125; i++) {
      await s.run(SECOND, 1000);
      if (firstSeen === null && !readingPending(s.app.runtime.find('Ext')!)) firstSeen = s.clock.wall()!;
    }
    t.ok(firstSeen !== null, 'the null seen');
    t.ok(
      pendingStored(s).some((p) => p.key.startsWith('sensor-null:')),
      'and stored as pending',
    );
    t.same(await active(s, 'sensor-null'), [], 'not fired before the stop');
    const stoppedAt = s.clock.wall()!;
    await s.close();

    // An hour later, the wall clock as a set clock shows it.
    s = await open(dir, stoppedAt + 3_600_000);
    await s.run(90 * SECOND, 1000);
    t.same(
      await active(s, 'sensor-null'),
      [],
      'not fired 90 s after the start: the 60 s before its first read is not part of the `after`',
    );
    await s.run(40 * SECOND, 1000);
    const [alert] = await active(s, 'sensor-null');
    t.ok(alert, 'fired once the rest of its `after` had been seen since its first read');
    t.equal(alert.count, 1);
    t.ok(
      Math.abs(alert.firstSeenAt - firstSeen!) <= 2 * SECOND,
      `first seen when it was, before the stop (${new Date(alert.firstSeenAt).toISOString()}, seen ${new Date(firstSeen!).toISOString()})`,
    );
    t.notOk(
      (await s.get('alerts')).body.history.some((h: any) => h.event === 'fired' && h.key !== alert.key),
      'nothing else fired',
    );
  },
);
