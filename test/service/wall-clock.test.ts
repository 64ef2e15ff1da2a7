// Issue 44 item 7: the service's wall-clock record. A start on a clock behind the newest time seen
// is "behind" (status, and history's mark) until the clock jumps to the present; a clock that
// stays behind for an hour without network time is taken as right (a record left by a clock that
// was wrongly ahead must not hold history back for years). On a full disk the record goes to a
// reserve file, so a restart does not take the hours since the disk filled for time stopped.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import {
  BEHIND_LIMIT_MS,
  CLOCK_RESERVE_BYTES,
  CLOCK_RESERVE_FILE,
  WallClockService,
} from '../../src/service/wall-clock.js';
import { ReserveFile } from '../../src/store/reserve-file.js';
import { openDatabase } from '../../src/store/db.js';
import { tempDatabase } from '../helpers/temp-database.js';
import { silentLogger } from '../../src/log.js';
import { testRuntime } from '../helpers/runtime.js';
import { fill, smallDisk } from '../helpers/small-disk.js';

const DAY = 86_400_000;
const W = Date.UTC(2026, 10, 1, 12);

t.test('behind the last time seen: until a jump to the present, or an hour', async (t) => {
  const { db } = tempDatabase(t, 'edgeblocks-wallclock-');
  const runtimes = new Map<WallClockService, ReturnType<typeof testRuntime>['runtime']>();
  const run = (clock: ManualClock) => {
    const { runtime } = testRuntime({ clock });
    const svc = new WallClockService(db, runtime, silentLogger);
    runtimes.set(svc, runtime);
    return svc;
  };
  const first = run(new ManualClock(0, W));
  first.start();
  first.stop();
  t.equal(first.behind, false);

  const clock = new ManualClock(0, W - 180 * DAY);
  const second = run(clock);
  second.start();
  t.equal(second.behind, true, 'a start 6 months back is behind');
  t.equal(second.highWater(), W, 'history stays after the last time seen');
  t.match(second.status(), { clock: { behind: { lastSeen: new Date(W).toISOString() } } });
  clock.advance(10_000);
  clock.jumpWall(180 * DAY);
  runtimes.get(second)!.checkClock(); // the next tick
  t.equal(second.behind, false, 'network time: caught up');
  t.equal(second.highWater(), null);
  t.match(second.status(), { clock: { behind: null, jumps: 1, lastJump: { text: 'jumped 180d 0s forward' } } });
  second.stop();

  const stuck = new ManualClock(0, W - 180 * DAY);
  const third = run(stuck);
  third.start();
  t.equal(third.behind, true);
  stuck.advance(BEHIND_LIMIT_MS);
  third.stop();
  t.equal(third.behind, false, 'an hour behind without a jump: taken as right');
  t.equal(third.highWater(), null, 'history is stored at its times again');
});

t.test(
  'a full disk: the record goes to the reserve, and a restart hands the blocks only the time it was stopped',
  async (t) => {
    const disk = smallDisk('edgeblocks-wallclock-full-', '16m');
    t.teardown(() => disk.unmount());
    const db = openDatabase(disk.mountPoint);
    t.teardown(() => db.close());
    const reserve = () =>
      new ReserveFile(path.join(disk.mountPoint, CLOCK_RESERVE_FILE), CLOCK_RESERVE_BYTES, 'the wall clock reserve');
    const profileStart = W / 1000 - 3600;
    /** A run: a running profile as the store would load it, the clock record service started. */
    const run = (clock: ManualClock) => {
      const { runtime } = testRuntime({ clock });
      runtime.create({
        id: 'Profile',
        type: 'SetpointProfile',
        data: {
          enabled: true,
          start: new Date(profileStart * 1000).toISOString(),
          points: [{ time: { __objtype: 'Quantity', unit: 's', value: 0 }, 'temperature[degC]': 18 }],
        },
      });
      const svc = new WallClockService(db, runtime, silentLogger, reserve());
      svc.start();
      const start = () => Date.parse((runtime.read({ id: 'Profile' }).json().data as { start: string }).start) / 1000;
      return { svc, start };
    };

    const clock = new ManualClock(0, W);
    const first = run(clock);
    t.equal(first.start(), profileStart);
    fill(path.join(disk.mountPoint, 'filler'));
    clock.advance(12 * 3_600_000); // half a day on the full disk
    first.svc.stop(); // the table cannot take the record: the reserve does

    // Started 30 s later, the disk still full: the 12 hours ran, only the 30 s were a stop.
    const second = run(new ManualClock(0, W + 12 * 3_600_000 + 30_000));
    t.equal(
      second.start(),
      profileStart + 30,
      'the profile moved by the 30 s stopped, not by the 12 h the disk was full',
    );
    second.svc.stop();

    // Room again: the table takes the record. A reserve left behind with an older record (its
    // blanking failed) does not count over the table's newer one.
    rmSync(path.join(disk.mountPoint, 'filler'));
    const stale = reserve();
    const third = run(new ManualClock(0, W + 13 * 3_600_000));
    third.svc.stop(); // written to the table at W + 13 h
    stale.write({ last: W, high: W });
    const fourth = run(new ManualClock(0, W + 13 * 3_600_000 + 60_000));
    t.equal(
      fourth.start(),
      profileStart + 60,
      'moved by the minute stopped, not by the 13 h back to the stale reserve',
    );
    fourth.svc.stop();
  },
);

