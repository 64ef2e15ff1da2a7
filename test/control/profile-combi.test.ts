import t from 'tap';
import { profileSetting } from '../../src/blocks/shared/profile.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { link, setup } from './setup.js';

class SwitchableClock extends ManualClock {
  valid = true;
  override wall(): number | null {
    return this.valid ? super.wall() : null;
  }
}

t.test('profile interpolation: linear, steps, holds at both ends', async (t) => {
  const pts = [
    { time: 600, temperature: 20 },
    { time: 4200, temperature: 22 },
    { time: 4200, temperature: 18 },
    { time: 7800, temperature: 19 },
  ];
  t.equal(profileSetting(pts, 0), 20, 'before the first point: its temperature');
  t.equal(profileSetting(pts, 600), 20);
  t.equal(profileSetting(pts, 2400), 21);
  t.ok(Math.abs(profileSetting(pts, 4199)! - 22) < 0.001);
  t.equal(profileSetting(pts, 4200), 18, 'two points at the same time: a step');
  t.equal(profileSetting(pts, 6000), 18.5);
  t.equal(profileSetting(pts, 7800), 19);
  t.equal(profileSetting(pts, 1e6), 19, 'after the last point: its temperature');
  t.equal(profileSetting([pts[3]!, pts[0]!, pts[1]!, pts[2]!], 2400), 21, 'unsorted points are sorted by time');
  t.equal(
    profileSetting([pts[3]!, pts[0]!, pts[1]!, pts[2]!], 4200),
    18,
    'keeping the order of points at the same time',
  );
  t.equal(profileSetting([], 100), null);
  t.end();
});

t.test('SetpointProfile drives its setpoint from a wall-clock start, and pauses without a clock', async (t) => {
  const clock = new SwitchableClock(0);
  const su = setup({ clock });
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 15, enabled: true });
  const start = Math.floor(clock.wall()! / 1000) + 3600;
  su.create('profile', 'SetpointProfile', {
    targetId: link('sp'),
    start: new Date(start * 1000).toISOString(),
    points: [
      { time: 0, temperature: 20 },
      { time: { __objtype: 'Quantity', unit: 'hour', value: 2 }, temperature: 24 },
    ],
  });
  await su.run(1800_000, 1000);
  t.equal(su.data('sp').setting, 15, 'start in the future: nothing happens');
  t.equal(su.data('sp').claimedBy, null);
  t.equal(su.data('profile').setting, null);
  await su.run(1800_000 + 3600_000, 1000);
  t.ok(Math.abs(su.data('sp').setting - 22) < 0.01, `half way: 22 (${su.data('sp').setting})`);
  t.equal(su.data('sp').claimedBy, 'profile');
  t.equal(su.data('profile').setting, su.data('sp').setting);
  clock.valid = false;
  const paused = su.data('sp').setting;
  await su.run(1800_000, 1000);
  t.equal(su.data('sp').setting, paused, 'no valid clock: the setting holds');
  clock.valid = true;
  await su.run(1000, 1000);
  t.ok(Math.abs(su.data('sp').setting - 23) < 0.01, 'clock back: continues where wall time says');
  await su.run(7200_000, 1000);
  t.equal(su.data('sp').setting, 24, 'after the last point: holds');
  su.patch('profile', 'SetpointProfile', { enabled: false });
  t.equal(su.data('sp').claimedBy, null, 'disabled: released');
  t.equal(su.data('sp').setting, null, 'the setpoint stays in CLAIMED mode: no setting');
  su.patch('sp', 'SetpointSensorPair', { storedSetting: 18 });
  t.equal(su.data('sp').setting, 18, 'until the user writes a setting');
  t.end();
});

t.test('TempSensorCombi: average, minimum or maximum of the valid sensors', async (t) => {
  const su = setup();
  for (const [id, v] of [
    ['a', 10],
    ['b', 20],
    ['c', 33],
  ] as const)
    su.create(id, 'TempSensorExternal', { setting: v, timeout: 0 });
  su.create('gone', 'TempSensorExternal', { setting: 99, timeout: 0, enabled: false });
  su.create('combi', 'TempSensorCombi', { sensors: [link('a'), link('b'), link('c'), link('gone')] });
  await su.run(1000, 100);
  t.equal(su.data('combi').value, 21, 'average of the valid ones');
  su.patch('combi', 'TempSensorCombi', { combineFunc: 'SENSOR_COMBI_FUNC_MIN' });
  t.equal(su.data('combi').value, 10);
  su.patch('combi', 'TempSensorCombi', { combineFunc: 'SENSOR_COMBI_FUNC_MAX' });
  t.equal(su.data('combi').value, 33);
  su.create('nested', 'TempSensorCombi', { sensors: ['combi', 'a'].map(link) });
  await su.run(1000, 100);
  t.equal(su.data('nested').value, 21.5, 'combis nest');
  for (const id of ['a', 'b', 'c']) su.patch(id, 'TempSensorExternal', { enabled: false });
  await su.run(2000, 100);
  t.equal(su.data('combi').value, null, 'none valid: null');
  t.equal(su.data('nested').value, null);
  t.end();
});
