// Issue 44 item 7: a publisher's message rate is counted on the monotonic clock. Before, it was
// counted on the wall clock, and a clock set back an hour (NTP on a Pi) took its tokens away:
// every message of every other publisher was dropped as "rate" for an hour.
import t from 'tap';
import { HistoryDrops } from '../../src/history/drops.js';
import { ClockGate } from '../../src/history/clock-gate.js';
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

// A peer's message is stamped when it arrives and queued; the controller's own history is handed
// over as it is published, not queued. One published between the two went through the clock gate
// first, so the peer's points, stamped earlier, were behind the newest stored time and dropped as
// 'clock behind' ("the wall clock was set back") though the clock never moved. Seen in a quiet CI
// run of test/history/victoria-long-lines.test.ts (300 points of a peer dropped).
t.test('a peer’s queued message and the controller’s own published before it is ingested: both stored', async (t) => {
  const clock = new ManualClock(0, Date.UTC(2026, 10, 1));
  const stored: Array<{ key: string; t: number }> = [];
  const drops = new HistoryDrops(silentLogger, { intervalMs: 60_000, monotonic: () => clock.now() });
  const gate = new ClockGate(
    { write: (key, _fields, t) => void stored.push({ key, t }) },
    { wall: () => clock.wall()!, now: () => clock.now(), highWater: () => null },
    drops,
  );
  const ingest = new HistoryIngest({
    store: gate,
    now: () => clock.wall()!,
    monotonic: () => clock.now(),
    log: silentLogger,
    ownTopic: 'svc/history/edge-one',
    ownKey: 'edge-one',
    drops,
  });
  for (let i = 0; i < 3; i++) {
    clock.advance(200);
    ingest.handle('svc/history/other', Buffer.from(JSON.stringify({ key: 'other', data: { f: i } })));
    clock.advance(5);
    ingest.own({ key: 'edge-one', data: { 'Beer Sensor': { value: 20 + i } } }, 60);
    clock.advance(5);
    ingest.drain();
  }
  t.same(drops.points, {}, 'nothing dropped');
  t.same(
    stored.map((s) => s.key),
    ['other', 'edge-one', 'other', 'edge-one', 'other', 'edge-one'],
    'every message stored, in the order it came',
  );
  t.ok(
    stored.every((s, i) => i === 0 || s.t >= stored[i - 1]!.t),
    'each stored at its own time, in time order',
  );
});
