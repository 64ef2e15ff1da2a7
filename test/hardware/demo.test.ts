// The demo (npm run demo): the built-in emulated fermenter, the seed chain on its hardware, and
// discovery of the devices the seed leaves out.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { deviceBlockId } from '../../src/hardware/discovery.js';
import { q, simApp } from './sim-app.js';
import { ROOT } from '../helpers/root.js';

const seed = JSON.parse(readFileSync(path.join(ROOT, 'scripts/demo-blocks.json'), 'utf8'));

t.test('the demo seed loads on the built-in sim and its chain heats the beer', async (t) => {
  const s = await simApp();
  t.teardown(() => s.close());
  const devices = (await s.get('sim/devices')).body;
  for (const b of seed.blocks.filter((x: any) => x.data.address)) {
    t.ok(
      deviceBlockId(b.data.address),
      `${b.id} is a device discovery knows (it finds it by address, whatever its name)`,
    );
    t.ok(
      devices.some((d: any) => d.address === b.data.address),
      `${b.id} is on the emulated hardware`,
    );
  }
  // Sensors are named for what they measure, as a brewer would name them (issue 27.1).
  t.same(
    seed.blocks.filter((x: any) => x.type === 'TempSensorOneWire').map((x: any) => x.id),
    ['Beer Sensor', 'Fridge Sensor'],
  );
  const loaded = await s.post('blocks/backup/load', seed);
  t.equal(loaded.status, 200);
  t.same(loaded.body.messages, [], 'every seed block loads');
  await s.run(3000);
  t.equal(q(s.data('Beer Setpoint').value), 19, 'the setpoint sees the beer sensor');
  await s.run(120_000, 500);
  t.equal(s.data('Heat PID').active, true);
  t.ok(s.data('Heat PWM').setting > 0, 'heating asked for');
  t.ok(s.app.hardware.sim!.plant.state().time > 100);
  t.ok(q(s.data('Fridge Sensor').value)! > 20.5, 'the chamber air warms under the heater');

  const found = (await s.post('blocks/discover')).body.map((b: any) => b.id).sort();
  t.same(
    found,
    [
      'BME280 0x76',
      'DS2413 00000000e001',
      'MCP23017 0x20',
      'MCP9600 0x60',
      'OneWire Bus ds2482-sim-0x18-ch0',
      'OneWire Bus ds2482-sim-0x18-ch1',
      'OneWire Bus ds2482-sim-0x18-ch2',
      'Sensor c001',
      'Thermocouple f001',
    ],
    'discovery adds what the seed left out',
  );
  t.same((await s.post('blocks/discover')).body, []);
});
