// Issue 44 items 3 and 7, in process: the tracker counts on the monotonic clock; a condition not
// known yet (a sensor before its first read) is neither bad nor clear; an alert stored by an
// earlier run keeps counting from when it began, and a clock behind that run gives no negative gap.
import t from 'tap';
import { alertMessage } from '../../src/alerts/messages.js';
import { fromWall, toWall } from '../../src/alerts/times.js';
import { Tracker } from '../../src/alerts/tracker.js';
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
