import t from 'tap';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { link, setup, type Setup } from './setup.js';

const s = (seconds: number) => ({ __objtype: 'Quantity', unit: 's', value: seconds });

function chain(su: Setup, opts: { period: number; setting: number; constraints?: Record<string, unknown> }) {
  su.create('pins', 'MockPins', {});
  su.create('act', 'DigitalActuator', { hwDevice: link('pins'), channel: 1, constraints: opts.constraints ?? {} });
  su.create('pwm', 'ActuatorPwm', { actuatorId: link('act'), period: s(opts.period), storedSetting: opts.setting });
}

/** On-fraction (%), rising edges and shortest on/off phases of pin 1 over `ms`. */
async function measure(su: Setup, ms: number, stepMs = 10) {
  let on = 0;
  let n = 0;
  let rises = 0;
  let prev = su.pins('pins')[0]!;
  let phaseStart = su.clock.now();
  const phases: { on: boolean; ms: number }[] = [];
  await su.run(ms, stepMs, [
    () => {
      const pin = su.pins('pins')[0]!;
      if (pin) on++;
      n++;
      if (pin !== prev) {
        if (pin) rises++;
        phases.push({ on: prev, ms: su.clock.now() - phaseStart });
        phaseStart = su.clock.now();
        prev = pin;
      }
    },
  ]);
  const inner = phases.slice(1);
  const shortest = (state: boolean) => Math.min(...inner.filter((p) => p.on === state).map((p) => p.ms));
  return { duty: (100 * on) / n, rises, shortestOn: shortest(true), shortestOff: shortest(false) };
}

t.test('achieved duty matches the setting, one cycle per period', async (t) => {
  for (const setting of [10, 25, 50, 75, 90]) {
    const su = setup();
    chain(su, { period: 10, setting });
    await su.run(30_000, 10);
    const m = await measure(su, 200_000);
    t.ok(Math.abs(m.duty - setting) < 0.5, `${setting} %: achieved ${m.duty.toFixed(2)} %`);
    t.ok(m.rises >= 19 && m.rises <= 21, `${setting} %: ${m.rises} cycles in 20 periods`);
    t.ok(Math.abs(su.data('pwm').value - setting) < 1.5, `${setting} %: value ${su.data('pwm').value.toFixed(2)}`);
    t.equal(su.data('pwm').setting, setting);
  }
  for (const setting of [0, 100]) {
    const su = setup();
    chain(su, { period: 10, setting });
    const m = await measure(su, 60_000);
    t.equal(m.duty, setting, `${setting} %: constant`);
    t.equal(m.rises, 0);
    t.equal(su.data('pwm').value, setting);
  }
  t.end();
});

t.test(
  'tracking for anti-windup: normal cycling stays within the ripple tolerance, a blocked actuator does not',
  async (t) => {
    const su = setup();
    su.create('mutex', 'Mutex', {});
    const mutexed = { mutexed: { mutexId: link('mutex'), extraHoldTime: s(0), enabled: true } };
    chain(su, { period: 30, setting: 40, constraints: mutexed });
    su.create('other', 'DigitalActuator', { hwDevice: link('pins'), channel: 2, constraints: mutexed });
    // A setting that moves every second, like a PID output does.
    let k = 0;
    const wobble = () => {
      if (++k % 10 === 0)
        (su.block('pwm').data as { storedSetting: number }).storedSetting =
          40 + 20 * Math.sin(k / 900) + 3 * Math.sin(k / 7);
    };
    await su.run(120_000, 100, [wobble]);
    let worst = 0;
    let outside = 0;
    await su.run(1_800_000, 100, [
      wobble,
      () => {
        const tr = su.block('pwm').state.tracking as { shortfall: number; tolerance: number };
        worst = Math.max(worst, Math.abs(tr.shortfall) / tr.tolerance);
        if (Math.abs(tr.shortfall) > tr.tolerance) outside++;
      },
    ]);
    t.equal(
      outside,
      0,
      `the achieved duty never strays beyond the tolerance (worst ${(100 * worst).toFixed(0)} % of it)`,
    );
    t.ok(worst > 0.2, 'the tolerance is not vastly larger than the real ripple');
    su.patch('other', 'DigitalActuator', { storedState: 'STATE_ACTIVE' });
    await su.run(120_000, 100, [wobble]);
    const tr = su.block('pwm').state.tracking as { shortfall: number; tolerance: number };
    t.ok(
      tr.shortfall - tr.tolerance > 20,
      `blocked by the mutex: shortfall ${tr.shortfall.toFixed(1)} beyond tolerance ${tr.tolerance.toFixed(1)}`,
    );
    t.end();
  },
);

