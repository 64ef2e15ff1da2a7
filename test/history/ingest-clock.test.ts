// Issue 44 item 7: a publisher's message rate is counted on the monotonic clock. Before, it was
// counted on the wall clock, and a clock set back an hour (NTP on a Pi) took its tokens away:
// every message of every other publisher was dropped as "rate" for an hour.
import t from 'tap';
import { HistoryDrops } from '../../src/history/drops.js';
import { HistoryIngest } from '../../src/history/ingest.js';
import { silentLogger } from '../../src/log.js';
import { ManualClock } from '../../src/runtime/clock.js';

t.test('a wall clock set back an hour does not stop a publisher', async (t) => {
  const clock = new ManualClock(0, Date.UTC(2026, 10, 1));
  const stamps: number[] = [];
  const drops = new HistoryDrops(silentLogger, { intervalMs: 60_000, monotonic: () => clock.now() });
  const ingest = new HistoryIngest({
    store: { write: (_key, _fields, t) => void stamps.push(t) },
    now: () => clock.wall()!,
    monotonic: () => clock.now(),
    log: silentLogger,
    ownTopic: 'svc/history/edge-one',
    drops,
  });
  const send = () =>
    ingest.handle('svc/history/tilt', Buffer.from(JSON.stringify({ key: 'tilt', data: { sg: 1.05 } })));
  for (let i = 0; i < 10; i++) {
    clock.advance(500);
    send();
    ingest.drain();
  }
  clock.jumpWall(-3_600_000);
  for (let i = 0; i < 20; i++) {
    clock.advance(500);
    send();
    ingest.drain();
  }
  t.same(drops.points, {}, 'no point dropped (the rate counted on the monotonic clock)');
  t.same(drops.messages, {}, 'no message refused');
  t.equal(stamps.length, 30, 'every message handed on, stamped by the wall clock');
});
