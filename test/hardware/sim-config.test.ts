// The sim config schema: clear errors naming the field, deterministic addresses, the demo file.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { makeRom } from '../../drivers/onewire/address.js';
import { parseSimConfig } from '../../drivers/sim/sim-config.js';
import { DEMO_SIM_CONFIG } from '../../drivers/sim/sim-demo.js';
import { simApp } from './sim-app.js';
import { ROOT } from '../helpers/root.js';

const chip = (devices: unknown[]) => ({ ds2482: [{ address: 24, variant: 'ds2482-100', channels: [devices] }] });

t.test('bad configs are refused with the path of the offending field', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [[], /^sim must be an object/],
    [{ ds2482: [{ address: 16 }] }, /sim\.ds2482\[0\]\.address must be a DS2482 address 0x18\.\.0x1B/],
    [
      { ds2482: [{ address: 24, variant: 'ds2482-400' }] },
      /sim\.ds2482\[0\]\.variant must be 'ds2482-100' or 'ds2482-800'/,
    ],
    [
      { ds2482: [{ address: 24, variant: 'ds2482-100', channels: [[], []] }] },
      /sim\.ds2482\[0\]\.channels a ds2482-100 has 1 channel/,
    ],
    [{ ds2482: [{ address: 24 }, { address: '0x18' }] }, /sim\.ds2482\[1\]\.address 0x18 is used by another bridge/],
    [
      chip([{ name: 'x', type: 'DS1820' }]),
      /sim\.ds2482\[0\]\.channels\[0\]\[0\]\.type must be 'DS18B20', 'MAX31850', 'DS2408' or 'DS2413'/,
    ],
    [
      chip([{ name: 'x', type: 'DS18B20', address: '29-000000000001' }]),
      /\.address family 0x29 does not match a DS18B20/,
    ],
    [
      chip([{ name: 'x', type: 'DS18B20', address: '2801000000000000' }]),
      /\.address "2801000000000000" has a wrong CRC byte/,
    ],
    [chip([{ name: 'x', type: 'DS18B20', address: 'beer' }]), /\.address "beer" is neither a kernel name/],
    [
      chip([
        { name: 'x', type: 'DS18B20' },
        { name: 'x', type: 'DS2413' },
      ]),
      /\[0\]\[1\]\.name "x" is used by another device/,
    ],
    [chip([{ name: 'x', type: 'DS18B20', sense: 'wort' }]), /\.sense must be 'beer', 'air' or 'ambient'/],
    [
      chip([{ name: 'x', type: 'DS2408', outputs: { '9': 'heater' } }]),
      /\.outputs\.9 is not a channel of a DS2408 \(1\.\.8\)/,
    ],
    [chip([{ name: 'x', type: 'DS2413', outputs: { '1': 'fan' } }]), /\.outputs\[1\] must be 'heater' or 'cooler'/],
    [chip([{ name: 'x', type: 'DS18B20', colour: 'red' }]), /\[0\]\[0\]\.colour is not a setting/],
    [{ plant: { heater: { powerW: -1 } } }, /sim\.plant\.heater\.powerW must be a number of at least 0, got -1/],
    [
      { gpio: [{ name: 'a', line: 4, direction: 'in', drives: 'heater' }] },
      /sim\.gpio\[0\]\.drives needs an output line/,
    ],
    [
      {
        gpio: [
          { name: 'a', line: 4 },
          { name: 'b', line: 4 },
        ],
      },
      /sim\.gpio\[1\]\.line 4 is already used by "a"/,
    ],
    [
      { w1: [[{ name: 'x', type: 'DS18B20', temperature: 200 }]] },
      /sim\.w1\[0\]\[0\]\.temperature must be a number between -55 and 125/,
    ],
    [{ devices: [] }, /sim\.devices is not a setting/],
    // Every section is checked by its schema through drivers/schema-check.ts, worded the same way.
    [
      { i2cIo: [{ name: 'a', type: 'MCP23017', address: 32, plugd: true }] },
      /sim\.i2cIo\[0\]\.plugd is not a setting: unknown key; did you mean "plugged"\?/,
    ],
    [{ ds2482: [{ variant: 'ds2482-100' }] }, /sim\.ds2482\[0\]\.address is required: an integer 0-127 or a string/],
    [
      { i2cSensors: [{ name: 'a', type: 'BME280', inputs: [1, 2, 3, 4, 5] }] },
      /sim\.i2cSensors\[0\]\.inputs must hold at most 4 items, got 5/,
    ],
    [
      { w1: [[{ name: 'v', type: 'DS2408', valves: { '1': { travelSeconds: 0 } } }]] },
      /sim\.w1\[0\]\[0\]\.valves\[1\]\.travelSeconds must be a number greater than 0 and at most 600, got 0/,
    ],
  ];
  for (const [config, message] of cases)
    t.throws(() => parseSimConfig(config), { name: 'SimConfigError', message }, JSON.stringify(config));
});

t.test('addresses: kernel names and full ROMs accepted, a missing one derived from the name', async (t) => {
  const c = parseSimConfig(
    chip([
      { name: 'a', type: 'DS18B20', address: '28-0000000000b1' },
      { name: 'b', type: 'DS2408', address: makeRom(0x29, 0x1234) },
      { name: 'c', type: 'DS2413' },
    ]),
  );
  const [a, b, d] = c.ds2482[0]!.channels[0]!;
  t.equal(a!.address, makeRom(0x28, 0xb1));
  t.equal(b!.address, makeRom(0x29, 0x1234));
  t.match(d!.address, /^3a[0-9a-f]{14}$/);
  t.equal(
    parseSimConfig(chip([{ name: 'c', type: 'DS2413' }])).ds2482[0]!.channels[0]![0]!.address,
    d!.address,
    'same name, same address',
  );
  t.not(parseSimConfig(chip([{ name: 'other', type: 'DS2413' }])).ds2482[0]!.channels[0]![0]!.address, d!.address);
});

t.test('the demo config file is the built-in demo, and both parse', async (t) => {
  const file = JSON.parse(readFileSync(path.join(ROOT, 'scripts/demo-sim.json'), 'utf8'));
  delete file.$comment;
  t.same(file, DEMO_SIM_CONFIG);
  const parsed = parseSimConfig(DEMO_SIM_CONFIG);
  t.equal(parsed.ds2482[0]!.variant, 'ds2482-800');
  t.same(
    parsed.ds2482[0]!.channels.flat()
      .map((d) => d.type)
      .sort(),
    ['DS18B20', 'DS18B20', 'DS18B20', 'DS2408', 'DS2413', 'MAX31850'],
  );
  t.ok(
    parsed.ds2482[0]!.channels.flat().some((d) => d.outputs[1] === 'heater') &&
      parsed.ds2482[0]!.channels.flat().some((d) => d.outputs[2] === 'cooler'),
  );
});

t.test('a bad --sim-config stops the start with a message naming the file and the field', async (t) => {
  await t.rejects(
    simApp({ sim: chip([{ name: 'x', type: 'DS18B20', sense: 'wort' }]) }),
    /simConfig: .*sim\.json: sim\.ds2482\[0\]\.channels\[0\]\[0\]\.sense must be 'beer', 'air' or 'ambient'/,
  );
});
