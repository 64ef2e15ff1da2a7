// A Sequence SET_* on a block another block drives (reference §4.2/§4.3, Brewblox's 2022-09
// stored/desired decision): the instruction writes the stored setting (kept for later, as a REST
// write keeps it) but returns the block to STORED mode only when nothing drives it. Before, it
// set settingMode STORED on the driven block too: the driver took it back at its next update,
// but a driver let go within that second (a DISABLE on the next line, the profile's own
// update not yet due) left the block running on the Sequence's value instead of none, so what
// the beer got depended on when the driver had last run.
import t from 'tap';
import { link, setup } from './setup.js';

/** A setpoint a profile drives, a PWM a PID drives, an actuator that PWM drives. */
function driven() {
  const su = setup();
  su.create('Pins', 'MockPins', {});
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', {
    sensorId: link('sensor'),
    storedSetting: 10,
    enabled: true,
    filter: 'FILTER_NONE',
  });
  su.create('profile', 'SetpointProfile', {
    enabled: true,
    targetId: link('sp'),
    start: Math.floor(su.clock.wall()! / 1000) - 60,
    points: [
      { time: 0, temperature: 15 },
      { time: 86_400, temperature: 15 },
    ],
  });
  su.create('out', 'DigitalActuator', { hwDevice: link('Pins'), channel: 3, storedState: 'STATE_INACTIVE' });
  su.create('pwm', 'ActuatorPwm', { enabled: true, storedSetting: 30, actuatorId: link('out'), period: 10_000 });
  su.create('fridge', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 10, enabled: true });
  su.create('pid', 'Pid', { enabled: true, inputId: link('fridge'), outputId: link('pwm'), kp: -10, ti: 0, td: 0 });
  return su;
}

t.test('SET_* on a driven block keeps it in CLAIMED mode; its stored setting is kept for later', async (t) => {
  const su = driven();
  await su.run(3000);
  t.equal(su.data('sp').claimedBy, 'profile');
  t.equal(su.data('pwm').claimedBy, 'pid');
  t.equal(su.data('out').claimedBy, 'pwm');
  // The lines run in one tick: each driver is let go on the line after the SET, before its next update.
  su.create('seq', 'Sequence', {
    enabled: true,
    instructions: [
      'SET_SETPOINT target=sp, setting=25C',
      'DISABLE target=profile',
      'SET_PWM target=pwm, setting=80',
      'SET_DIGITAL target=out, setting=STATE_ACTIVE',
      'DISABLE target=pid',
      'WAIT',
    ],
  });
  t.equal(su.data('seq').activeInstruction, 5, 'the SET chain ran');
  t.equal(su.data('sp').storedSetting, 25, 'the setpoint keeps the value for later');
  t.equal(su.data('pwm').storedSetting, 80);
  t.equal(su.data('out').storedState, 'STATE_ACTIVE');
  await su.run(3000);
  for (const id of ['sp', 'pwm']) {
    t.equal(su.data(id).claimedBy, null, `${id} let go`);
    t.equal(su.data(id).settingMode, 'CLAIMED', `${id}: set while driven, it did not take over`);
    t.equal(su.data(id).setting, null, `${id}: no setting until one is given while it is free`);
  }
  t.equal(su.data('out').settingMode, 'CLAIMED', 'the actuator the PWM drives stays CLAIMED');
  t.not(su.data('out').desiredState, 'STATE_ACTIVE', "not switched on by the Sequence's value");
  t.equal(su.pins('Pins')[2], false, 'the heater stays off');
});

t.test('SET_* on a free block returns it to STORED mode (the ratchet of user input)', async (t) => {
  const su = driven();
  await su.run(3000);
  su.create('seq', 'Sequence', {
    enabled: true,
    instructions: ['DISABLE target=profile', 'SET_SETPOINT target=sp, setting=25C', 'WAIT'],
  });
  await su.run(3000);
  t.equal(su.data('sp').claimedBy, null);
  t.equal(su.data('sp').settingMode, 'STORED', 'set after its driver let go: the Sequence takes over');
  t.equal(su.data('sp').setting, 25);
});
