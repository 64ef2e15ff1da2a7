// Closed-loop tests on the emulated fermenter (test/helpers/fermenter.ts): beer probe -> beer
// setpoint -> heat and cool PIDs -> PWMs (heater 10 s; compressor 10 min with minimum on/off
// times) -> digital actuators on MockPins, interlocked by a mutex with a 10 min hold.
import t from 'tap';
import { DEFAULT_COOL, DEFAULT_MUTEX_HOLD, Fermenter, type Sample } from '../helpers/fermenter.js';

/** Checks that hold on every tick: never both on, the mutex hold between them respected. */
function interlock() {
  let bothOn = 0;
  let handovers = 0;
  let shortestGap = Infinity;
  const lastOff = { heater: -Infinity, cooler: -Infinity };
  let prev: Sample | null = null;
  const observe = (s: Sample) => {
    if (s.heater && s.cooler) bothOn++;
    if (prev) {
      for (const [me, other] of [
        ['heater', 'cooler'],
        ['cooler', 'heater'],
      ] as const) {
        if (prev[me] && !s[me]) lastOff[me] = s.t;
        if (!prev[me] && s[me] && Number.isFinite(lastOff[other]) && lastOff[other] > lastOff[me]) {
          handovers++;
          shortestGap = Math.min(shortestGap, s.t - lastOff[other]);
        }
      }
    }
    prev = s;
  };
  return { observe, result: () => ({ bothOn, handovers, shortestGap }) };
}

const scenarios = [
  { name: 'room 20 degC', plant: {} },
  {
    name: 'room 24 degC, fermenting (15 W)',
    plant: { ambient: 24, initial: { beer: 20, air: 20 }, fermentationW: 15 },
  },
];

for (const scenario of scenarios) {
  t.test(
    `step 20 -> 18 degC, ${scenario.name}: settles within 0.1 degC, overshoot <= 0.3 degC, interlocked`,
    async (t) => {
      const f = new Fermenter({ setpoint: 20, plant: scenario.plant }).build();
      await f.run(600);
      t.ok(Math.abs(f.plant.beer - 20) < 0.25, `starts from about 20 degC (${f.plant.beer.toFixed(2)})`);
      f.setSetpoint(18);
      const writes = f.persistence.writes;
      const lock = interlock();
      const start = f.clock.now() / 1000;
      let lowest = Infinity;
      let lastOutside = start;
      let maxLate = 0;
      let heatOn = 0;
      let coolOn = 0;
      let ticks = 0;
      await f.run(16 * 3600, (s) => {
        lock.observe(s);
        lowest = Math.min(lowest, s.beer);
        if (Math.abs(s.beer - 18) > 0.1) lastOutside = s.t;
        if (s.t - start > 8 * 3600) maxLate = Math.max(maxLate, Math.abs(s.beer - 18));
        ticks++;
        if (s.heater) heatOn++;
        if (s.cooler) coolOn++;
      });
      const settling = (lastOutside - start) / 3600;
      const overshoot = 18 - lowest;
      const { bothOn, handovers, shortestGap } = lock.result();
      t.comment(
        `settling time (within +/-0.1 degC for good) ${settling.toFixed(2)} h; overshoot ${overshoot.toFixed(3)} degC; ` +
          `max deviation 8-16 h ${maxLate.toFixed(3)} degC; duty heat ${((100 * heatOn) / ticks).toFixed(1)} % cool ${((100 * coolOn) / ticks).toFixed(1)} %; ` +
          `heat/cool handovers ${handovers}, shortest gap ${Number.isFinite(shortestGap) ? (shortestGap / 60).toFixed(1) + ' min' : '-'}`,
      );
      t.ok(
        settling < 4,
        `settles within +/-0.1 degC (after ${settling.toFixed(2)} h) and stays there for the rest of 16 h`,
      );
      t.ok(overshoot <= 0.3, `overshoot ${overshoot.toFixed(3)} degC`);
      t.ok(overshoot > 0, 'the beer does reach the setpoint');
      t.equal(bothOn, 0, 'heater and cooler never on together');
      if (handovers > 0)
        t.ok(
          shortestGap >= DEFAULT_MUTEX_HOLD - 1,
          `the mutex hold (${DEFAULT_MUTEX_HOLD} s) separates them (shortest ${shortestGap.toFixed(1)} s)`,
        );
      t.equal(f.persistence.writes, writes, 'nothing written to the database during 16 h of control');
      t.end();
    },
  );
}

t.test('the mutex hold is exercised: heater and cooler take turns', async (t) => {
  // Holding 18 degC in a 20 degC room: the compressor's minimum run overshoots a little and the
  // heater corrects, so the two hand over regularly.
  const f = new Fermenter({ setpoint: 18, plant: { initial: { beer: 18, air: 18 } } }).build();
  const lock = interlock();
  await f.run(12 * 3600, lock.observe);
  const { bothOn, handovers, shortestGap } = lock.result();
  t.ok(handovers >= 5, `${handovers} handovers in 12 h`);
  t.ok(
    shortestGap >= DEFAULT_MUTEX_HOLD - 1,
    `never sooner than the ${DEFAULT_MUTEX_HOLD} s hold (shortest ${shortestGap.toFixed(1)} s)`,
  );
  t.equal(bothOn, 0);
  t.end();
});

