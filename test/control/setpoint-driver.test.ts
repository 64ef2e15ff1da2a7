import t from 'tap';
import { link, setup } from './setup.js';

function herms() {
  const su = setup();
  su.create('mtSensor', 'TempSensorExternal', { setting: 65, timeout: 0 });
  su.create('hltSensor', 'TempSensorExternal', { setting: 70, timeout: 0 });
  su.create('mt', 'SetpointSensorPair', {
    sensorId: link('mtSensor'),
    storedSetting: 67,
    filter: 'FILTER_NONE',
    enabled: true,
  });
  su.create('hlt', 'SetpointSensorPair', {
    sensorId: link('hltSensor'),
    storedSetting: 60,
    filter: 'FILTER_NONE',
    enabled: true,
  });
  su.create('driver', 'ActuatorOffset', { targetId: link('hlt'), referenceId: link('mt'), storedSetting: 5 });
  return su;
}

t.test('target = reference setting (or value) + offset; value = the achieved offset', async (t) => {
  const su = herms();
  await su.run(2000, 100);
  t.equal(su.data('hlt').setting, 72, 'HLT at MT setting + 5');
  t.equal(su.data('hlt').claimedBy, 'driver');
  t.equal(su.data('hlt').settingMode, 'CLAIMED');
  t.equal(su.data('driver').value, 3, 'achieved: HLT value 70 - MT setting 67');
  su.patch('driver', 'ActuatorOffset', { referenceSettingOrValue: 'REF_VALUE' });
  await su.run(2000, 100);
  t.equal(su.data('hlt').setting, 70, 'HLT at MT value + 5');
  t.equal(su.data('driver').value, 5);
  su.patch('driver', 'ActuatorOffset', { constraints: { max: { value: 2, enabled: true } } });
  await su.run(2000, 100);
  t.equal(su.data('driver').setting, 2, 'max constraint');
  t.equal(su.data('hlt').setting, 67);
  t.end();
});

t.test('no reference: the target setting is written null once', async (t) => {
  const su = herms();
  await su.run(2000, 100);
  su.patch('mt', 'SetpointSensorPair', { enabled: false });
  await su.run(2000, 100);
  t.equal(su.data('hlt').setting, null);
  t.equal(su.data('driver').value, null);
  t.equal(su.data('hlt').claimedBy, 'driver', 'still claimed');
  // Written once: the user can take the HLT over by hand while the reference is missing.
  su.patch('hlt', 'SetpointSensorPair', { storedSetting: 75 });
  await su.run(5000, 100);
  t.equal(su.data('hlt').desiredSetting, null, 'claimed: the driver request (null) wins over the stored setting');
  su.patch('mt', 'SetpointSensorPair', { enabled: true });
  await su.run(2000, 100);
  t.equal(su.data('hlt').setting, 72, 'reference back: driving again');
  t.end();
});

t.test('disabled: the target is released and goes null (CLAIMED mode)', async (t) => {
  const su = herms();
  await su.run(2000, 100);
  su.patch('driver', 'ActuatorOffset', { enabled: false });
  t.equal(su.data('hlt').claimedBy, null);
  t.equal(su.data('hlt').setting, null, 'in the same update');
  t.end();
});

t.test('a PID drives the setpoint driver (HERMS)', async (t) => {
  const su = herms();
  su.create('pid', 'Pid', { inputId: link('mt'), outputId: link('driver'), kp: 5, ti: 0, td: 0 });
  await su.run(3000, 100);
  t.equal(su.data('driver').claimedBy, 'pid');
  t.equal(su.data('driver').setting, 10, 'PID output 5 * (67 - 65) as the offset');
  t.equal(su.data('hlt').setting, 77);
  t.equal(su.data('pid').outputValue, 3, 'the PID sees the achieved offset');
  t.end();
});