/** A Pi without a saved time: the wall clock reads not set (1970) until network time sets it. */
class UnsetClock extends ManualClock {
  isSet = false;
  override wall(): number | null {
    return this.isSet ? super.wall() : null;
  }
}

t.test(
  'a start on a clock not set: a running profile keeps its place and moves by the time stopped once the clock is set',
  async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-wallclock-unset-'));
    const db = openDatabase(dir);
    t.teardown(() => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const profileStart = W / 1000 - DAY / 1000;
    const run = (clock: ManualClock) => {
      const { runtime } = testRuntime({ clock });
      runtime.create({ id: 'Sensor', type: 'TempSensorMock', data: { 'setting[degC]': 20 } });
      runtime.create({
        id: 'Setpoint',
        type: 'SetpointSensorPair',
        data: { enabled: true, 'sensorId<>': 'Sensor', 'storedSetting[degC]': 20 },
      });
      runtime.create({
        id: 'Profile',
        type: 'SetpointProfile',
        data: {
          enabled: true,
          'targetId<>': 'Setpoint',
          start: new Date(profileStart * 1000).toISOString(),
          points: [
            { time: { __objtype: 'Quantity', unit: 's', value: 0 }, 'temperature[degC]': 20 },
            { time: { __objtype: 'Quantity', unit: 's', value: (2 * DAY) / 1000 }, 'temperature[degC]': 10 },
          ],
        },
      });
      const svc = new WallClockService(db, runtime, silentLogger);
      svc.start();
      const data = () => runtime.read({ id: 'Profile' }).json().data as { start: string };
      const start = () => Date.parse(data().start) / 1000;
      return { svc, runtime, start };
    };

    const first = run(new ManualClock(0, W));
    first.svc.stop(); // last seen: W

    // Booted 1 h later at 1970: nothing is known of the time stopped yet.
    const clock = new UnsetClock(0, W + 3_600_000);
    const second = run(clock);
    t.equal(second.start(), profileStart, 'the profile is not moved by a clock that is not set');
    clock.advance(120_000);
    second.runtime.tick();
    second.svc.stop(); // and a stop on it records no time seen
    const third = run(clock);
    t.equal(third.start(), profileStart, 'nor at a second start on it');
    clock.advance(60_000);
    clock.isSet = true; // network time, W + 1 h 3 min
    third.runtime.tick();
    t.equal(third.start(), profileStart + 3600 + 180, 'moved by the time since W once the clock is set');
    const setting = (third.runtime.read({ id: 'Profile' }).json().data as { setting: { value: number } }).setting;
    t.ok(Math.abs(setting.value - 15) < 0.01, `the profile resumes at its place, 15 degC (${setting.value})`);
    third.svc.stop();
  },
);

for (const saveFirst of [false, true])
  t.test(
    `a start on a clock behind the last time seen: the jump to network time is time stopped, so a profile set to start later keeps its date${saveFirst ? ' (the save timer first)' : ''}`,
    async (t) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-wallclock-behind-'));
      const db = openDatabase(dir);
      t.teardown(() => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      });
      const HOUR = 3_600_000;
      const running = W / 1000 - 3600;
      const later = W / 1000 + DAY / 1000; // tomorrow, as the brewer typed it
      const run = (clock: ManualClock) => {
        const { runtime } = testRuntime({ clock });
        for (const [id, start] of [
          ['Running', running],
          ['Later', later],
        ] as const)
          runtime.create({
            id,
            type: 'SetpointProfile',
            data: {
              enabled: true,
              start: new Date(start * 1000).toISOString(),
              points: [{ time: { __objtype: 'Quantity', unit: 's', value: 0 }, 'temperature[degC]': 18 }],
            },
          });
        const svc = new WallClockService(db, runtime, silentLogger);
        svc.start();
        const start = (id: string) => Date.parse((runtime.read({ id }).json().data as { start: string }).start) / 1000;
        return { svc, runtime, start };
      };
      const first = run(new ManualClock(0, W));
      first.svc.stop(); // last seen: W

      // A power cut of 5 hours; the Pi boots at the time it saved half an hour before W.
      const clock = new ManualClock(0, W - HOUR / 2);
      const second = run(clock);
      t.equal(second.svc.behind, true, 'the start is behind the last time seen');
      clock.advance(120_000);
      clock.jumpWall(5.5 * HOUR); // network time: W + 5 h 2 min
      // The minute's save may come between the clock's step and the next tick or write.
      if (saveFirst) second.svc.saveNow();
      second.runtime.tick();
      t.equal(second.svc.behind, false, 'caught up');
      t.equal(second.start('Later'), later, 'the profile set to start later keeps its date');
      t.equal(
        second.start('Running'),
        running + (5 * HOUR) / 1000,
        'the running profile moved by the 5 hours stopped (its place: as at the stop, and the 2 min since)',
      );
      second.svc.stop();
    },
  );
