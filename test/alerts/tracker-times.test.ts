// Issue 44 items 3 and 7, in process: the tracker counts on the monotonic clock; a condition not
// known yet (a sensor before its first read) is neither bad nor clear; an alert stored by an
// earlier run keeps counting from when it began, and a clock behind that run gives no negative gap.
import t from 'tap';
import { alertMessage } from '../../src/alerts/messages.js';
import { fromWall, toWall } from '../../src/alerts/times.js';
import { PendingStore } from '../../src/alerts/pending-record.js';
import { Tracker } from '../../src/alerts/tracker.js';
import { tempDatabase } from '../helpers/temp-database.js';
import type { ActiveAlert, AlertEventKind, Observation } from '../../src/alerts/types.js';

const obs: Observation = {
  key: 'sensor-null:101',
  kind: 'sensor-null',
  blockId: 'Beer',
  after: 5,
  tolerateGaps: true,
  text: 'Beer reads no value',
};

function tracker(load: ActiveAlert[] = [], remindMs = 4 * 3_600_000) {
  const events: Array<[AlertEventKind, ActiveAlert]> = [];
  const tr = new Tracker({
    remindMs: () => remindMs,
    load: () => load,
    save: () => undefined,
    remove: () => undefined,
    emit: (e, a) => events.push([e, { ...a }]),
  });
  return { tr, events };
}

t.test('unknown keys: no streak starts, an active alert neither resolves nor counts a flap', async (t) => {
  const { tr, events } = tracker();
  const unknown = new Set([obs.key]);
  for (let now = 0; now <= 20_000; now += 1000) tr.update([], now, 2000, unknown);
  tr.update([obs], 21_000, 2000);
  tr.update([obs], 25_000, 2000);
  t.same(events, [], 'the wait before the first read is not part of the streak');
  tr.update([obs], 26_000, 2000);
  t.equal(events[0]?.[0], 'fired', 'fired 5 s after it was first seen bad');
  t.equal(events[0]?.[1].count, 1);
  for (let now = 27_000; now <= 60_000; now += 1000) tr.update([], now, 2000, unknown);
  t.equal(events.length, 1, 'unknown again (a restart): not resolved');
  tr.update([], 61_000, 2000);
  tr.update([], 63_000, 2000);
  t.equal(events[1]?.[0], 'resolved', 'resolved once known clear for resolveAfter');
  const m = alertMessage('edge-one', 'resolved', events[1]![1], 63_000, Date.UTC(2026, 10, 1));
  t.match(m.message, /Back to normal after 42s/, 'counted from when it began (21 s), not from the start');
});

t.test('a stored alert on the next run: counts from when it began; a clock behind gives no gap', async (t) => {
  const W = Date.UTC(2026, 10, 1, 12);
  const stored: ActiveAlert = {
    ...obs,
    firstSeenAt: W - 120_000,
    lastSeenAt: W - 10_000,
    firedAt: W - 115_000,
    lastNotifiedAt: W - 115_000,
    count: 1,
    acknowledged: false,
  };
  const right = { now: () => 5000, wall: () => W };
  const a = fromWall(stored, right);
  t.equal(a.firstSeenAt, 5000 - 120_000, 'began 2 min ago on this run clock');
  t.same(toWall(a, right), stored, 'and back to the same wall times');
  const behind = { now: () => 5000, wall: () => W - 180 * 86_400_000 };
  const b = fromWall(stored, behind);
  t.equal(b.lastSeenAt, 5000, 'last seen: now (the gap is not known)');
  t.equal(b.firstSeenAt, 5000 - 110_000, 'began as long before that as it was when stored');
  t.ok(toWall(b, behind).firstSeenAt <= behind.wall(), 'never in the future');
});

t.test('reminders come every remindMs on the monotonic clock until the alert is acknowledged', async (t) => {
  const REMIND = 15 * 60_000; // the shortest the rules allow (0.25 h)
  const { tr, events } = tracker([], REMIND);
  const step = 60_000;
  let now = 0;
  for (; now <= 5000; now += 1000) tr.update([obs], now, 2000);
  t.equal(events.at(-1)?.[0], 'fired');
  const firedAt = now - 1000;
  for (; now <= firedAt + 3 * REMIND + step; now += step) tr.update([obs], now, 2000);
  const reminders = events.filter(([e]) => e === 'reminder');
  t.equal(reminders.length, 3, 'three reminders in three intervals');
  t.ok(tr.acknowledge(obs.key), 'acknowledged');
  for (const end = now + 3 * REMIND; now <= end; now += step) tr.update([obs], now, 2000);
  t.equal(events.filter(([e]) => e === 'reminder').length, 3, 'no reminder after the acknowledge');
});

