import t from 'tap';
import { link, setup, type Setup } from './setup.js';

interface Opts {
  kp: number;
  ti?: number;
  td?: number;
  temp?: number;
  setpoint?: number;
  output?: Record<string, unknown>;
  pid?: Record<string, unknown>;
}

/** sensor (external, no timeout) -> setpoint (unfiltered) -> pid -> analog mock. */
function loop(o: Opts): Setup {
  const su = setup();
  su.create('sensor', 'TempSensorExternal', { setting: o.temp ?? 18, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', {
    sensorId: link('sensor'),
    storedSetting: o.setpoint ?? 20,
    filter: 'FILTER_NONE',
    enabled: true,
  });
  su.create('out', 'ActuatorAnalogMock', {
    minSetting: -1000,
    maxSetting: 1000,
    minValue: -1000,
    maxValue: 1000,
    ...(o.output ?? {}),
  });
  su.create('pid', 'Pid', {
    inputId: link('sp'),
    outputId: link('out'),
    kp: o.kp,
    ti: o.ti ?? 0,
    td: o.td ?? 0,
    ...(o.pid ?? {}),
  });
  return su;
}

const near = (a: number, b: number, tol: number) => Math.abs(a - b) <= tol;

t.test('P and I: the integral accumulates the error over real time; I = integral * Kp / Ti', async (t) => {
  const su = loop({ kp: 10, ti: 1000 });
  await su.run(100_000, 100);
  const d = su.data('pid');
  t.equal(d.active, true);
  t.equal(d.error, 2);
  t.equal(d.p, 20);
  t.ok(near(d.integral, 200, 2.5), `integral ${d.integral} ~ 2 degC * 100 s`);
  t.ok(near(d.i, (d.integral * 10) / 1000, 1e-9));
  t.ok(near(su.data('out').setting, d.p + d.i + d.d, 1e-9), 'the output gets P + I + D');
  t.equal(su.data('out').claimedBy, 'pid');
  t.equal(su.data('out').settingMode, 'CLAIMED');
  t.equal(d.inputSetting, 20);
  t.equal(d.inputValue, 18);
  t.ok(near(d.outputSetting, su.data('out').setting, 0.05), 'outputSetting shows the output (as of the previous step)');
  // Extra forced updates (writes) do not add extra integral: it is time-based.
  const before = su.data('pid').integral;
  for (let i = 0; i < 50; i++) su.patch('pid', 'Pid', { td: 0 });
  t.ok(su.data('pid').integral - before < 0.5, 'fifty writes add (almost) nothing');
  t.end();
});

t.test('a gain edit in a batch that fails later leaves the integral as it was', async (t) => {
  // A write of kp rescales the integral so I stays where it was; the batch puts kp back, so the
  // integral goes back with it (I would jump otherwise).
  const su = loop({ kp: 10, ti: 1000 });
  await su.run(100_000, 100);
  const before = su.data('pid').integral;
  t.throws(
    () =>
      su.runtime.batch('patch', [
        { id: 'pid', type: 'Pid', data: { kp: 20 } },
        { id: 'out', type: 'ActuatorAnalogMock', data: { minSetting: 'x' } },
      ]),
    /batch item 1/,
  );
  t.equal(su.data('pid').kp, 10, 'kp put back');
  await su.run(1000, 100);
  // A second more of 2 degC error adds 2.
  const after = su.data('pid').integral;
  t.ok(near(after, before + 2, 0.5), `and the integral (${before} before, ${after} a second after)`);
  t.end();
});

t.test('D: from the setpoint filter stage chosen by Td (or by hand), limited to 1 degC of error', async (t) => {
  const su = loop({ kp: 10, ti: 0, td: 100, temp: 18, setpoint: 20 });
  let temp = 18;
  const ramp = (slope: number) => () => {
    temp += slope / 10;
    (su.block('sensor').data as { setting: number }).setting = temp;
  };
  await su.run(600_000, 100, [ramp(0.001)]);
  let d = su.data('pid');
  t.equal(d.derivativeFilter, 'FILTER_90s', 'Td 100 s -> the 90 s stage');
  t.ok(near(d.derivative, 0.001, 1e-5), `derivative ${d.derivative} degC/s`);
  t.ok(near(d.d, -10 * 0.001 * 100, 0.01), `D = -Kp * dPV * Td (${d.d})`);
  su.patch('pid', 'Pid', { derivativeFilterChoice: 'FILTER_10m', td: 30 });
  t.equal(su.data('pid').derivativeFilter, 'FILTER_10m', 'manual choice wins over Td');
  su.patch('pid', 'Pid', { derivativeFilterChoice: 'FILTER_NONE', td: 30 });
  t.equal(su.data('pid').derivativeFilter, 'FILTER_45s', 'FILTER_NONE: chosen from Td again');
  su.patch('pid', 'Pid', { td: 1000 });
  t.equal(su.data('pid').derivativeFilter, 'FILTER_30m');
  su.patch('pid', 'Pid', { td: 100 });
  await su.run(600_000, 100, [ramp(0.05)]);
  d = su.data('pid');
  t.ok(near(d.derivative, 0.05, 1e-4));
  t.ok(near(d.d, -10, 1e-9), `D limited to Kp * 1 degC (${d.d})`);
  t.end();
});

