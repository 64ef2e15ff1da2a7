import t from 'tap';
import { SimGpioBackend } from '../../drivers/gpio/sim-backend.js';
import { ThermalPlant } from '../../drivers/sim/plant.js';
import { DEFAULT_PLANT_CONFIG, parsePlantConfig } from '../../drivers/sim/plant-config.js';

function run(plant: ThermalPlant, seconds: number, dt = 1): void {
  for (let s = 0; s < seconds; s += dt) plant.step(dt);
}

t.test('heater raises the air within minutes and the beer over hours', async (t) => {
  let heating = true;
  const plant = new ThermalPlant({}, { heater: () => heating });
  run(plant, 10 * 60);
  t.ok(plant.air > 25, `air +5 K after 10 min (${plant.air.toFixed(2)})`);
  t.ok(plant.beer - 20 < 0.3, `beer barely moved after 10 min (${plant.beer.toFixed(3)})`);
  run(plant, 6 * 3600 - 600);
  t.ok(plant.beer > 24, `beer warmed after 6 h (${plant.beer.toFixed(2)})`);
  t.ok(plant.air > plant.beer, 'heat flows from air to beer');
  heating = false;
  const peak = plant.beer;
  run(plant, 3600);
  t.ok(plant.air < plant.beer, 'with the heater off the air drops below the beer');
  t.ok(plant.beer < peak + 0.5, 'and the beer stops rising');
});

t.test('cooler lowers the beer; cooling power fades at the evaporator floor', async (t) => {
  const plant = new ThermalPlant({ ambient: 22 }, { cooler: () => true });
  run(plant, 6 * 3600, 5);
  t.ok(plant.beer < 18, `beer cooled (${plant.beer.toFixed(2)})`);
  t.ok(plant.air < plant.beer, 'air colder than beer while cooling');
  run(plant, 7 * 24 * 3600, 60);
  t.ok(plant.air >= DEFAULT_PLANT_CONFIG.cooler.floorTemp, `air never below the floor (${plant.air.toFixed(2)})`);
  t.ok(plant.air < DEFAULT_PLANT_CONFIG.cooler.floorTemp + 10, 'but well below ambient');
});

t.test('without actuators everything tends to ambient', async (t) => {
  const plant = new ThermalPlant({ ambient: 20, initial: { beer: 10, air: 4 } });
  let lastGap = Infinity;
  for (let day = 0; day < 10; day++) {
    run(plant, 24 * 3600, 60);
    const gap = Math.abs(plant.beer - plant.ambient);
    t.ok(gap < lastGap, `day ${day + 1}: beer gap ${gap.toFixed(4)} K shrinks`);
    lastGap = gap;
  }
  t.ok(Math.abs(plant.beer - 20) < 0.05, `beer at ambient (${plant.beer.toFixed(4)})`);
  t.ok(Math.abs(plant.air - 20) < 0.05, `air at ambient (${plant.air.toFixed(4)})`);
  plant.setAmbient(15);
  run(plant, 3600, 10);
  t.ok(plant.air < 19 && plant.beer > 19.5, 'a colder room pulls the air first');
});

t.test('energy balance: stored heat change = heater - cooler + fermentation + room exchange', async (t) => {
  let tick = 0;
  const plant = new ThermalPlant(
    { ambient: 18, fermentationW: 12, heater: { powerW: 100, target: 'beer' } },
    { heater: () => tick % 600 < 200, cooler: () => (tick % 900 > 700 ? 0.5 : false) },
  );
  const start = plant.storedEnergyJ();
  let heaterOnSeconds = 0;
  for (tick = 0; tick < 12 * 3600; tick++) {
    if (tick % 600 < 200) heaterOnSeconds++;
    plant.step(1);
  }
  const e = plant.energy();
  const delta = plant.storedEnergyJ() - start;
  const flows = e.heaterJ - e.coolerJ + e.fermentationJ + e.ambientJ;
  t.ok(Math.abs(delta - flows) < 1e-6 * Math.abs(e.heaterJ), `balance ${delta.toFixed(1)} J vs ${flows.toFixed(1)} J`);
  t.ok(Math.abs(e.heaterJ - 100 * heaterOnSeconds) < 1e-6, 'heater energy = power x on-time');
  t.ok(Math.abs(e.fermentationJ - 12 * 12 * 3600) < 1e-6, 'fermentation energy = power x time');
  t.ok(e.coolerJ > 0 && e.coolerJ <= 0.5 * 150 * 12 * 3600, 'cooler at half duty removes at most half power');
  t.equal(plant.time, 12 * 3600);
});