t.test('a setting flickering around 0 % does not start a pulse each time it comes back', async (t) => {
  const su = setup();
  chain(su, { period: 60, setting: 0 });
  // Like a PID output hovering at zero: 0 % and 4 % every other second, 2 % on average.
  let k = 0;
  const flicker = () => {
    if (++k % 10 === 0) (su.block('pwm').data as { storedSetting: number }).storedSetting = (k / 10) % 2 ? 4 : 0;
  };
  await su.run(600_000, 100, [flicker]);
  let on = 0;
  let n = 0;
  let rises = 0;
  let prev = su.pins('pins')[0];
  await su.run(3_600_000, 100, [
    flicker,
    () => {
      const pin = su.pins('pins')[0];
      if (pin) on++;
      if (pin && !prev) rises++;
      prev = pin;
      n++;
    },
  ]);
  t.ok(
    Math.abs((100 * on) / n - 2) < 0.5,
    `average duty follows the average setting (${((100 * on) / n).toFixed(2)} %)`,
  );
  // 0 % means off, so a pulse may be cut by the dips; but returning does not restart it (1800 returns).
  t.ok(rises <= 120, `at most two pulses per period (${rises} in 60 periods)`);
  t.end();
});

t.test('from 0 % a new setting starts a pulse at once', async (t) => {
  const su = setup();
  chain(su, { period: 600, setting: 0 });
  await su.run(1_200_000, 1000);
  su.patch('pwm', 'ActuatorPwm', { storedSetting: 10 });
  await su.run(100, 100);
  t.equal(su.pins('pins')[0], true, 'on right away');
  await su.run(59_000, 1000);
  t.equal(su.pins('pins')[0], true);
  await su.run(2000, 1000);
  t.equal(su.pins('pins')[0], false, 'for 10 % of the period');
  t.end();
});

t.test('from 100 % a lower setting cycles normally right away, without paying anything back', async (t) => {
  const su = setup();
  chain(su, { period: 10, setting: 100 });
  await su.run(600_000, 100);
  su.patch('pwm', 'ActuatorPwm', { storedSetting: 80 });
  const m = await measure(su, 50_000);
  t.ok(Math.abs(m.duty - 80) < 1, `80 % from the first period on (${m.duty.toFixed(2)} %)`);
  t.ok(m.rises >= 4 && m.rises <= 5, `${m.rises} cycles in 5 periods`);
  t.end();
});

t.test('setting is clipped to 0-100 and then constrained', async (t) => {
  const su = setup();
  chain(su, { period: 10, setting: 150 });
  await su.run(200, 100);
  t.equal(su.data('pwm').setting, 100);
  su.patch('pwm', 'ActuatorPwm', { storedSetting: 60, constraints: { max: { value: 40, enabled: true } } });
  await su.run(200, 100);
  t.equal(su.data('pwm').desiredSetting, 60);
  t.equal(su.data('pwm').setting, 40);
  t.equal(su.data('pwm').constraints.max.limiting, true);
  su.patch('pwm', 'ActuatorPwm', { storedSetting: -20, constraints: { min: { value: 5, enabled: true } } });
  await su.run(200, 100);
  t.equal(su.data('pwm').setting, 5);
  t.equal(su.data('pwm').constraints.min.limiting, true);
  t.end();
});

t.test('compensation: a minimum ON time at low duty stretches the OFF time', async (t) => {
  const su = setup();
  chain(su, { period: 10, setting: 20, constraints: { minOn: { duration: s(3), enabled: true } } });
  await su.run(60_000, 10);
  const m = await measure(su, 300_000);
  t.ok(m.shortestOn >= 2990, `every ON lasts the minimum 3 s (${m.shortestOn} ms)`);
  // Uncompensated the duty would be 3 / (3 + 8) = 27 %.
  t.ok(Math.abs(m.duty - 20) < 0.5, `average duty stays at 20 % (${m.duty.toFixed(2)} %)`);
  t.end();
});

t.test('compensation: a minimum OFF time at high duty stretches the ON time', async (t) => {
  const su = setup();
  chain(su, { period: 10, setting: 80, constraints: { minOff: { duration: s(3), enabled: true } } });
  await su.run(60_000, 10);
  const m = await measure(su, 300_000);
  t.ok(m.shortestOff >= 2990, `every OFF lasts the minimum 3 s (${m.shortestOff} ms)`);
  // Uncompensated the duty would be 8 / (8 + 3) = 73 %.
  t.ok(Math.abs(m.duty - 80) < 0.5, `average duty stays at 80 % (${m.duty.toFixed(2)} %)`);
  t.end();
});

