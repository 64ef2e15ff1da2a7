// The bench's table gives, for each fridge, how far one shortest compressor run moves the beer
// (shortestRunDose): the column that tells the hard fridges from the easy ones. Held to the
// emulated plant itself: one run of the minimum on time, from rest, against a twin without it. The
// bench also gives (with BENCH_VERBOSE) the beer's slow time constant beside the fitted one
// (beerTimeConstant), held here to how fast the emulated beer follows its room.
import t from 'tap';
import { ThermalPlant } from '../../drivers/sim/plant.js';
import { beerTimeConstant, plantCases, shortestRunDose } from '../../scripts/bench/autotune-plants.js';

t.test('one shortest run on the emulated fridge moves the beer as far as the table says', async (t) => {
  for (const c of plantCases('fermenter', 10, 49).slice(0, 6)) {
    const dose = shortestRunDose(c)!;
    t.ok(dose > 0.05 && dose < 1, `${c.name}: ${dose.toFixed(3)} degC`);
    // No fermentation and the room at the beer's temperature: only the run moves it.
    const config = { ...c.plant, ambient: c.setpoint, fermentationW: 0, sensor: {} };
    let on = false;
    const pulsed = new ThermalPlant(config, { cooler: () => on });
    const still = new ThermalPlant(config, { cooler: () => false });
    let deepest = 0;
    for (let s = 0; s < 6 * 3600; s++) {
      on = s < c.cool!.minOn!;
      pulsed.step(1);
      still.step(1);
      deepest = Math.max(deepest, still.beer - pulsed.beer);
    }
    // The beer's dip is a little less than the dose: the room gives back some while it happens.
    t.ok(deepest <= dose && deepest >= 0.85 * dose, `the plant's beer dips ${deepest.toFixed(3)} degC`);
  }
});

t.test('no compressor, no figure', async (t) => {
  t.equal(shortestRunDose(plantCases('kettle', 1, 50)[0]!), null, 'a kettle');
  t.equal(shortestRunDose(plantCases('conical', 1, 51)[0]!), null, 'a glycol jacket');
});

t.test("the beer's slow time constant is the one the emulated fridge shows", async (t) => {
  for (const c of plantCases('fermenter', 10, 49).slice(0, 4)) {
    const tau = beerTimeConstant(c)!;
    t.ok(tau > 5 * 3600 && tau < 60 * 3600, `${c.name}: ${(tau / 3600).toFixed(1)} h`);
    // Outputs off, no fermentation, the room 5 degC warmer: once the air's fast part has died
    // out, the beer's distance from the room shrinks by e every tau.
    const plant = new ThermalPlant({ ...c.plant, ambient: c.setpoint + 5, fermentationW: 0, sensor: {} }, {});
    const gap = () => c.setpoint + 5 - plant.beer;
    for (let s = 0; s < 3 * 3600; s++) plant.step(1);
    const before = gap();
    for (let s = 0; s < Math.round(tau); s++) plant.step(1);
    const shown = Math.round(tau) / Math.log(before / gap());
    t.ok(Math.abs(shown / tau - 1) < 0.02, `the plant's beer: ${(shown / 3600).toFixed(1)} h`);
  }
});
