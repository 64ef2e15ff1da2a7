// What the emulated plant has that a real one has and a PID tuning must cope with: a dead time
// between an actuator and its heat, a compressor that will not restart right after it stopped,
// a glycol jacket whose cooling depends on the glycol's temperature, and probes that lag and
// are noisy. Each is off by default (the plant of plant.test.ts is unchanged).
import t from 'tap';
import { ThermalPlant } from '../../drivers/sim/plant.js';
import { parsePlantConfig } from '../../drivers/sim/plant-config.js';

function run(plant: ThermalPlant, seconds: number, dt = 1): void {
  for (let s = 0; s < seconds; s += dt) plant.step(dt);
}

t.test('dead time: the heater is felt only after deadTimeSeconds, and stops being felt as late', async (t) => {
  let on = false;
  const delayed = new ThermalPlant({ deadTimeSeconds: 120 }, { heater: () => on });
  const direct = new ThermalPlant({}, { heater: () => on });
  on = true;
  for (let s = 0; s < 119; s++) {
    delayed.step(1);
    direct.step(1);
  }
  t.equal(delayed.air, 20, 'nothing reaches the air for the first 2 minutes');
  t.ok(direct.air > 21, `without dead time the air rose already (${direct.air.toFixed(2)})`);
  run(delayed, 61);
  t.ok(delayed.air > 20.3, `after the dead time the air warms (${delayed.air.toFixed(2)})`);
  run(delayed, 600);
  on = false;
  const atSwitch = delayed.air;
  run(delayed, 100);
  t.ok(delayed.air > atSwitch, 'switched off: the air keeps warming for the dead time');
  run(delayed, 600);
  t.ok(delayed.air < atSwitch, 'and cools afterwards');
  // The same heat arrives, only later: energy in = power x on-time.
  const e = delayed.energy();
  t.ok(Math.abs(e.heaterJ - 100 * 780) < 1e-6, `all ${780} s of heating delivered (${e.heaterJ.toFixed(1)} J)`);
});

t.test('dead time: short pulses arrive whole, whatever the steps the plant is advanced by', async (t) => {
  // A 2 s PWM at 15 %, advanced by the steps a control loop takes (the toggles and a tick a
  // second): the dead time (27 s) shifts the pulses off the step boundaries. The duty felt is the
  // average over each step of what was switched a dead time earlier, not the state at the step's
  // start (that made a 0.3 s pulse heat for a whole 1 s step, or not at all).
  let on = false;
  const plant = new ThermalPlant({ deadTimeSeconds: 27 }, { heater: () => on });
  const steps: [boolean, number][] = [
    [true, 0.3],
    [false, 0.7],
    [false, 1],
  ];
  let onSeconds = 0;
  for (let k = 0; k < 300; k++)
    for (const [state, dt] of steps) {
      on = state;
      plant.step(dt);
      if (state) onSeconds += dt;
    }
  // What was switched on in the last 27 s has not arrived yet: 13.5 pulses of 0.3 s.
  const expected = 100 * (onSeconds - 13.5 * 0.3);
  const got = plant.energy().heaterJ;
  t.ok(Math.abs(got - expected) < 100 * 0.31, `heat delivered ${got.toFixed(1)} J, switched ${expected.toFixed(1)} J`);
});

t.test('compressor restart protection: no start within minOffSeconds of the last stop', async (t) => {
  let asked = true;
  const plant = new ThermalPlant({ cooler: { minOffSeconds: 300 } }, { cooler: () => asked });
  run(plant, 60);
  t.equal(plant.state().cooler, 1, 'runs when first asked');
  asked = false;
  run(plant, 60);
  asked = true;
  let started = -1;
  for (let s = 0; s < 600 && started < 0; s++) {
    plant.step(1);
    if (plant.state().cooler > 0) started = s + 1;
  }
  t.ok(started >= 240 && started <= 241, `restarts 300 s after it stopped, not at once (after ${started} s)`);
  // Without the setting it restarts at once.
  let askedFree = true;
  const free = new ThermalPlant({}, { cooler: () => askedFree });
  run(free, 60);
  askedFree = false;
  run(free, 60);
  askedFree = true;
  free.step(1);
  t.equal(free.state().cooler, 1);
});