t.test('compensation: a toggle delayed once by a mutex is made up in the next cycles', async (t) => {
  const su = setup();
  su.create('mutex', 'Mutex', {});
  const mutexed = { mutexed: { mutexId: link('mutex'), extraHoldTime: s(0), enabled: true } };
  chain(su, { period: 10, setting: 50, constraints: mutexed });
  su.create('other', 'DigitalActuator', { hwDevice: link('pins'), channel: 2, constraints: mutexed });
  await su.run(60_000, 10);
  // Another actuator holds the mutex for 4 s, from the middle of an OFF phase.
  await su.run(20, 10);
  while (su.pins('pins')[0]) await su.run(10, 10);
  await su.run(2500, 10);
  su.patch('other', 'DigitalActuator', { storedState: 'STATE_ACTIVE' });
  await su.run(4000, 10);
  su.patch('other', 'DigitalActuator', { storedState: 'STATE_INACTIVE' });
  const m = await measure(su, 60_000);
  // 2.5 s of the ON time was lost; over the following 60 s it is delivered anyway.
  const expected = 50 + (100 * 2) / 60;
  t.ok(
    Math.abs(m.duty - expected) < 1,
    `the lost ON time is made up (${m.duty.toFixed(2)} %, ${expected.toFixed(2)} % expected)`,
  );
  const after = await measure(su, 100_000);
  t.ok(Math.abs(after.duty - 50) < 0.5, `then back to 50 % (${after.duty.toFixed(2)} %)`);
  t.end();
});

t.test('a null setting switches the actuator off once and persists OFF; a restart restores OFF', async (t) => {
  const persistence = new MemoryPersistence();
  const su = setup({ persistence });
  su.create('pins', 'MockPins', {});
  su.create('sensor', 'TempSensorExternal', { setting: 10, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 20, enabled: true });
  // A user had switched the heater on by hand before the PWM took it over.
  su.create('act', 'DigitalActuator', { hwDevice: link('pins'), channel: 1, storedState: 'STATE_ACTIVE' });
  su.create('pwm', 'ActuatorPwm', { actuatorId: link('act'), period: s(10) });
  su.create('pid', 'Pid', { inputId: link('sp'), outputId: link('pwm'), kp: 50, ti: 0, td: 0 });
  await su.run(5000, 100);
  t.equal(su.pins('pins')[0], true, 'heating');
  t.equal(su.data('act').claimedBy, 'pwm');
  const record = () => JSON.parse(persistence.records.get(su.block('act').nid)!.data) as Record<string, unknown>;
  t.equal(record().storedState, 1, 'stored state ACTIVE (as the integer in stored mode)');
  su.patch('sensor', 'TempSensorExternal', { enabled: false });
  await su.run(500, 100);
  t.equal(su.pins('pins')[0], true, 'still heating over a single missed sample');
  const writes = persistence.writes;
  let offAt = -1;
  await su.run(3000, 100, [
    (now) => void (offAt < 0 && su.data('pwm').setting === null && !su.pins('pins')[0] && (offAt = now)),
  ]);
  t.equal(su.data('pid').active, false);
  t.equal(su.data('pwm').setting, null);
  t.equal(su.pins('pins')[0], false, 'switched off');
  t.equal(su.data('act').desiredState, 'STATE_INACTIVE');
  t.equal(record().storedState, 0, 'OFF is persisted');
  t.equal(persistence.writes - writes, 1, 'by one write');
  await su.run(600_000, 1000);
  t.equal(persistence.writes - writes, 1, 'and not again');
  t.equal(su.pins('pins')[0], false);

  const after = setup({ persistence });
  await after.run(30_000, 100);
  t.equal(after.data('act').storedState, 'STATE_INACTIVE', 'restored OFF');
  t.equal(after.pins('pins')[0], false, 'stays off after a restart');
  t.equal(after.data('pid').active, false);
  t.end();
});

t.test('disabling the PWM switches its actuator off and releases it', async (t) => {
  const su = setup();
  chain(su, { period: 10, setting: 100 });
  await su.run(1000, 100);
  t.equal(su.pins('pins')[0], true);
  t.equal(su.data('act').claimedBy, 'pwm');
  su.patch('pwm', 'ActuatorPwm', { enabled: false });
  t.equal(su.pins('pins')[0], false, 'off in the same update');
  t.equal(su.data('act').claimedBy, null, 'released');
  t.equal(su.data('act').storedState, 'STATE_INACTIVE');
  t.equal(su.data('pwm').setting, null);
  t.equal(su.data('pwm').value, null);
  await su.run(20_000, 100);
  t.equal(su.pins('pins')[0], false);
  su.patch('pwm', 'ActuatorPwm', { enabled: true });
  await su.run(200, 100);
  t.equal(su.pins('pins')[0], true, 're-enabled: claims and drives again');
  t.equal(su.data('act').claimedBy, 'pwm');
  t.end();
});