t.test(
  'a problem waiting out its `after` keeps the time it was seen across a restart; the time stopped does not count',
  async (t) => {
    // SQLite rows of a real database; each run a new monotonic clock from 0, as after a boot.
    const { db } = tempDatabase(t, 'edgeblocks-pending-');
    const MIN = 60_000;
    const hour = { ...obs, after: 3600 };
    const run = () => {
      let at = 0;
      const store = new PendingStore(
        db,
        // No wall clock (not set): the time stopped shows nowhere.
        { now: () => at, wall: () => null },
        () => false,
        (p) => t.fail(p),
      );
      const events: AlertEventKind[] = [];
      const tr = new Tracker({
        remindMs: () => 4 * 3_600_000,
        load: () => [],
        save: () => undefined,
        remove: () => undefined,
        emit: (e) => events.push(e),
        pending: { load: () => store.load(), save: (s, r, now) => store.save(s, r, now) },
      });
      /** The problem seen each minute of this run from `from` up to `to`: the minute it fires, or null. */
      const untilFired = (to = 120, from = 0) => {
        for (let m = from; m <= to; m++) {
          at = m * MIN;
          tr.update([hour], at, 2000);
          if (events.includes('fired')) return m;
        }
        return null;
      };
      /** The problem cleared for a minute, then the service stopped cleanly. */
      const clearedAndStopped = () => {
        at += MIN;
        tr.update([], at, 2 * MIN);
        tr.savePending(at);
      };
      return { untilFired, clearedAndStopped, tr };
    };

    t.equal(run().untilFired(50), null, '50 min of the hour, then killed (no stop: the last save stands)');
    t.equal(run().untilFired(), 10, 'fires 10 min into the next run, not 60');
    // A crash loop: runs of 20 min, each killed. It fires in the third (20 + 20 + 20 min); each run
    // started the hour over before, and it never fired.
    const firedIn = [1, 2, 3, 4].map(() => run().untilFired(20));
    t.same(firedIn, [null, null, 20, null], 'a controller crash-looping faster than the `after` still tells of it');

    // A problem that cleared before the stop is not one the next run goes on with, beyond resolveAfter.
    const first = run();
    t.equal(first.untilFired(30), null);
    first.clearedAndStopped();
    const second = run();
    second.tr.update([], 2 * MIN, 2 * MIN); // clear for resolveAfter, counted across the stop: the streak ends
    t.equal(second.untilFired(62, 3), null, 'a new problem after it takes its whole hour');
    t.equal(second.untilFired(63, 63), 63, 'and fires at its end');
  },
);

// How long an alert has been active (its reminder's "Active for", its resolve's "Back to normal
// after", the dashboard's "for") leaves out the time the service was stopped when the clock
// could not show it: not set at the stop or at the start (a Pi without a real-time clock), or
// behind the stop. That was said as if exact; it is now said to be at least that long.
t.test('the time stopped not shown by the clock: how long an alert was active is "at least"', async (t) => {
  const W = Date.UTC(2026, 10, 1, 12);
  const UNSET = 5_000_000;
  const row = (last: number): ActiveAlert => ({
    ...obs,
    firstSeenAt: last - 120_000,
    lastSeenAt: last,
    firedAt: last - 115_000,
    lastNotifiedAt: last - 115_000,
    count: 1,
    acknowledged: false,
  });
  const resolvedAfterLoad = (stored: ActiveAlert, wall: number) => {
    const clock = { now: () => 5000, wall: () => wall };
    const events: Array<[AlertEventKind, ActiveAlert]> = [];
    const tr = new Tracker({
      remindMs: () => 4 * 3_600_000,
      load: () => [fromWall(stored, clock)],
      save: () => undefined,
      remove: () => undefined,
      emit: (e, a) => events.push([e, { ...a }]),
    });
    tr.update([], 5000, 2000);
    tr.update([], 8000, 2000);
    const [event, alert] = events[0]!;
    t.equal(event, 'resolved');
    return alertMessage('edge-one', 'resolved', alert, 8000, wall).message;
  };
  t.match(
    resolvedAfterLoad(row(W - 60_000), W),
    /^Back to normal after 3m 3s\./,
    'both ends set: the stop counted, exact',
  );
  t.match(
    resolvedAfterLoad(row(UNSET), W),
    /^Back to normal after at least 2m 3s\./,
    'stored while the clock was not set: at least',
  );
  t.match(
    resolvedAfterLoad(row(W - 60_000), UNSET),
    /^Back to normal after at least 2m 3s\./,
    'started with the clock not set: at least',
  );
  t.match(
    resolvedAfterLoad(row(W - 60_000), W - 86_400_000),
    /^Back to normal after at least 2m 3s\./,
    'started with the clock behind the stop: at least',
  );

  // A problem waiting out its `after`, stored with the clock not set: the alert it fires is "at least" too.
  const { db } = tempDatabase(t, 'edgeblocks-pending-unknown-');
  let wall: number | null = null;
  let at = 0;
  const run = () => {
    const store = new PendingStore(
      db,
      { now: () => at, wall: () => wall },
      () => false,
      (p) => t.fail(p),
    );
    const events: Array<[AlertEventKind, ActiveAlert]> = [];
    const tr = new Tracker({
      remindMs: () => 60_000,
      load: () => [],
      save: () => undefined,
      remove: () => undefined,
      emit: (e, a) => events.push([e, { ...a }]),
      pending: { load: () => store.load(), save: (s, r, now) => store.save(s, r, now) },
    });
    return { tr, events };
  };
  const first = run();
  for (at = 0; at <= 3000; at += 1000) first.tr.update([obs], at, 2000);
  first.tr.savePending(at);
  wall = W;
  at = 0;
  const second = run();
  for (; at <= 70_000; at += 1000) second.tr.update([obs], at, 2000);
  const fired = second.events.find(([e]) => e === 'fired')?.[1];
  t.equal(fired?.stopUnknown, true, 'fired, the stop not shown by the clock');
  const reminder = second.events.find(([e]) => e === 'reminder')?.[1];
  t.ok(reminder, 'a reminder');
  t.match(
    alertMessage('edge-one', 'reminder', reminder!, at, W).message,
    /Active for at least 1m 1\ds\./,
    'its reminder says at least',
  );
});
