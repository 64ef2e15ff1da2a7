// Issue 44 item 7, in process on a manual clock: a wall-clock jump is seen once and only when it
// is one; a running profile keeps its place across jumps forward and backward and across a
// restart (the time the service was stopped does not count); one set to start later keeps its date.
import t from 'tap';
import { describeJump, JUMP_MS, ManualClock, WallClockWatch } from '../../src/runtime/clock.js';
import { link, setup } from '../control/setup.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

t.test('WallClockWatch: a step larger than JUMP_MS either way is a jump, seen once', async (t) => {
  const clock = new ManualClock(0);
  const watch = new WallClockWatch(clock);
  t.equal(watch.check(), null, 'the first look sets the reference');
  clock.advance(5000);
  t.equal(watch.check(), null, 'time passing is no jump');
  clock.jumpWall(JUMP_MS);
  t.equal(watch.check(), null, 'a step of JUMP_MS is slewing-sized, not a jump');
  clock.jumpWall(3 * DAY);
  const j = watch.check();
  t.equal(j?.byMs, 3 * DAY, 'three days forward');
  t.equal(j?.at, clock.wall());
  t.equal(watch.check(), null, 'reported once');
  clock.jumpWall(-HOUR);
  t.equal(watch.check()?.byMs, -HOUR, 'an hour backward');
  t.equal(watch.count, 2);
  t.equal(describeJump(3 * DAY + 5000), '3d 5s forward');
  t.equal(describeJump(-HOUR), '1h 0s backward');
});

function profileSetup() {
  const su = setup();
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 15, enabled: true });
  // 10 degC a day: a 3-day jump would move the setting 30 degC, an hour's 0.4 degC.
  const start = Math.floor(su.clock.wall()! / 1000);
  su.create('profile', 'SetpointProfile', {
    targetId: link('sp'),
    start: new Date(start * 1000).toISOString(),
    points: [
      { time: 0, temperature: 0 },
      { time: { __objtype: 'Quantity', unit: 'day', value: 10 }, temperature: 100 },
    ],
  });
  return { su, start };
}

t.test('a running profile keeps its place when the wall clock jumps forward 3 days and back 1 hour', async (t) => {
  const { su, start } = profileSetup();
  const changes: string[] = [];
  su.runtime.on('change', (e) => e.origin === 'clock' && changes.push(...e.changed.map((b) => b.id)));
  const jumps: number[] = [];
  su.runtime.on('clockJump', (j) => jumps.push(j.byMs));
  await su.run(2 * HOUR, 1000);
  const before = su.data('sp').setting;
  t.ok(Math.abs(before - 100 / 120) < 0.01, `two hours in (${before})`);

  su.clock.jumpWall(3 * DAY);
  await su.run(1000, 1000);
  t.ok(
    Math.abs(su.data('sp').setting - before) < 0.01,
    `3 days forward: the setting did not move (${su.data('sp').setting})`,
  );
  t.equal(su.data('profile').start, start + 3 * 86400, 'start moved with the clock');
  t.same(jumps, [3 * DAY]);
  t.same(changes, ['profile'], 'the moved start is a change (patches, history) from the clock');
  t.equal(
    Date.parse(JSON.parse(su.persistence.records.get(su.block('profile').nid)!.data).start),
    (start + 3 * 86400) * 1000,
    'and stored, so a restart finds it',
  );

  su.clock.jumpWall(-HOUR);
  await su.run(1000, 1000);
  t.ok(
    Math.abs(su.data('sp').setting - before) < 0.01,
    `1 hour back: the setting did not move (${su.data('sp').setting})`,
  );
  await su.run(12 * HOUR, 10_000);
  const expected = ((2 * HOUR + 12 * HOUR + 2000) / (10 * DAY)) * 100;
  t.ok(
    Math.abs(su.data('sp').setting - expected) < 0.01,
    `it goes on at the controller's pace (${su.data('sp').setting})`,
  );
});

