// Claims and settingMode (reference §4.2-4.4) across the control blocks.
import t from 'tap';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { link, setup } from './setup.js';

function chain(persistence = new MemoryPersistence()) {
  const su = setup({ persistence });
  su.create('sensor', 'TempSensorExternal', { setting: 18, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', {
    sensorId: link('sensor'),
    storedSetting: 20,
    filter: 'FILTER_NONE',
    enabled: true,
  });
  su.create('out', 'ActuatorAnalogMock', { storedSetting: 40 });
  su.create('out2', 'ActuatorAnalogMock', { storedSetting: 45 });
  su.create('pid', 'Pid', { inputId: link('sp'), outputId: link('out'), kp: 10, ti: 0, td: 0 });
  return su;
}

const record = (su: ReturnType<typeof setup>, persistence: MemoryPersistence, id: string) =>
  JSON.parse(persistence.records.get(su.block(id).nid)!.data) as Record<string, unknown>;

t.test('a claim switches the target to CLAIMED (persisted); the claimer wins over the stored setting', async (t) => {
  const persistence = new MemoryPersistence();
  const su = chain(persistence);
  await su.run(2000, 100);
  t.equal(su.data('out').claimedBy, 'pid');
  t.equal(su.data('out').settingMode, 'CLAIMED');
  t.equal(record(su, persistence, 'out').settingMode, 1, 'CLAIMED is stored');
  t.equal(su.data('out').setting, 20);
  su.patch('out', 'ActuatorAnalogMock', { storedSetting: 77 });
  await su.run(1000, 100);
  t.equal(su.data('out').storedSetting, 77);
  t.equal(su.data('out').setting, 20, 'while claimed the claimer decides');
  t.equal(su.data('out').settingMode, 'CLAIMED', 'and the claim keeps it in CLAIMED mode');
  t.end();
});

t.test(
  'claimer gone: the target stays inactive in CLAIMED mode, across a restart, until the user decides',
  async (t) => {
    const persistence = new MemoryPersistence();
    const su = chain(persistence);
    await su.run(2000, 100);
    su.runtime.delete({ id: 'pid' });
    t.equal(su.data('out').claimedBy, null, 'released on delete');
    await su.run(5000, 100);
    t.equal(su.data('out').setting, null, 'no jump back to the old stored setting');
    const again = setup({ persistence });
    await again.run(3000, 100);
    t.equal(again.data('out').settingMode, 'CLAIMED');
    t.equal(again.data('out').setting, null, 'still inactive after a restart');
    again.patch('out', 'ActuatorAnalogMock', { storedSetting: 30, settingMode: 'CLAIMED' });
    t.equal(again.data('out').setting, null, 'a patch that keeps settingMode CLAIMED stays inactive');
    again.patch('out', 'ActuatorAnalogMock', { storedSetting: 30 });
    t.equal(again.data('out').settingMode, 'STORED', 'a patch with a stored setting returns to STORED');
    t.equal(again.data('out').setting, 30);
    again.patch('out', 'ActuatorAnalogMock', { settingMode: 'CLAIMED' });
    t.equal(again.data('out').setting, null);
    again.runtime.write({ id: 'out', type: 'ActuatorAnalogMock', data: { storedSetting: 12, settingMode: 'STORED' } });
    t.equal(again.data('out').setting, 12, 'a write with settingMode STORED');
    t.end();
  },
);

t.test('relinking releases the old target and claims the new one', async (t) => {
  const su = chain();
  await su.run(2000, 100);
  su.patch('pid', 'Pid', { outputId: link('out2') });
  await su.run(1000, 100);
  t.equal(su.data('out').claimedBy, null);
  t.equal(su.data('out').setting, null, 'old output: unclaimed in CLAIMED mode');
  t.equal(su.data('out2').claimedBy, 'pid');
  t.equal(su.data('out2').setting, 20);
  t.end();
});

t.test('enable/disable side effects', async (t) => {
  const su = chain();
  await su.run(2000, 100);
  // A disabled setpoint has no setting: the PID goes inactive and its output null.
  su.patch('sp', 'SetpointSensorPair', { enabled: false });
  await su.run(1000, 100);
  t.equal(su.data('sp').setting, null);
  t.equal(su.data('pid').active, false);
  t.equal(su.data('out').setting, null);
  su.patch('sp', 'SetpointSensorPair', { enabled: true });
  await su.run(1000, 100);
  t.equal(su.data('out').setting, 20);
  // A disabled analog actuator has no setting, whoever claims it.
  su.patch('out', 'ActuatorAnalogMock', { enabled: false });
  await su.run(1000, 100);
  t.equal(su.data('out').desiredSetting, null);
  t.equal(su.data('out').setting, null);
  t.end();
});

t.test('a digital actuator driven by a Logic block goes off when the Logic block is deleted', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  su.create('fan', 'DigitalActuator', { hwDevice: link('pins'), channel: 1, storedState: 'STATE_ACTIVE' });
  su.create('sensor', 'TempSensorExternal', { setting: 30, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 20, enabled: true });
  su.create('logic', 'ActuatorLogic', {
    targetId: link('fan'),
    expression: 'A',
    analog: [{ op: 'OP_VALUE_GE', id: link('sp'), rhs: 25 }],
  });
  await su.run(500, 100);
  t.equal(su.pins('pins')[0], true);
  t.equal(su.data('fan').claimedBy, 'logic');
  su.runtime.delete({ id: 'logic' });
  await su.run(1100, 100);
  t.equal(su.data('fan').claimedBy, null);
  t.equal(su.data('fan').desiredState, null, 'CLAIMED mode without claimer: no desired state');
  t.equal(su.pins('pins')[0], false, 'off, not back to its old stored ON');
  t.end();
});
