// A MAX31850 thermocouple on the emulated 1-Wire bus, end to end through REST: discovered by its
// family code as a TempSensorOneWire, linked by a setpoint, faults named and counted in the
// block, CRC errors counted on the bus; the same through the emulated kernel w1 tree.
import t from 'tap';
import { q, simApp } from './sim-app.js';

const HERMS = {
  ds2482: [
    {
      address: '0x18',
      variant: 'ds2482-100',
      channels: [
        [
          { name: 'mash', type: 'DS18B20', address: '28-0000000000b1', temperature: 66 },
          {
            name: 'herms',
            type: 'MAX31850',
            address: '3b-0000000000f1',
            temperature: 350.75,
            coldJunction: 28,
            addressPins: 2,
          },
        ],
      ],
    },
  ],
  w1: [[{ name: 'kettle', type: 'MAX31850', address: '3b-0000000000f2', temperature: 99.5 }]],
};
const ID = 'Thermocouple 00f1';
const W1_ID = 'Thermocouple 00f2';

t.test(
  'discovered by family, read up to hundreds of degC, linked by a setpoint, faults named and counted, CRC errors counted',
  async (t) => {
    const s = await simApp({ sim: HERMS });
    t.teardown(() => s.close());
    const found = (await s.post('blocks/discover')).body;
    const tcs = found
      .filter((b: any) => b.type === 'TempSensorOneWire')
      .map((b: any) => b.id)
      .sort();
    t.same(tcs, ['Sensor 00b1', ID, W1_ID], 'MAX31850s found on the DS2482 channel and the kernel w1 bus');
    await s.run(2000);
    const herms = s.data(ID);
    t.equal(q(herms.value), 350.75, 'several hundred degC accepted');
    t.equal(q(herms.coldJunction), 28);
    t.same([herms.connected, herms.fault, herms.faults], [true, '', 0]);
    t.equal(herms.oneWireBusId.id, 'OneWire Bus ds2482-sim-0x18-ch0');
    t.equal(q(s.data(W1_ID).value), 99.5, 'through the kernel w1 path');

    const pair = await s.post('blocks/create', {
      id: 'herms sp',
      type: 'SetpointSensorPair',
      data: { sensorId: { __objtype: 'Link', id: ID }, storedSetting: 75, enabled: true },
    });
    t.equal(pair.status, 201, 'a setpoint links it (TempSensorInterface)');
    await s.post('sim/devices/herms/temperature', { value: 76.25 });
    await s.run(3000);
    t.equal(q(s.data('herms sp').value), 76.25, 'the setpoint sees its value');

    let faults = 0;
    for (const [fault, name] of [
      ['open', 'open circuit'],
      ['short-gnd', 'short to GND'],
      ['short-vcc', 'short to VCC'],
    ]) {
      const r = await s.post('sim/devices/herms/fault', { fault });
      t.equal(r.status, 200, `inject ${fault}`);
      await s.run(1500);
      const d = s.data(ID);
      t.equal(q(d.value), null, `${fault}: value null`);
      t.equal(d.fault, name, `${fault}: named in the block`);
      t.ok(d.faults > faults, `${fault}: counted (${d.faults})`);
      t.equal(d.connected, false);
      faults = d.faults;
      await s.post('sim/devices/herms/fault', { fault: 'clear' });
      await s.run(1500);
      t.equal(q(s.data(ID).value), 76.25, `${fault} cleared`);
      t.equal(s.data(ID).fault, '');
    }
    t.equal(q(s.data('Sensor 00b1').value), 66, 'the DS18B20 on the same bus was never disturbed');

    const kettleFault = await s.post('sim/devices/kettle/fault', { fault: 'open' });
    t.equal(kettleFault.status, 200);
    await s.run(1500);
    t.same(
      [q(s.data(W1_ID).value), s.data(W1_ID).fault],
      [null, 'open circuit'],
      'kernel w1 path: fault named though the kernel t= is plausible',
    );

    const bad = await s.post('sim/devices/mash/fault', { fault: 'open' });
    t.equal(bad.status, 422, 'a thermocouple fault on a DS18B20 is refused');
    t.match(bad.body.message, /MAX31850/);

    const crcBefore = (await s.get('system/status')).body;
    await s.post('sim/devices/herms/fault', { fault: 'crc', count: 'always' });
    await s.run(3000);
    t.equal(q(s.data(ID).value), null, 'CRC errors: null');
    t.equal(s.data(ID).fault, '', 'not a thermocouple fault');
    const crcCount = (status: any) =>
      JSON.stringify(status).match(/"name":"ds2482-sim-0x18-ch0"[^}]*"crcErrors":(\d+)/)?.[1];
    t.ok(
      Number(crcCount((await s.get('system/status')).body)) > Number(crcCount(crcBefore) ?? 0),
      'counted on the bus in system/status',
    );
  },
);

t.test('sim config checks MAX31850 settings by name', async (t) => {
  const { parseSimConfig } = await import('../../drivers/sim/sim-config.js');
  const dev = (extra: object) => ({ w1: [[{ name: 'tc', type: 'MAX31850', ...extra }]] });
  t.equal(parseSimConfig(dev({ temperature: 1200 })).w1[0]![0]!.temperature, 1200, 'thermocouple range');
  t.throws(
    () => parseSimConfig(dev({ temperature: 1500 })),
    /sim\.w1\[0\]\[0\]\.temperature must be a number between -270 and 1372/,
  );
  t.throws(() => parseSimConfig(dev({ addressPins: 16 })), /addressPins must be an integer 0-15/);
  t.throws(() => parseSimConfig({ w1: [[{ name: 'x', type: 'DS18B20', coldJunction: 20 }]] }), /only for a MAX31850/);
  t.throws(() => parseSimConfig(dev({ address: '28-0000000000f1' })), /family 0x28 does not match a MAX31850 \(0x3b\)/);
});
