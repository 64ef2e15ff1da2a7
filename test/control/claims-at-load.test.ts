// Claims were volatile and made only by the drivers' updates: after a restart, until the first
// tick, every driven block read as let go (claimedBy null), and with control off (PUT
// settings/enabled false, no tick at all) it stayed so: a write of a PID's output went to STORED
// and Home Assistant took commands for it. Claims are now taken from the stored links as the
// blocks load (a start, a backup load), as the drivers' updates take them, so the claim state
// after a load is the one the first tick leaves.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { link, setup, type Setup } from './setup.js';

const HOUR = 3600;

function plant(persistence: MemoryPersistence) {
  const su = setup({ persistence });
  su.create('sensor', 'TempSensorExternal', { setting: 18, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 20, enabled: true });
  su.create('sp2', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 20, enabled: true });
  su.create('pins', 'MockPins', {});
  su.create('act', 'DigitalActuator', { hwDevice: link('pins'), channel: 1, storedState: 'STATE_INACTIVE' });
  su.create('pwm', 'ActuatorPwm', { actuatorId: link('act'), period: 10, enabled: true });
  su.create('pid', 'Pid', { inputId: link('sp'), outputId: link('pwm'), kp: 10, ti: 0, td: 0, enabled: true });
  su.create('mock', 'ActuatorAnalogMock', { storedSetting: 40 });
  su.create('pid2', 'Pid', { inputId: link('sp'), outputId: link('mock'), kp: 10, ti: 0, td: 0, enabled: true });
  su.create('offset', 'ActuatorOffset', { targetId: link('sp2'), referenceId: link('sp'), enabled: true });
  // A profile set to start tomorrow does not drive its setpoint yet.
  const tomorrow = Date.UTC(2026, 0, 2) / 1000;
  su.create('sp3', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 21, enabled: true });
  su.create('later', 'SetpointProfile', {
    targetId: link('sp3'),
    start: tomorrow,
    points: [
      { time: 0, temperature: 10 },
      { time: HOUR, temperature: 12 },
    ],
    enabled: true,
  });
  return su;
}

const driven = ['pwm', 'act', 'mock', 'sp2', 'sp3'];
const claimState = (su: Setup) =>
  Object.fromEntries(driven.map((id) => [id, { by: su.data(id).claimedBy, mode: su.data(id).settingMode }]));

t.test('after a restart the claims are known at load, and are those the first tick leaves', async (t) => {
  const persistence = new MemoryPersistence();
  const su = plant(persistence);
  await su.run(3000);
  const running = claimState(su);
  t.same(running, {
    pwm: { by: 'pid', mode: 'CLAIMED' },
    act: { by: 'pwm', mode: 'CLAIMED' },
    mock: { by: 'pid2', mode: 'CLAIMED' },
    sp2: { by: 'offset', mode: 'CLAIMED' },
    sp3: { by: null, mode: 'STORED' },
  });

  const again = setup({ persistence, clock: su.clock });
  t.same(claimState(again), running, 'right after the load, before any tick');
  t.same(
    again.runtime.claims(),
    su.runtime.claims(),
    'the claims endpoint says the same, the IO channel (act on pins) too',
  );
  await again.run(100);
  t.same(claimState(again), running, 'and the first tick leaves them so');
});

t.test('control off across a restart: driven blocks stay claimed, and a write keeps them CLAIMED', async (t) => {
  const persistence = new MemoryPersistence();
  const su = plant(persistence);
  await su.run(3000);
  const running = claimState(su);

  const again = setup({ persistence, clock: su.clock });
  again.runtime.paused = true;
  t.same(claimState(again), running, 'still owned while no block runs');
  again.patch('mock', 'ActuatorAnalogMock', { storedSetting: 77 });
  t.equal(again.data('mock').storedSetting, 77, 'the stored setting is taken');
  t.equal(again.data('mock').settingMode, 'CLAIMED', 'but the PID keeps it: not handed over to STORED');
  t.equal(again.data('mock').claimedBy, 'pid2');

  // Off and on again while no block runs: the claim goes and comes back as a tick would.
  again.patch('pid2', 'Pid', { enabled: false });
  t.equal(again.data('mock').claimedBy, null, 'a disabled PID lets go at once');
  again.patch('pid2', 'Pid', { enabled: true });
  t.equal(again.data('mock').claimedBy, 'pid2', 'enabled again, it holds its output at once');
  again.runtime.paused = false;
  await again.run(100);
  t.same(claimState(again), running, 'the first tick agrees');
});

t.test('first come, first served at load as at the tick: the PID first in order keeps the output', async (t) => {
  const persistence = new MemoryPersistence();
  const su = setup({ persistence });
  su.create('sensor', 'TempSensorExternal', { setting: 18, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 20, enabled: true });
  su.create('out', 'ActuatorAnalogMock', { storedSetting: 40 });
  su.create('a', 'Pid', { inputId: link('sp'), outputId: link('out'), kp: 10, ti: 0, td: 0, enabled: true });
  su.create('b', 'Pid', { inputId: link('sp'), outputId: link('out'), kp: 10, ti: 0, td: 0, enabled: true });
  await su.run(2000);
  t.equal(su.data('out').claimedBy, 'a');
  const again = setup({ persistence, clock: su.clock });
  t.equal(again.data('out').claimedBy, 'a', 'at load');
  await again.run(100);
  t.equal(again.data('out').claimedBy, 'a', 'after the first tick');
});

t.test('a backup loaded with control off: the drivers hold their targets at once', async (t) => {
  const persistence = new MemoryPersistence();
  const su = plant(persistence);
  await su.run(3000);
  const running = claimState(su);
  const backup = su.runtime.backupSave();
  su.runtime.paused = true;
  await su.runtime.backupLoad(backup);
  t.same(claimState(su), running, 'owned as before the load, with no block running');
  su.patch('mock', 'ActuatorAnalogMock', { storedSetting: 55 });
  t.equal(su.data('mock').settingMode, 'CLAIMED', 'a setting written after it does not take over');
});

// A running profile after a start on a clock not set (a Pi with no saved time before network
// time): its update holds it at the wall time the service last saw, and claims its setpoint; the
// claims taken at load looked at the clock only, so until the first tick (for good with control
// off) the setpoint read as let go and took writes in STORED mode.
t.test('a running profile after a start on a clock not set: claimed at load as at the first tick', async (t) => {
  const persistence = new MemoryPersistence();
  const su = setup({ persistence });
  su.create('sensor', 'TempSensorExternal', { setting: 18, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 21, enabled: true });
  const anHourAgo = su.clock.wall()! / 1000 - HOUR;
  su.create('prof', 'SetpointProfile', {
    targetId: link('sp'),
    start: anHourAgo,
    enabled: true,
    points: [
      { time: 0, temperature: 10 },
      { time: 24 * HOUR, temperature: 12 },
    ],
  });
  await su.run(3000);
  t.equal(su.data('sp').claimedBy, 'prof', 'running: the profile holds it');
  const seen = su.clock.wall()!;

  // The app loads the blocks, then tells the runtime the wall time it saved last (wall-clock.ts).
  const again = setup({ persistence, clock: new ManualClock(su.clock.now(), null) });
  again.runtime.paused = true;
  again.runtime.wallLastSeen(seen);
  t.equal(again.data('sp').claimedBy, 'prof', 'before any tick: the profile holds it');
  t.equal(again.data('sp').settingMode, 'CLAIMED');
  again.runtime.paused = false;
  await again.run(100);
  t.equal(again.data('sp').claimedBy, 'prof', 'and the first tick leaves it so');
});