t.test('across a restart a running profile resumes where it was; one set to start later keeps its date', async (t) => {
  const { su } = profileSetup();
  const later = Math.floor(su.clock.wall()! / 1000) + 2 * 86400;
  su.create('sp2', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 15, enabled: true });
  su.create('scheduled', 'SetpointProfile', {
    targetId: link('sp2'),
    start: new Date(later * 1000).toISOString(),
    points: [{ time: 0, temperature: 30 }],
  });
  await su.run(5 * HOUR, 10_000);
  const place = su.data('sp').setting;

  // Stopped for 8 hours; the new run's clock shows it (the service's clock record hands it over).
  const clock = new ManualClock(0, su.clock.wall()! + 8 * HOUR);
  const again = setup({ clock, persistence: su.persistence });
  again.runtime.moveWall({ byMs: 8 * HOUR, reason: 'restart', wall: clock.wall() });
  await again.run(1000, 1000);
  t.ok(
    Math.abs(again.data('sp').setting - place) < 0.01,
    `resumed at its place (${again.data('sp').setting} vs ${place})`,
  );
  t.equal(again.data('scheduled').start, later, 'a profile not started yet keeps its date');
});

/** A Pi without a saved time: the wall clock reads not set (1970) until network time sets it. */
class UnsetClock extends ManualClock {
  isSet = false;
  override wall(): number | null {
    return this.isSet ? super.wall() : null;
  }
}

t.test('a start written on a clock not set (1970) is refused; 0 is no start, as Brewblox sends it', async (t) => {
  // A script or automation on a Pi before network time writes "now" as its clock shows it: a date
  // in 1970. Stored, the profile sat 56 years past its start once NTP set the clock, holding its
  // last temperature at once (a lager's 2 °C cold crash on day 0).
  const clock = new UnsetClock(0, Date.UTC(2026, 10, 30, 12));
  const su = setup({ clock });
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 15, enabled: true });
  const points = [
    { time: 0, temperature: 12 },
    { time: { __objtype: 'Quantity', unit: 'day', value: 10 }, temperature: 12 },
    { time: { __objtype: 'Quantity', unit: 'day', value: 11 }, temperature: 2 },
  ];
  su.create('profile', 'SetpointProfile', { targetId: link('sp'), enabled: true, points });
  const unsetNow = '1970-01-01T02:00:00Z';
  t.throws(
    () => su.patch('profile', 'SetpointProfile', { start: unsetNow }),
    { message: /start: 1970-01-01T02:00:00Z is before 2001-09-09: a time on a clock that was never set/ },
    'a start on the unset clock is refused, naming the problem',
  );
  t.equal(su.data('profile').start, null, 'nothing stored');
  t.throws(
    () => su.create('other', 'SetpointProfile', { enabled: true, points, start: 7200 }),
    { message: /start: 1970-01-01T02:00:00Z is before 2001-09-09/ },
    'on create too, in epoch seconds',
  );
  su.patch('profile', 'SetpointProfile', { start: 0 });
  t.equal(su.data('profile').start, null, '0 is no start (Brewblox sends 0 for none)');

  clock.isSet = true;
  await su.run(5000, 1000);
  t.equal(su.data('profile').setting, null, 'once the clock is set, a profile with no start drives nothing');
  t.equal(su.data('sp').setting, 15, 'the setpoint keeps its own setting');

  // A date on a set clock (the browser's, a laptop's) is taken while the controller's clock is
  // not set: the profile waits for the clock, then runs from that date.
  clock.isSet = false;
  const start = Math.floor(Date.UTC(2026, 10, 30, 12) / 1000);
  su.patch('profile', 'SetpointProfile', { start: new Date(start * 1000).toISOString() });
  t.equal(su.data('profile').start, start);
  clock.isSet = true;
  await su.run(5000, 1000);
  t.equal(su.data('sp').setting, 12, 'at its first step once the clock is set');
});
