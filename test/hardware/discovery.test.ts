// blocks/discover end to end through REST, on the emulated hardware with the real drivers.
import { spawnSync } from 'node:child_process';
import t from 'tap';
import { makeRom, romToKernelName } from '../../drivers/onewire/address.js';
import { q, simApp } from './sim-app.js';
import { limit } from '../helpers/limits.js';
import { needTools } from '../helpers/tools.js';

needTools('socat');

const FERMENTER = {
  plant: { ambient: 18, initial: { beer: 21, air: 19.5 } },
  ds2482: [
    {
      address: '0x18',
      variant: 'ds2482-800',
      channels: [
        [
          { name: 'beer', type: 'DS18B20', address: '28-0000000000b1', sense: 'beer' },
          { name: 'air', type: 'DS18B20', address: '28-0000000000a1', sense: 'air' },
        ],
        [
          { name: 'relays', type: 'DS2408', address: '29-0000000000d1', outputs: { '1': 'heater', '2': 'cooler' } },
          { name: 'io', type: 'DS2413', address: '3a-0000000000e1' },
        ],
      ],
    },
    {
      address: 25,
      variant: 'ds2482-100',
      channels: [[{ name: 'room', type: 'DS18B20', address: '28-0000000000c1', sense: 'ambient' }]],
    },
  ],
};

t.test(
  'discover creates readable, unique blocks for every device once, and their values follow the plant',
  async (t) => {
    const s = await simApp({ sim: FERMENTER });
    t.teardown(() => s.close());
    const first = await s.post('blocks/discover');
    t.equal(first.status, 200);
    const byType = (type: string) =>
      first.body
        .filter((b: any) => b.type === type)
        .map((b: any) => b.id)
        .sort();
    t.same(byType('TempSensorOneWire'), ['Sensor 00a1', 'Sensor 00b1', 'Sensor 00c1']);
    t.same(byType('DS2408'), ['DS2408 0000000000d1']);
    t.same(byType('DS2413'), ['DS2413 0000000000e1']);
    t.same(
      byType('OneWireBus'),
      ['OneWire Bus ds2482-sim-0x18-ch0', 'OneWire Bus ds2482-sim-0x18-ch1', 'OneWire Bus ds2482-sim-0x19-ch0'],
      'one bus block per master with devices',
    );
    const beer = first.body.find((b: any) => b.id === 'Sensor 00b1');
    t.equal(beer.data.address, makeRom(0x28, 0xb1), 'address: 16 hex digits, family first, CRC last');
    t.equal(romToKernelName(beer.data.address), '28-0000000000b1');
    t.ok(
      first.body.every((b: any) => b.nid >= 100),
      'user nids',
    );

    const second = await s.post('blocks/discover');
    t.equal(second.status, 200);
    t.same(second.body, [], 'nothing new the second time');
    const all = (await s.post('blocks/all/read')).body;
    t.equal(
      all.filter((b: any) => first.body.some((f: any) => f.id === b.id)).length,
      first.body.length,
      'discovered blocks are in all/read',
    );

    await s.run(2000);
    const plant = (await s.get('sim/plant')).body;
    const near = (v: number | null, want: number) => v !== null && Math.abs(v - want) <= 1 / 16;
    t.ok(near(q(s.data('Sensor 00b1').value), plant.beer), 'beer sensor reads the plant beer');
    t.ok(near(q(s.data('Sensor 00a1').value), plant.air), 'air sensor reads the chamber air');
    t.ok(near(q(s.data('Sensor 00c1').value), 18), 'room sensor reads ambient');
    t.equal(s.data('Sensor 00b1').connected, true);
    t.equal(s.data('Sensor 00b1').oneWireBusId.id, 'OneWire Bus ds2482-sim-0x18-ch0', 'linked to its bus');
    t.equal(s.data('DS2408 0000000000d1').connected, true);

    // Move the plant: the sensors follow within one conversion cycle.
    const moved = (await s.post('sim/plant', { beer: 12.5, air: 30 })).body;
    t.equal(moved.beer, 12.5);
    await s.run(2000);
    t.ok(near(q(s.data('Sensor 00b1').value), 12.5), 'beer follows the plant');
    const air = q(s.data('Sensor 00a1').value)!;
    t.ok(air < 30 && air > 29, `air cools from 30 toward the room: ${air}`);
    t.ok(near(air, (await s.get('sim/plant')).body.air), 'and matches the plant');

    // An offset is added to the reading.
    await s.post('blocks/patch', {
      id: 'Sensor 00c1',
      type: 'TempSensorOneWire',
      data: { offset: { __objtype: 'Quantity', unit: 'delta_degC', value: -0.5 } },
    });
    await s.run(300);
    t.ok(near(q(s.data('Sensor 00c1').value), 17.5), 'value = reading + offset');
  },
);