t.test('the integral grows by the derivative-corrected error (e - dPV * Td)', async (t) => {
  // Sensor and setting rise together: error 1 degC, dPV 1/600 degC/s.
  const grow = async (td: number) => {
    const su = loop({ kp: 10, ti: 3600, td, temp: 10, setpoint: 11 });
    const ramp = () => {
      (su.block('sensor').data as { setting: number }).setting += 1 / 6000;
      (su.block('sp').data as { storedSetting: number }).storedSetting += 1 / 6000;
    };
    await su.run(1_200_000, 100, [ramp]);
    const start = su.data('pid').integral;
    await su.run(600_000, 100, [ramp]);
    return su.data('pid').integral - start;
  };
  const plain = await grow(0);
  const corrected = await grow(300);
  t.ok(near(plain, 600, 2), `without D the integral grows by e * t (${plain.toFixed(1)})`);
  t.ok(near(corrected, 300, 3), `with Td 300 s by (e - dPV * Td) * t = 0.5 * 600 (${corrected.toFixed(1)})`);
  t.end();
});

t.test('anti-windup: an output clipped by its range does not wind the integral up', async (t) => {
  const su = loop({ kp: 10, ti: 100, output: { maxSetting: 30 } });
  await su.run(600_000, 100);
  const d = su.data('pid');
  t.equal(su.data('out').setting, 30, 'clipped');
  t.ok(
    d.i <= 11,
    `I stays near what the clip allows (${d.i.toFixed(2)}; unbounded it would be ${(0.2 * 600).toFixed(0)})`,
  );
  t.ok(d.i > 5, `but it did grow to reach the clip (${d.i.toFixed(2)})`);
  // Error gone: the output follows at once instead of staying clipped while unwinding.
  su.patch('sensor', 'TempSensorExternal', { setting: 20 });
  await su.run(2000, 100);
  t.ok(su.data('out').setting < 12, `output drops right away (${su.data('out').setting.toFixed(2)})`);
  t.end();
});

t.test('anti-windup: an actuator that does not achieve its setting bleeds the integral', async (t) => {
  const su = loop({ kp: 10, ti: 100, output: { maxValue: 15 } });
  await su.run(600_000, 100);
  const d = su.data('pid');
  t.equal(su.data('out').value, 15);
  t.ok(su.data('out').setting > 15, 'the setting itself is not clipped');
  t.ok(d.i < 5, `I stays small (${d.i.toFixed(2)}) although the error persists`);
  t.ok(d.integral >= 0, 'and never changes sign');
  t.end();
});

t.test('anti-windup with a PWM: ripple is tolerated, a blocked actuator bleeds the integral', async (t) => {
  const run = async (blocked: boolean) => {
    const su = setup();
    su.create('pins', 'MockPins', {});
    su.create('mutex', 'Mutex', {});
    const mutexed = { mutexed: { mutexId: link('mutex'), extraHoldTime: 0, enabled: true } };
    su.create('sensor', 'TempSensorExternal', { setting: 18, timeout: 0 });
    su.create('sp', 'SetpointSensorPair', {
      sensorId: link('sensor'),
      storedSetting: 20,
      filter: 'FILTER_NONE',
      enabled: true,
    });
    su.create('other', 'DigitalActuator', {
      hwDevice: link('pins'),
      channel: 2,
      constraints: mutexed,
      storedState: blocked ? 'STATE_ACTIVE' : 'STATE_INACTIVE',
    });
    su.create('act', 'DigitalActuator', { hwDevice: link('pins'), channel: 1, constraints: mutexed });
    su.create('pwm', 'ActuatorPwm', { actuatorId: link('act'), period: 10 });
    su.create('pid', 'Pid', {
      inputId: link('sp'),
      outputId: link('pwm'),
      kp: 20,
      ti: 36_000,
      td: 0,
      integralReset: 5,
    });
    const start = su.data('pid').integral;
    await su.run(300_000, 50);
    return { grown: su.data('pid').integral - start, start, su };
  };
  const free = await run(false);
  t.ok(
    near(free.grown, 2 * 300, 6),
    `normal cycling: the integral grows by the full error (${free.grown.toFixed(1)} of 600)`,
  );
  t.ok(near(free.su.data('pwm').value, free.su.data('pwm').setting, 3), 'PWM achieves its setting');
  const blocked = await run(true);
  t.equal(blocked.su.pins('pins')[0], false, 'the PWM actuator never got the mutex');
  // Tracking time Ti/3 on what the PWM fails to deliver beyond its ripple: about -2.7 per second.
  t.ok(
    blocked.grown < -600,
    `blocked: the integral bleeds instead of growing (${blocked.grown.toFixed(0)} from ${blocked.start.toFixed(0)})`,
  );
  t.end();
});