t.test('value is null when the actuator state is unknown', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  su.create('act', 'DigitalActuator', { channel: 1 });
  su.create('pwm', 'ActuatorPwm', { actuatorId: link('act'), period: s(10), storedSetting: 50 });
  await su.run(30_000, 100);
  t.equal(su.data('act').state, null);
  t.equal(su.data('pwm').value, null);
  t.equal(su.data('pwm').setting, 50);
  t.end();
});

t.test('held up by a mutex, the PWM waits quietly and follows as soon as the actuator switches', async (t) => {
  const su = setup();
  su.create('mutex', 'Mutex', {});
  const mutexed = (hold: number) => ({ mutexed: { mutexId: link('mutex'), extraHoldTime: s(hold), enabled: true } });
  chain(su, { period: 10, setting: 50, constraints: mutexed(0) });
  su.create('other', 'DigitalActuator', {
    hwDevice: link('pins'),
    channel: 2,
    storedState: 'STATE_ACTIVE',
    constraints: mutexed(600),
  });
  await su.run(5_000, 100);
  t.equal(su.pins('pins')[1], true, 'the other actuator holds the mutex');
  su.patch('other', 'DigitalActuator', { storedState: 'STATE_INACTIVE' });
  // Step from one due time to the next, as the control loop does, through the 10 min hold.
  const pwm = su.block('pwm');
  let pwmUpdates = 0;
  let steps = 0;
  const end = su.clock.now() + 590_000;
  while (su.clock.now() < end) {
    const next = Math.min(end, Math.max(su.clock.now() + 1, su.runtime.nextDue()));
    if (pwm.nextUpdate <= next) pwmUpdates++;
    su.clock.set(next);
    su.runtime.tick(next);
    steps++;
  }
  t.equal(su.pins('pins')[0], false, 'still held off during the hold');
  t.ok(
    pwmUpdates < 1500,
    `the waiting PWM updates about once a second, not every millisecond (${pwmUpdates} in 590 s)`,
  );
  t.ok(steps < 3000, `${steps} scheduler steps in 590 s`);
  const released = su.clock.now() + 10_000;
  let onAt = -1;
  while (su.clock.now() < released && onAt < 0) {
    const next = Math.max(su.clock.now() + 1, su.runtime.nextDue());
    su.clock.set(next);
    su.runtime.tick(next);
    if (su.pins('pins')[0]) onAt = next;
  }
  t.ok(
    onAt >= 0 && onAt - end <= 10_001,
    `switches on when the hold ends (${((onAt - end) / 1000).toFixed(2)} s after)`,
  );
  // And the PWM heard of it: it runs at once and plans its off edge from the real switch.
  t.equal(pwm.nextUpdate, onAt, 'the switch woke the PWM');
  su.runtime.tick(onAt);
  const ahead = pwm.nextUpdate - onAt;
  t.ok(ahead > 1 && ahead <= 1000, `the PWM plans its next check from the switch, not 1 ms on (${ahead} ms ahead)`);
  t.end();
});

t.test('low duties on a short period are delivered when the loop steps from one due time to the next', async (t) => {
  // 2.2 % of 2 s is 44.000000000000004 ms in floating point: the off edge came out a hair after
  // the step that was due for it, the PWM kept the heater on, and the scheduler read the hair as
  // "no next time" and waited a whole second. A kettle element then gave ~15 % instead of 2.2 %.
  for (const [setting, period] of [
    [2.2, 2],
    [3.3, 2],
    [0.7, 10],
    [2.2, 10],
    [6.1, 4],
  ] as const) {
    const su = setup();
    chain(su, { period, setting });
    let on = 0;
    let total = 0;
    const start = su.clock.now() + 20_000;
    const end = su.clock.now() + 620_000;
    while (su.clock.now() < end) {
      const now = su.clock.now();
      const next = Math.min(end, Math.max(now + 1, su.runtime.nextDue()));
      if (now >= start) {
        total += next - now;
        if (su.pins('pins')[0]) on += next - now;
      }
      su.clock.set(next);
      su.runtime.tick(next);
    }
    const duty = (100 * on) / total;
    t.ok(Math.abs(duty - setting) < 0.1, `${setting} % on a ${period} s period: delivered ${duty.toFixed(2)} %`);
  }
  t.end();
});