t.test('sensor unplugged mid-run: both outputs off, persisted, and still off after a restart', async (t) => {
  const f = new Fermenter({ setpoint: 20 }).build();
  await f.run(600);
  f.setSetpoint(18);
  // Cooling hard: unplug once the compressor has run past its minimum on time.
  let coolingFor = 0;
  while (coolingFor < DEFAULT_COOL.minOn + 30) {
    await f.run(1);
    coolingFor = f.coolerOn ? coolingFor + 1 : 0;
  }
  t.ok(f.coolerOn, 'cooler on when the probe is unplugged');
  f.probeConnected = false;
  const unplugged = f.clock.now() / 1000;
  let setpointNull = -1;
  let allOff = -1;
  let onAgain = false;
  await f.run(3600, (s) => {
    if (setpointNull < 0 && f.data('Beer Setpoint').value === null) setpointNull = s.t;
    if (allOff < 0 && !s.heater && !s.cooler && setpointNull >= 0) allOff = s.t;
    else if (allOff >= 0 && (s.heater || s.cooler)) onAgain = true;
  });
  t.comment(
    `setpoint value null ${(setpointNull - unplugged).toFixed(1)} s after the probe; outputs off ${(allOff - setpointNull).toFixed(1)} s after that ` +
      `(${(allOff - unplugged).toFixed(1)} s after the probe)`,
  );
  t.ok(
    setpointNull > 0 && setpointNull - unplugged <= 2,
    `the setpoint value goes null within 2 s of the sensor's (${(setpointNull - unplugged).toFixed(1)} s)`,
  );
  t.ok(
    allOff >= 0 && allOff - unplugged <= 2,
    `both outputs off within 2 s of the sensor value going null (${(allOff - unplugged).toFixed(1)} s)`,
  );
  t.notOk(onAgain, 'and they stay off');
  for (const pid of ['Heat PID', 'Cool PID']) t.equal(f.data(pid).active, false, `${pid} inactive`);
  for (const pwm of ['Heat PWM', 'Cool PWM']) t.equal(f.data(pwm).setting, null, `${pwm} setting null`);
  const stored = (id: string) =>
    JSON.parse(f.persistence.records.get(f.block(id).nid)!.data) as { storedState: number };
  t.equal(stored('Heat Actuator').storedState, 0, 'heater OFF persisted');
  t.equal(stored('Cool Actuator').storedState, 0, 'cooler OFF persisted');

  // Restart from the database, probe still unplugged.
  const again = new Fermenter({
    setpoint: 18,
    persistence: f.persistence,
    plant: { initial: { beer: f.plant.beer, air: f.plant.air } },
  });
  again.probeConnected = false;
  let anyOn = false;
  await again.run(3600, (s) => void (anyOn ||= s.heater || s.cooler));
  t.notOk(anyOn, 'after a restart both stay off');
  t.equal(again.data('Cool Actuator').storedState, 'STATE_INACTIVE');
  // Plugged back in: control resumes by itself.
  again.probeConnected = true;
  await again.run(1800);
  t.equal(again.data('Cool PID').active, true, 'probe back: control resumes');
  t.end();
});

t.test('12 h profile is tracked within 0.2 degC', async (t) => {
  const f = new Fermenter({ setpoint: 18, plant: { initial: { beer: 18, air: 18 } } }).build();
  await f.run(1800);
  const start = Math.floor(f.clock.wall()! / 1000);
  // Hold 18 for 2 h, ramp to 20 over 8 h (0.25 degC/h), hold 20 for 2 h.
  f.runtime.create({
    id: 'Beer Profile',
    type: 'SetpointProfile',
    data: {
      targetId: { __objtype: 'Link', id: 'Beer Setpoint' },
      start,
      points: [
        { time: 0, temperature: 18 },
        { time: { __objtype: 'Quantity', unit: 'h', value: 2 }, temperature: 18 },
        { time: { __objtype: 'Quantity', unit: 'h', value: 10 }, temperature: 20 },
        { time: { __objtype: 'Quantity', unit: 'h', value: 12 }, temperature: 20 },
      ],
    },
  });
  const lock = interlock();
  let worst = 0;
  let sumSq = 0;
  let n = 0;
  let notDriven = 0;
  await f.run(12 * 3600, (s) => {
    lock.observe(s);
    const target = f.data('Beer Profile').setting as number;
    if (s.setting !== target) notDriven++;
    const err = Math.abs(s.beer - target);
    worst = Math.max(worst, err);
    sumSq += err * err;
    n++;
  });
  t.comment(`profile tracking: worst ${worst.toFixed(3)} degC, rms ${Math.sqrt(sumSq / n).toFixed(3)} degC`);
  t.ok(worst <= 0.2, `beer within 0.2 degC of the profile for 12 h (worst ${worst.toFixed(3)})`);
  t.equal(notDriven, 0, 'the profile drives the setpoint on every tick');
  t.equal(f.data('Beer Setpoint').setting, 20, 'ends at the last point');
  t.equal(lock.result().bothOn, 0);
  t.end();
});