t.test('bumpless Kp and Ti changes, integralReset', async (t) => {
  const su = loop({ kp: 10, ti: 1000 });
  await su.run(100_000, 100);
  const i0 = su.data('pid').i;
  su.patch('pid', 'Pid', { kp: 25 });
  t.ok(
    near(su.data('pid').i, i0, 0.01),
    `I unchanged by a new Kp (${i0.toFixed(4)} -> ${su.data('pid').i.toFixed(4)})`,
  );
  t.equal(su.data('pid').p, 50, 'P follows Kp');
  su.patch('pid', 'Pid', { ti: 4000 });
  t.ok(near(su.data('pid').i, i0, 0.01), `I unchanged by a new Ti (${su.data('pid').i.toFixed(4)})`);
  su.patch('pid', 'Pid', { integralReset: 7 });
  t.ok(near(su.data('pid').i, 7, 1e-3), 'integralReset sets I');
  t.equal(su.data('pid').integralReset, 0, 'integralReset is a one-shot command');
  su.patch('pid', 'Pid', { integralReset: 0.001 });
  t.ok(near(su.data('pid').i, 0, 0.002), '0.001 means zero');
  t.end();
});

t.test('boil mode: minimum output, no integral', async (t) => {
  const su = loop({ kp: 10, ti: 100, temp: 99.9, setpoint: 100, pid: { boilPointAdjust: -0.5, boilMinOutput: 60 } });
  await su.run(60_000, 100);
  let d = su.data('pid');
  t.equal(d.boilModeActive, true);
  t.equal(d.integral, 0);
  t.ok(near(su.data('out').setting, 60, 1e-9), 'output at least boilMinOutput');
  su.patch('pid', 'Pid', { boilPointAdjust: 0.5 });
  await su.run(10_000, 100);
  d = su.data('pid');
  t.equal(d.boilModeActive, false, 'setting below 100 + adjust: no boil mode');
  t.ok(d.integral > 0);
  t.ok(su.data('out').setting < 10);
  t.end();
});

t.test('invalid input: inactive, output setting null, the integral decays instead of resetting', async (t) => {
  const su = loop({ kp: 10, ti: 1000 });
  await su.run(100_000, 100);
  su.patch('sensor', 'TempSensorExternal', { enabled: false });
  let integral = 0;
  let goneAt = 0;
  await su.run(15_000, 100, [
    (now) => {
      if (!goneAt && su.data('pid').active === false) {
        goneAt = now;
        integral = su.data('pid').integral;
      }
    },
  ]);
  let d = su.data('pid');
  t.ok(goneAt > 0, 'inactive once the setpoint value is null');
  t.equal(d.active, false);
  t.equal(d.inputValue, null);
  t.equal(su.data('out').setting, null, 'output setting null');
  t.equal(su.data('out').claimedBy, 'pid', 'claim kept');
  t.equal(d.p, null);
  t.ok(d.integral > 0 && d.integral < integral, `integral decays (${integral.toFixed(1)} -> ${d.integral.toFixed(1)})`);
  await su.run(600_000, 1000);
  const expected = integral * Math.exp(-(su.clock.now() - goneAt) / 1000 / 1000);
  t.ok(
    near(su.data('pid').integral, expected, 0.02 * integral),
    `decays with time constant Ti (${su.data('pid').integral.toFixed(1)} ~ ${expected.toFixed(1)})`,
  );
  su.patch('sensor', 'TempSensorExternal', { enabled: true });
  await su.run(2000, 100);
  d = su.data('pid');
  t.equal(d.active, true, 'active again');
  t.ok(near(su.data('out').setting, d.p + d.i, 1e-9), 'driving again');
  t.end();
});

t.test('disabled: output setting null once, claim released, integral reset', async (t) => {
  const su = loop({ kp: 10, ti: 1000 });
  await su.run(10_000, 100);
  su.patch('pid', 'Pid', { enabled: false });
  t.equal(su.data('pid').active, false);
  t.equal(su.data('out').claimedBy, null, 'released');
  t.equal(su.data('out').setting, null, 'the output (CLAIMED mode, unclaimed) has no setting');
  t.equal(su.data('pid').integral, 0);
  await su.run(10_000, 100);
  t.equal(su.data('out').setting, null);
  // The user takes over: a patch with a stored setting puts the output back in STORED mode.
  su.patch('out', 'ActuatorAnalogMock', { storedSetting: 33 });
  t.equal(su.data('out').settingMode, 'STORED');
  t.equal(su.data('out').setting, 33);
  t.end();
});

t.test('claims: first come first served; the second PID stays inactive', async (t) => {
  const su = loop({ kp: 10, ti: 0 });
  su.create('pid2', 'Pid', { inputId: link('sp'), outputId: link('out'), kp: -10, ti: 0, td: 0 });
  await su.run(5000, 100);
  t.equal(su.data('out').claimedBy, 'pid');
  t.equal(su.data('pid2').active, false);
  t.equal(su.data('out').setting, 20, 'driven by the first');
  su.runtime.delete({ id: 'pid' });
  await su.run(2000, 100);
  t.equal(su.data('out').claimedBy, 'pid2', 'the second takes over once the first is gone');
  t.equal(su.data('pid2').active, true);
  t.equal(su.data('out').setting, -20);
  t.end();
});