t.test('a sensor whose address no bus has reads null and is not connected; discovery only adds', async (t) => {
  const s = await simApp({ sim: FERMENTER });
  t.teardown(() => s.close());
  const created = await s.post('blocks/create', {
    id: 'Ghost',
    type: 'TempSensorOneWire',
    data: { address: makeRom(0x28, 0x777) },
  });
  t.equal(created.status, 201);
  await s.run(3000);
  t.equal(q(s.data('Ghost').value), null);
  t.equal(s.data('Ghost').connected, false);
  t.equal(s.data('Ghost').oneWireBusId.id, null);
  t.same(
    (await s.get('system/status')).body.hardware.onewire.missing,
    [makeRom(0x28, 0x777)],
    'status lists it as missing',
  );
  // Addresses no DS18B20 can have are not looked for at all.
  await s.post('blocks/create', { id: 'Unset', type: 'TempSensorOneWire', data: {} });
  await s.post('blocks/create', {
    id: 'Wrong family',
    type: 'TempSensorOneWire',
    data: { address: makeRom(0x29, 0x5) },
  });
  await s.run(1000);
  t.equal(q(s.data('Unset').value), null);
  t.equal(q(s.data('Wrong family').value), null);
  t.same(
    (await s.get('system/status')).body.hardware.onewire.missing,
    [makeRom(0x28, 0x777)],
    'only the real sensor address is missing',
  );
  const found = (await s.post('blocks/discover')).body;
  t.equal(found.filter((b: any) => b.type === 'TempSensorOneWire').length, 3, 'the three real sensors');
  t.ok((await s.post('blocks/read', { id: 'Ghost' })).status === 200, 'the absent device keeps its block');
});

t.test('discovery reaches every kind of master: kernel w1 tree, DS2482, DS2480B', async (t) => {
  const s = await simApp({
    sim: {
      w1: [
        [
          { name: 'w1-sensor', type: 'DS18B20', address: '28-000000000101', temperature: 4.5 },
          { name: 'w1-io', type: 'DS2413', address: '3a-000000000102' },
        ],
      ],
      ds2482: [
        {
          address: 26,
          variant: 'ds2482-100',
          channels: [[{ name: 'i2c-sensor', type: 'DS18B20', address: '28-000000000201', temperature: 30 }]],
        },
      ],
      ds2480b: [{ devices: [{ name: 'serial-sensor', type: 'DS18B20', address: '28-000000000301', temperature: -2 }] }],
    },
  });
  t.teardown(() => s.close());
  const found = (await s.post('blocks/discover')).body;
  const buses = found
    .filter((b: any) => b.type === 'OneWireBus')
    .map((b: any) => b.data.name)
    .sort();
  t.same(buses, ['ds2480b-sim-ds2480b-0', 'ds2482-sim-0x1a-ch0', 'w1-w1_bus_master1']);
  await s.run(3000);
  t.equal(q(s.data('Sensor 0101').value), 4.5, 'through the kernel w1 tree');
  t.equal(q(s.data('Sensor 0201').value), 30, 'through the DS2482');
  t.equal(q(s.data('Sensor 0301').value), -2, 'through the DS2480B');
  t.equal(s.data('DS2413 000000000102').connected, true, 'IO module through the kernel tree');
  const kinds = (await s.get('system/status')).body.hardware.onewire.buses.map((b: any) => b.kind).sort();
  t.same(kinds, ['ds2480b', 'ds2482', 'w1']);
  t.same((await s.post('blocks/discover')).body, []);
});

const hasSocat = spawnSync('socat', ['-V'], { timeout: limit(5000), killSignal: 'SIGKILL' }).status === 0;

t.test('a DS2480B behind a real pseudo-terminal goes through the serial driver', async (t) => {
  t.ok(hasSocat, 'socat must be installed for this test (apt-get install socat)');
  if (!hasSocat) return;
  const s = await simApp({
    sim: {
      ds2480b: [
        { pty: true, devices: [{ name: 'probe', type: 'DS18B20', address: '28-000000000301', temperature: 12.25 }] },
      ],
    },
  });
  t.teardown(() => s.close());
  const ports = s.app.hardware.sim!.serialPorts;
  t.equal(ports.length, 1);
  const found = (await s.post('blocks/discover')).body.map((b: any) => b.id).sort();
  t.same(found, [`OneWire Bus ds2480b-${ports[0]}`, 'Sensor 0301']);
  await s.run(3000);
  t.equal(q(s.data('Sensor 0301').value), 12.25);
});
