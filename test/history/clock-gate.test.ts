// Issue 44 item 7: history runs forward only. Points measured while the clock is behind the
// newest stored time are held and stored at their measured time once a jump forward puts the
// clock right; after a clock set back they are dropped (counted) once it has caught up, or
// stored once it has stayed behind for an hour (set back for good); the hold is bounded.
import pino from 'pino';
import t from 'tap';
import { HistoryDrops } from '../../src/history/drops.js';
import { ClockGate } from '../../src/history/clock-gate.js';
import { ManualClock } from '../../src/runtime/clock.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 1);
const log = pino({ level: 'silent' });

function rig(highWater: number | null, maxHeld?: number) {
  const clock = new ManualClock(0, NOW);
  const written: Array<{ key: string; t: number }> = [];
  const gate = new ClockGate(
    { write: (key, _fields, t) => void written.push({ key, t }) },
    { wall: () => clock.wall()!, now: () => clock.now(), highWater: () => highWater },
    new HistoryDrops(log, { intervalMs: 60_000 }),
    maxHeld,
  );
  // Stamps are whole milliseconds (Date.now()), as the ingest gives them.
  const send = (key: string) => gate.write(key, [['v', 1]], Math.floor(clock.wall()!));
  return { clock, written, gate, send };
}

t.test('a clock that is right: every point passes at once, at its time', async (t) => {
  const { clock, written, send, gate } = rig(NOW - HOUR);
  for (let i = 0; i < 3; i++) {
    send(`k${i}`);
    clock.advance(5000);
  }
  t.same(
    written.map((w) => w.t),
    [NOW, NOW + 5000, NOW + 10_000],
  );
  t.match(gate.status(), { heldPoints: 0, held: 0, dropped: 0 });
});

t.test(
  'booted 6 months back: held, then stored at the measured times once the clock jumps to the present',
  async (t) => {
    const { clock, written, send, gate } = rig(NOW + 180 * DAY - HOUR);
    clock.advance(0.37); // performance.now() has fractions; the stores encode whole milliseconds
    for (let i = 0; i < 4; i++) {
      send('beer');
      clock.advance(5000);
    }
    t.same(written, [], 'nothing stored 6 months back');
    t.equal(gate.status().heldPoints, 4);
    clock.jumpWall(180 * DAY); // NTP
    send('beer');
    const present = NOW + 180 * DAY;
    t.same(
      written.map((w) => w.t),
      [present, present + 5000, present + 10_000, present + 15_000, present + 20_000],
      'the held points where they were measured on the corrected clock, then the new one',
    );
    t.ok(
      written.every((w) => Number.isInteger(w.t)),
      'in whole milliseconds',
    );
    t.match(gate.status(), { heldPoints: 0, held: 4, released: 4, dropped: 0 });
  },
);

t.test(
  'set back an hour: nothing is stored before the newest stored time; dropped once the clock catches up',
  async (t) => {
    const { clock, written, send, gate } = rig(null);
    send('beer');
    clock.advance(5000);
    send('beer');
    const newest = written.at(-1)!.t;
    clock.jumpWall(-HOUR);
    for (let i = 0; i < 9; i++) {
      clock.advance(6 * 60_000);
      send('beer');
    }
    t.equal(written.length, 2, 'an hour of points not stored under the hour already stored');
    clock.advance(7 * 60_000);
    send('beer');
    t.equal(written.length, 3, 'once past the newest stored time, points are stored again');
    t.ok(written[2]!.t >= newest, 'after it');
    t.match(gate.status(), { heldPoints: 0, dropped: 9 });
  },
);

t.test('the hold is bounded: the oldest points go first', async (t) => {
  const { clock, send, gate } = rig(NOW + DAY, 3);
  for (let i = 0; i < 5; i++) {
    send('beer');
    clock.advance(1000);
  }
  t.match(gate.status(), { heldPoints: 3, held: 5, dropped: 2 });
});

t.test(
  'set back a month (the clock ran fast): after an hour behind the newest stored time the clock is taken as right',
  async (t) => {
    const { clock, written, send, gate } = rig(null);
    send('beer');
    clock.jumpWall(-30 * DAY);
    for (let i = 0; i < 6; i++) {
      clock.advance(10 * 60_000);
      send('beer');
    }
    t.equal(written.length, 1, 'nothing stored under the newest stored time for the first hour');
    clock.advance(10 * 60_000);
    send('beer');
    t.equal(written.length, 8, 'then the points held meanwhile and the new one are stored, not a month later');
    t.same(
      written.slice(1).map((w) => w.t),
      Array.from({ length: 7 }, (_, i) => NOW - 30 * DAY + (i + 1) * 10 * 60_000),
      'each at its time on the corrected clock',
    );
    clock.advance(10 * 60_000);
    send('beer');
    t.equal(written.length, 9, 'and from then on as they come');
    t.match(gate.status(), { heldPoints: 0, dropped: 0 });
  },
);