t.test(
  'glycol jacket: cooling follows the jacket-to-glycol difference and stops at the glycol temperature',
  async (t) => {
    const glycol = (glycolTemp: number) =>
      new ThermalPlant(
        {
          ambient: 20,
          beer: { heatCapacity: 800_000 },
          air: { heatCapacity: 15_000 },
          beerToAir: 40,
          airToAmbient: 2,
          cooler: { kind: 'glycol', glycolTemp, conductance: 100 },
        },
        { cooler: () => true },
      );
    const cold = glycol(0);
    const warm = glycol(8);
    run(cold, 3600, 5);
    run(warm, 3600, 5);
    t.ok(cold.beer < warm.beer, `colder glycol cools faster (${cold.beer.toFixed(2)} vs ${warm.beer.toFixed(2)})`);
    t.ok(cold.air > 0 && cold.air < 8, `the jacket sits between glycol and beer (${cold.air.toFixed(2)})`);
    run(cold, 30 * 24 * 3600, 60);
    t.ok(cold.beer >= 0, `the beer never goes below the glycol (${cold.beer.toFixed(3)})`);
    t.ok(cold.beer < 1.5, `but gets close to it (${cold.beer.toFixed(3)})`);
  },
);

t.test('probes: a lag behind the temperature, seeded noise of the configured spread', async (t) => {
  let on = true;
  const plant = new ThermalPlant({ sensor: { lagSeconds: 60 } }, { heater: () => on });
  run(plant, 300);
  t.ok(
    plant.reading('air') < plant.air - 0.5,
    `the probe lags a warming air (${plant.reading('air').toFixed(2)} < ${plant.air.toFixed(2)})`,
  );
  on = false;
  run(plant, 2400);
  t.ok(Math.abs(plant.reading('air') - plant.air) < 0.05, 'and catches up once it settles');

  const noisy = (seed: number) => new ThermalPlant({ sensor: { noise: 0.05, seed } });
  const a = noisy(7);
  const b = noisy(7);
  const c = noisy(8);
  const readings: number[] = [];
  let differs = false;
  for (let i = 0; i < 4000; i++) {
    a.step(1);
    b.step(1);
    c.step(1);
    t.equal(a.reading('beer'), b.reading('beer'));
    if (a.reading('beer') !== c.reading('beer')) differs = true;
    readings.push(a.reading('beer') - a.beer);
    if (i === 10) t.equal(a.reading('beer'), a.reading('beer'), 'the same between steps');
  }
  const mean = readings.reduce((s, v) => s + v, 0) / readings.length;
  const sd = Math.sqrt(readings.reduce((s, v) => s + (v - mean) ** 2, 0) / readings.length);
  t.ok(Math.abs(mean) < 0.005, `noise averages out (mean ${mean.toFixed(4)})`);
  t.ok(sd > 0.045 && sd < 0.055, `spread as configured (sd ${sd.toFixed(4)})`);
  t.ok(differs, 'another seed, other noise');
  t.equal(a.temperature('beer'), a.beer, 'the temperature itself has no noise');
});

t.test('config: the new settings are checked like the others', async (t) => {
  const c = parsePlantConfig({ cooler: { kind: 'glycol' }, sensor: { noise: 0.02 } });
  t.equal(c.cooler.kind, 'glycol');
  t.equal(c.cooler.glycolTemp, 2);
  t.equal(c.sensor.lagSeconds, 0);
  t.equal(c.sensor.seed, 1);
  t.equal(c.deadTimeSeconds, 0);
  t.throws(() => parsePlantConfig({ cooler: { kind: 'ammonia' } }), /plant\.cooler\.kind/);
  t.throws(() => parsePlantConfig({ deadTimeSeconds: -5 }), /plant\.deadTimeSeconds must be a number 0-3600, got -5/);
  t.throws(() => parsePlantConfig({ sensor: { noise: 50 } }), /plant\.sensor\.noise/);
  t.throws(() => parsePlantConfig({ sensor: { lag: 5 } }), /plant\.sensor\.lag is not a plant setting/);
});
