// The Brewblox UI's "Fridge" quick start, block bodies exactly as the UI sends them
// (test/fixtures/brewblox/quickstart-fridge.json: legacy constrainedBy lists and all), controlling
// the emulated fridge (test/helpers/fermenter.ts) on a manual clock: cooling below room
// temperature, heating above it, never both outputs on.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { Fermenter, PlantProbe, type Sample } from '../helpers/fermenter.js';
import { ROOT } from '../helpers/root.js';

const qs = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/brewblox/quickstart-fridge.json'), 'utf8'));

t.test('fridge quick start holds the fridge air at 15 and at 25 degC in a 20 degC room', async (t) => {
  const f = new Fermenter({ setpoint: 20, probeOf: 'air', probeId: 'Fridge Sensor', setpointId: 'Fridge Setpoint' });
  f.runtime.create({ id: 'Pins', type: 'MockPins', data: {} });
  f.runtime.create({ id: 'Fridge Sensor', type: PlantProbe.type, data: {} });
  for (const block of qs.blocks) f.runtime.create(block);
  const runPhase = async (setting: number, hours: number) => {
    f.runtime.patch({
      id: 'Fridge Setpoint',
      type: 'SetpointSensorPair',
      data: { storedSetting: { __bloxtype: 'Quantity', value: setting, unit: 'degC' } },
    });
    let bothOn = 0;
    let heat = 0;
    let cool = 0;
    let n = 0;
    const late: number[] = [];
    const end = f.clock.now() / 1000 + hours * 3600;
    await f.run(hours * 3600, (s: Sample) => {
      if (s.heater && s.cooler) bothOn++;
      if (s.heater) heat++;
      if (s.cooler) cool++;
      n++;
      if (s.t > end - 2 * 3600) late.push(s.air);
    });
    const mean = late.reduce((a, b) => a + b, 0) / late.length;
    return { bothOn, heatShare: heat / n, coolShare: cool / n, mean, spread: Math.max(...late) - Math.min(...late) };
  };
  const cold = await runPhase(15, 8);
  t.equal(cold.bothOn, 0, 'never heating and cooling at once');
  t.ok(cold.coolShare > 0.1, `the compressor works (${(cold.coolShare * 100).toFixed(0)} % on)`);
  t.ok(
    Math.abs(cold.mean - 15) < 1,
    `air holds near 15 degC over the last 2 h (mean ${cold.mean.toFixed(2)}, spread ${cold.spread.toFixed(2)})`,
  );
  const warm = await runPhase(25, 8);
  t.equal(warm.bothOn, 0);
  t.ok(warm.heatShare > 0.05, `the heater works (${(warm.heatShare * 100).toFixed(0)} % on)`);
  t.ok(
    Math.abs(warm.mean - 25) < 1,
    `air holds near 25 degC over the last 2 h (mean ${warm.mean.toFixed(2)}, spread ${warm.spread.toFixed(2)})`,
  );
  t.comment(
    `figures: 15 degC mean ${cold.mean.toFixed(2)} spread ${cold.spread.toFixed(2)} cool ${(cold.coolShare * 100).toFixed(0)} %; 25 degC mean ${warm.mean.toFixed(2)} spread ${warm.spread.toFixed(2)} heat ${(warm.heatShare * 100).toFixed(0)} %`,
  );
});
