// The PID relay autotune on the emulated fermenter (tuning-rig.ts): what it refuses to start or change
// (what else drives the chain, a shared mutex, a PID already paired), and a single side's tuning.
import t from 'tap';
import { command, fermenter, start, tuning } from './tuning-rig.js';

t.test('refusals: what else drives the chain, a shared mutex, a PID already paired', async (t) => {
  const f = fermenter().build();
  await f.run(600);
  const link = (id: string) => ({ __objtype: 'Link', id });
  // A third actuator on the same mutex, switched on: its waits would spoil the measurement.
  f.runtime.create({
    id: 'Pump',
    type: 'DigitalActuator',
    data: {
      hwDevice: link('Pins'),
      channel: 3,
      storedState: 'STATE_ACTIVE',
      constraints: { mutexed: { mutexId: link('Mutex'), extraHoldTime: 0, enabled: true } },
    },
  });
  await f.run(5);
  t.throws(() => start(f), /cannot start: .*mutex Mutex is also taken by Pump, which the tuning does not drive/);
  f.runtime.delete({ id: 'Pump' });

  // A third PID on the setpoint.
  f.runtime.create({
    id: 'Other PWM',
    type: 'ActuatorAnalogMock',
    data: {},
  });
  f.runtime.create({
    id: 'Other PID',
    type: 'Pid',
    data: { inputId: link('Beer Setpoint'), outputId: link('Other PWM'), kp: 10, enabled: true },
  });
  t.throws(
    () => start(f),
    /cannot start: Cool PID, Other PID also control Beer Setpoint: disable them, or name the pair in tuning.pairId/,
  );
  // With the pair named, the third PID is the one in the way, and naming is no longer the advice.
  let refusal = '';
  try {
    start(f, { pairId: link('Cool PID') });
  } catch (e) {
    refusal = (e as Error).message;
  }
  t.match(refusal, /cannot start: Other PID also controls Beer Setpoint: disable it$/);
  t.throws(
    () => start(f, { pairId: link('Heat PID') }),
    /cannot start: tuning\.pairId names Heat PID itself: the pair is the PID that drives the other way/,
  );
  f.runtime.delete({ id: 'Other PID' });

  // The heater's actuator driven by something else than its PWM.
  f.runtime.patch({ id: 'Heat PWM', type: 'ActuatorPwm', data: { actuatorId: link('Cool Actuator') } });
  t.throws(() => start(f), /Cool Actuator is driven by Cool PWM, not by Heat PWM/);
  f.runtime.patch({ id: 'Heat PWM', type: 'ActuatorPwm', data: { actuatorId: link('Heat Actuator') } });

  // Outside the band.
  f.setSetpoint(25);
  t.throws(() => start(f), /outside the band/);
  f.setSetpoint(20);

  // A band the first swings would leave, and nothing to stop.
  t.throws(
    () => start(f, { amplitude: 2 }),
    /cannot start: the band \(2 °C\) must be at least 2 times the amplitude \(2 °C\), or the first swings end the tuning; raise band or lower amplitude/,
  );
  t.equal(f.data('Heat PID').tuning.amplitude, 0.5, 'the refused write changed nothing');
  t.throws(() => command(f, 'STOP'), /nothing to stop: the tuning is IDLE/);
  t.throws(
    () => start(f, { hysteresis: 0.5 }),
    /cannot start: the hysteresis \(0\.5 °C\) must be below the amplitude \(0\.5 °C\)/,
  );

  // The pair cannot be tuned on its own while the tuning drives it. (0.12 degC is one of the
  // values that come back from degF a hair off: see the write of the whole block below.)
  start(f, { hysteresis: 0.12 });
  await f.run(30);
  t.throws(
    () => f.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { tuning: { command: 'START' } } }),
    /Cool PID is being tuned as the pair of Heat PID/,
  );
  t.equal(tuning(f).state, 'RUNNING', 'the running tuning goes on');
  t.throws(
    () => f.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { tuning: { command: 'STOP' } } }),
    /Cool PID is being tuned as the pair of Heat PID: STOP it there/,
  );
  // A rename of the pair is no change of the pair.
  f.runtime.rename({ existing: 'Cool PID', desired: 'Fridge Cooling' });
  await f.run(30);
  t.equal(tuning(f).state, 'RUNNING', `a renamed pair: the tuning goes on (${tuning(f).message})`);
  t.equal(f.data('Fridge Cooling').tuning.tunedBy, 'Heat PID', 'and still drives it');
  f.runtime.rename({ existing: 'Fridge Cooling', desired: 'Cool PID' });
  await f.run(30);
  t.equal(tuning(f).state, 'RUNNING');
  t.throws(
    () => start(f, { amplitude: 0.3 }),
    /already running: STOP it first to start again/,
    'a second START is refused, not taken silently',
  );
  t.equal(f.data('Heat PID').tuning.amplitude, 0.5, 'its settings were not taken either');
  t.throws(
    () => f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { tuning: { cycles: 6 } } }),
    /data\.tuning\.cycles: the running tuning took cycles 4 at its start; STOP it first to change it/,
    'a setting the run took at its start cannot change under it',
  );
  // The whole block written back as a degF client reads it: the same settings, converted twice.
  const units = f.runtime.units as { temperature: string };
  units.temperature = 'degF';
  const whole = JSON.parse(f.runtime.read({ id: 'Heat PID' }).bytes().toString()) as { data: Record<string, unknown> };
  f.runtime.write({ id: 'Heat PID', type: 'Pid', data: whole.data });
  units.temperature = 'degC';
  t.equal(tuning(f).state, 'RUNNING', 'a write of the same settings in degF is no change');
  f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { tuning: { band: 1.5, maxDuration: 7200 } } });
  t.same(
    [f.data('Heat PID').tuning.band, f.data('Heat PID').tuning.maxDuration],
    [1.5, 7200],
    'the limits it reads all along can',
  );
  t.end();
});

