// A write of a driven block's own setting (REST, MQTT, the dashboard's editor: all one runtime
// write) keeps the value for later, and the block stays driven (settingMode CLAIMED). Before, a
// patch with storedSetting put the block in STORED mode until its driver's next update claimed
// it back: a driver let go within that second (deleted, turned off) left the block on the value
// written, and one let go a second later left it with none. What the beer got hung on when the
// profile had last run. The card's Pause hand-over (a batch that writes the setpoint and turns
// the profile off, in either order) still holds: whether a block is driven is looked at once
// the whole change is applied (test/control/profile-let-go.test.ts).
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { testRuntime } from '../helpers/runtime.js';

const WALL = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const link = (id: string) => ({ __objtype: 'Link', id });
const degC = (value: number) => ({ __objtype: 'Quantity', unit: 'degC', value });

function driven() {
  const { runtime, clock } = testRuntime({ clock: new ManualClock(0, WALL) });
  runtime.create({ id: 'Sensor', type: 'TempSensorMock', data: { setting: degC(12) } });
  runtime.create({
    id: 'Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, sensorId: link('Sensor'), storedSetting: degC(20) },
  });
  runtime.create({
    id: 'Profile',
    type: 'SetpointProfile',
    data: {
      enabled: true,
      targetId: link('Setpoint'),
      start: new Date(WALL - HOUR).toISOString(),
      points: [
        { time: 0, temperature: degC(10) },
        { time: 7200, temperature: degC(10) },
      ],
    },
  });
  clock.advance(1500);
  runtime.tick();
  const read = () => runtime.read({ id: 'Setpoint' }).json().data as Record<string, any>;
  return { runtime, clock, read };
}

const writes: [string, Record<string, unknown>, 'patch' | 'write'][] = [
  ['a patch with storedSetting', { storedSetting: degC(18) }, 'patch'],
  [
    'a write with settingMode STORED',
    { enabled: true, sensorId: link('Sensor'), storedSetting: degC(18), settingMode: 'STORED' },
    'write',
  ],
];

for (const [what, data, op] of writes) {
  t.test(`${what} to a driven setpoint, its driver let go at once or later: the same`, async (t) => {
    for (const when of ['at once', 'a second later'] as const) {
      const { runtime, clock, read } = driven();
      t.equal(read().claimedBy.id, 'Profile');
      const answer = runtime[op]({ id: 'Setpoint', type: 'SetpointSensorPair', data });
      t.equal((answer.data as any).settingMode, 'CLAIMED', `${when}: the answer shows the setpoint still driven`);
      t.equal(read().storedSetting.value, 18, `${when}: the value is kept for later`);
      if (when === 'a second later') {
        clock.advance(1000);
        runtime.tick();
      }
      runtime.delete({ id: 'Profile' });
      clock.advance(1000);
      runtime.tick();
      const d = read();
      t.same(
        { driver: d.claimedBy.id, settingMode: d.settingMode, setting: d.setting.value },
        { driver: null, settingMode: 'CLAIMED', setting: null },
        `${when}: let go, no setting until one is given`,
      );
    }
  });
}

t.test('a write to a free setpoint returns it to STORED, as before', async (t) => {
  const { runtime, clock, read } = driven();
  runtime.delete({ id: 'Profile' });
  runtime.patch({ id: 'Setpoint', type: 'SetpointSensorPair', data: { storedSetting: degC(18) } });
  clock.advance(1000);
  runtime.tick();
  t.same([read().settingMode, read().setting.value], ['STORED', 18]);
});
