import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { BEHIND_LIMIT_MS, WallClockService } from '../../src/service/wall-clock.js';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { tempDatabase } from '../helpers/temp-database.js';
import { silentLogger } from '../../src/log.js';
import { testRuntime } from '../helpers/runtime.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const W = Date.UTC(2026, 10, 1, 12);
const q = (unit: string, value: number) => ({ __objtype: 'Quantity', unit, value });

/** A Pi without a saved time: the wall clock reads not set (1970) until network time sets it. */
class UnsetClock extends ManualClock {
  isSet = true;
  override wall(): number | null {
    return this.isSet ? super.wall() : null;
  }
}

t.test('a restart on a clock not set: the running profile holds the setting of its place at the stop', async (t) => {
  const { db } = tempDatabase(t, 'edgeblocks-profile-unset-');
  const persistence = new MemoryPersistence();
  const run = (clock: ManualClock) => {
    const { runtime } = testRuntime({ clock, persistence });
    const svc = new WallClockService(db, runtime, silentLogger);
    svc.start();
    const data = (id: string) => runtime.read({ id }).json().data as Record<string, any>;
    return { svc, runtime, data };
  };

  // A cold crash from 20 to 2 degC over 2 days, started a day ago: at 11 degC now.
  const first = run(new UnsetClock(0, W));
  first.runtime.create({ id: 'Sensor', type: 'TempSensorMock', data: { 'setting[degC]': 11 } });
  first.runtime.create({
    id: 'Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, 'sensorId<>': 'Sensor', 'storedSetting[degC]': 20 },
  });
  first.runtime.create({
    id: 'Profile',
    type: 'SetpointProfile',
    data: {
      enabled: true,
      'targetId<>': 'Setpoint',
      start: new Date(W - DAY).toISOString(),
      points: [
        { time: q('s', 0), 'temperature[degC]': 20 },
        { time: q('s', (2 * DAY) / 1000), 'temperature[degC]': 2 },
      ],
    },
  });
  first.runtime.tick();
  t.ok(Math.abs(first.data('Setpoint').setting.value - 11) < 0.01, 'before the stop: 11 degC from the profile');
  first.svc.stop(); // last seen: W

  // A power cut; the Pi boots at 1970 and has no network yet.
  const clock = new UnsetClock(0, W + HOUR);
  clock.isSet = false;
  const second = run(clock);
  for (let i = 0; i < 5; i++) {
    clock.advance(1000);
    second.runtime.tick();
  }
  const held = second.data('Setpoint').setting?.value ?? null;
  t.ok(
    held !== null && Math.abs(held - 11) < 0.01,
    `without a clock the profile holds its place's setting, 11 degC (the setpoint's setting: ${held})`,
  );
  t.equal(second.data('Setpoint').claimedBy.id, 'Profile', 'the profile drives the setpoint');
  t.equal(Date.parse(second.data('Profile').start), W - DAY, 'its start is not moved meanwhile');

  // Network time (W + 1 h 6 s): the profile moves by the hour stopped and the 6 s it was paused,
  // and goes on from its place.
  clock.isSet = true;
  clock.advance(1000);
  second.runtime.tick();
  t.equal(Date.parse(second.data('Profile').start), W - DAY + HOUR + 6000, 'moved by the time stopped and paused');
  t.ok(Math.abs(second.data('Setpoint').setting.value - 11) < 0.01, 'and goes on from 11 degC');
  second.svc.stop();
});

t.test('a clock not set is never taken as right: after an hour without network time it is still behind', async (t) => {
  const { db } = tempDatabase(t, 'edgeblocks-unset-hour-');
  // The service reads a clock not set as Date.now() (1970 on such a Pi): a W after the real now
  // stands for the last time seen.
  const W = Date.now() + 365 * DAY;
  const { runtime: r1 } = testRuntime({ clock: new ManualClock(0, W) });
  const first = new WallClockService(db, r1, silentLogger);
  first.start();
  first.stop(); // last seen: W

  // Booted at 1970 with no network for two hours (a shed whose Wi-Fi came back later).
  const clock = new UnsetClock(0, W + HOUR);
  clock.isSet = false;
  const { runtime } = testRuntime({ clock });
  const second = new WallClockService(db, runtime, silentLogger);
  second.start();
  t.equal(second.behind, true, 'a start on a clock not set is behind the last time seen');
  clock.advance(BEHIND_LIMIT_MS + 60_000);
  second.saveNow(); // the minute's save, past the hour
  t.equal(second.behind, true, 'still behind: 1970 is not a time to take as right');
  t.equal(second.highWater(), W, 'history stays after the last time seen (it holds its points, not stamps them 1970)');
  second.stop();

  // And the record keeps W as the newest time seen, for the next start.
  const { runtime: r3 } = testRuntime({ clock: new ManualClock(0, W - HOUR) });
  const third = new WallClockService(db, r3, silentLogger);
  third.start();
  t.equal(third.highWater(), W, 'a later start on a clock an hour behind W is behind W');
  third.stop();
});