t.test('deterministic, and step size only changes the result by a little', async (t) => {
  const make = () => {
    let n = 0;
    return new ThermalPlant({ fermentationW: 8 }, { heater: () => n++ % 7 < 3, cooler: () => n % 11 === 0 });
  };
  const a = make();
  const b = make();
  for (let i = 0; i < 5000; i++) {
    a.step(1);
    b.step(1);
  }
  t.same(a.state(), b.state(), 'same inputs, bit-identical state');

  const fine = new ThermalPlant({ initial: { beer: 12, air: 30 } }, { heater: () => true });
  const coarse = new ThermalPlant({ initial: { beer: 12, air: 30 } }, { heater: () => true });
  run(fine, 3600, 1);
  coarse.step(3600);
  t.ok(Math.abs(fine.beer - coarse.beer) < 0.05, `beer ${fine.beer.toFixed(3)} vs ${coarse.beer.toFixed(3)}`);
  t.ok(Math.abs(fine.air - coarse.air) < 0.2, `air ${fine.air.toFixed(3)} vs ${coarse.air.toFixed(3)}`);
  t.throws(() => fine.step(-1), RangeError);
  t.throws(() => fine.step(Number.NaN), RangeError);
});

t.test('12 h at 1 s steps runs in one go (the control tests do this)', async (t) => {
  const plant: ThermalPlant = new ThermalPlant({}, { heater: () => plant.beer < 21, cooler: () => plant.beer > 21.5 });
  run(plant, 43200);
  t.ok(plant.beer > 20.5 && plant.beer < 22, `bang-bang keeps beer near 21 (${plant.beer.toFixed(2)})`);
});

t.test('wired to emulated GPIO lines (active-low relays)', async (t) => {
  const gpio = new SimGpioBackend();
  const heater = await gpio.open({ name: 'heater', line: 17, direction: 'out', activeLow: true });
  await gpio.open({ name: 'cooler', line: 27, direction: 'out', activeLow: true });
  const plant = new ThermalPlant({}, { heater: () => gpio.isActive('heater'), cooler: () => gpio.isActive('cooler') });
  run(plant, 600);
  t.equal(plant.air, 20, 'relays released: nothing happens');
  await heater.write(true);
  t.equal(gpio.physical(17), 0);
  run(plant, 600);
  t.ok(plant.air > 24, 'heater relay pulled low heats the chamber');
  t.equal(plant.state().heater, 1);
});

t.test('config: defaults, partial overrides, clear errors', async (t) => {
  const config = parsePlantConfig({ ambient: 16, cooler: { powerW: 200 } });
  t.equal(config.initial.beer, 16, 'initial temperatures default to ambient');
  t.equal(config.cooler.powerW, 200);
  t.equal(config.cooler.target, 'air');
  t.equal(config.heater.powerW, DEFAULT_PLANT_CONFIG.heater.powerW);
  t.throws(
    () => parsePlantConfig({ beer: { heatCapacity: 0 } }),
    /plant\.beer\.heatCapacity must be a number greater than 0, got 0/,
  );
  t.throws(() => parsePlantConfig({ heater: { target: 'room' } }), /plant\.heater\.target must be 'air' or 'beer'/);
  t.throws(() => parsePlantConfig({ ambiant: 20 }), /plant\.ambiant is not a plant setting/);
  t.throws(() => parsePlantConfig({ ambient: '20' }), /plant\.ambient must be a number/);
  t.throws(() => parsePlantConfig([]), /plant must be an object/);
  t.throws(() => new ThermalPlant({ airToAmbient: -1 }), /plant\.airToAmbient must be a number of at least 0, got -1/);
});