t.test(
  'a single side: the heater alone; actuators on its mutex that stay off do not stop it, one switched on does',
  async (t) => {
    const f = fermenter().build();
    const link = (id: string) => ({ __objtype: 'Link', id });
    f.runtime.create({
      id: 'Pump',
      type: 'DigitalActuator',
      data: { hwDevice: link('Pins'), channel: 3, constraints: { mutexed: { mutexId: link('Mutex'), enabled: true } } },
    });
    await f.run(600);
    f.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { enabled: false } });
    await f.run(60);
    start(f);
    await f.run(600);
    t.equal(tuning(f).state, 'RUNNING', tuning(f).message);
    t.equal(f.data('Cool PID').tuning.tunedBy, null, 'no pair');
    t.ok(tuning(f).levels.up > 0 && tuning(f).levels.down === 0, 'heat only: up is the heater, down is off');
    f.runtime.patch({ id: 'Pump', type: 'DigitalActuator', data: { storedState: 'STATE_ACTIVE' } });
    await f.run(5);
    t.equal(tuning(f).state, 'ABORTED');
    t.match(tuning(f).message, /stopped: Heat Actuator's mutex Mutex is also taken by Pump/);

    // The cooler's PID enabled again mid-run: the tuning stops (the chain changed).
    f.runtime.patch({ id: 'Pump', type: 'DigitalActuator', data: { storedState: 'STATE_INACTIVE' } });
    await f.run(60);
    start(f);
    await f.run(60);
    t.equal(tuning(f).state, 'RUNNING', tuning(f).message);
    f.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { enabled: true } });
    await f.run(5);
    t.equal(tuning(f).state, 'ABORTED');
    t.match(tuning(f).message, /stopped: Cool PID now drives the other way on the same setpoint/);
    t.end();
  },
);

// With degF chosen, the tuning's fields read in degF while its refusals and messages said degC:
// "the band (1.67 degC)" for a band typed as 3, "switches 0.1 degC either side of 20 degC" beside
// a setpoint showing 68 degF.
t.test("refusals and messages are in the brewer's unit", async (t) => {
  const f = fermenter().build();
  await f.run(600);
  const units = f.runtime.units as { temperature: string };
  units.temperature = 'degF';
  t.teardown(() => void (units.temperature = 'degC'));
  t.throws(
    () => start(f, { amplitude: 3.6 }),
    /cannot start: the band \(3\.6 °F\) must be at least 2 times the amplitude \(3\.6 °F\)/,
  );
  t.throws(() => start(f, { hysteresis: 0.9 }), /the hysteresis \(0\.9 °F\) must be below the amplitude \(0\.9 °F\)/);
  start(f, { hysteresis: 0.18 });
  await f.run(5);
  t.equal(tuning(f).state, 'RUNNING', tuning(f).message);
  t.match(tuning(f).message, /^relay running: the output switches 0\.18 °F either side of 68 °F$/);
  f.setSetpoint(69.8);
  await f.run(5);
  t.equal(tuning(f).state, 'ABORTED');
  t.match(tuning(f).message, /stopped: the setting changed from 68 °F to 69\.8 °F/);
});

// A batch is one change, and no block runs between its items: the setpoint's setting is not
// worked out again before the START is checked. The check uses the setting the setpoint's next
// update gives, so a START after a new setting in the same batch is judged by that setting, as
// when the two are sent one after the other.
t.test('a START in a batch after a new setting is checked against that setting', async (t) => {
  const f = fermenter().build();
  await f.run(600);
  const setpoint = (degC: number) => ({
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { storedSetting: degC },
  });
  const go = { id: 'Heat PID', type: 'Pid', data: { tuning: { command: 'START' } } };
  t.throws(() => f.runtime.batch('patch', [setpoint(25), go]), /batch item 1 .*outside the band/, 'far from 25');
  t.equal(f.data('Beer Setpoint').storedSetting, 20, 'nothing of the batch is kept');
  t.equal(tuning(f).state, 'IDLE');
  f.setSetpoint(25);
  t.throws(() => start(f), /outside the band/);
  f.runtime.batch('patch', [setpoint(20), go]);
  t.equal(tuning(f).state, 'RUNNING', 'back at 20 in the same batch: it starts');
});
