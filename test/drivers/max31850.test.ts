// MAX31850 (1-Wire family 3b): scratchpad decoding against the datasheet's data-format tables,
// the emulator on a DS2482 channel polled by the real driver (faults, CRC errors), and the kernel
// w1 path.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { romToKernelName } from '../../drivers/onewire/address.js';
import { crc8 } from '../../drivers/onewire/crc.js';
import { coldJunctionDegC, decodeFamily3b, thermocoupleDegC } from '../../drivers/onewire/max31850.js';
import { BusPoller } from '../../drivers/onewire/poller.js';
import { OneWireError } from '../../drivers/onewire/types.js';
import { W1SysfsBus } from '../../drivers/onewire/w1-sysfs.js';
import { OneWireSegment, SimDs18b20, SimMax31850 } from '../../drivers/sim/onewire-wire.js';
import { W1Tree } from '../../drivers/sim/w1-tree.js';
import { ds2482Rig, rejects } from './onewire-fixtures.js';

/** A scratchpad from the two 16-bit register words as the datasheet prints them (MSB first). */
function pad(tcWord: number, cjWord: number, config = 0xf0): number[] {
  const b = [tcWord & 0xff, tcWord >> 8, cjWord & 0xff, cjWord >> 8, config, 0xff, 0xff, 0xff];
  b.push(crc8(b));
  return b;
}

t.test('thermocouple and cold-junction formats decode as in the datasheet tables', async (t) => {
  // Thermocouple: 14 bits in D15..D2 (sign first), bits 1..0 not part of the value.
  const tc: Array<[string, number]> = [
    ['0110 0100 0000 00', 1600],
    ['0011 1110 1000 00', 1000],
    ['0000 0110 0100 11', 100.75],
    ['0000 0001 1001 00', 25],
    ['0000 0000 0000 00', 0],
    ['1111 1111 1111 11', -0.25],
    ['1111 1111 1111 00', -1],
    ['1111 0000 0110 00', -250],
  ];
  for (const [bits, want] of tc) {
    const word = parseInt(bits.replace(/ /g, ''), 2) << 2;
    t.equal(thermocoupleDegC(pad(word, 0)), want, `thermocouple ${bits}xx = ${want}`);
    t.equal(decodeFamily3b(pad(word, 0x1900)).temperature, want, `decoded with CRC check: ${want}`);
  }
  // Cold junction: 12 bits in D15..D4.
  const cj: Array<[string, number]> = [
    ['0111 1111 0000', 127],
    ['0110 0100 1001', 100.5625],
    ['0001 1001 0000', 25],
    ['0000 0000 0000', 0],
    ['1111 1111 1111', -0.0625],
    ['1111 1111 0000', -1],
    ['1110 1100 0000', -20],
    ['1100 1001 0000', -55],
  ];
  for (const [bits, want] of cj) {
    const word = parseInt(bits.replace(/ /g, ''), 2) << 4;
    t.equal(coldJunctionDegC(pad(0, word)), want, `cold junction ${bits} = ${want}`);
  }
  const r = decodeFamily3b(pad(0x0190 << 2, 0x190 << 4, 0xf5));
  t.same(
    r,
    { temperature: 100, coldJunction: 25, fault: null, addressPins: 5, chip: 'MAX31850' },
    'AD3..AD0 from the configuration byte',
  );
});

t.test('fault bits name the fault and void the temperature; a bad CRC is an error', async (t) => {
  const faults: Array<[number, string]> = [
    [0x1, 'open circuit'],
    [0x2, 'short to GND'],
    [0x4, 'short to VCC'],
  ];
  for (const [bit, name] of faults) {
    const r = decodeFamily3b(pad((0x190 << 2) | 1, (0x190 << 4) | bit));
    t.equal(r.fault, name);
    t.equal(r.temperature, null, `${name}: no temperature`);
    t.equal(r.coldJunction, 25, 'the chip temperature is still good');
  }
  t.equal(
    decodeFamily3b(pad((0x190 << 2) | 1, 0x190 << 4)).fault,
    'fault bit without detail',
    'summary bit alone is still a fault',
  );
  const bad = pad(0x190 << 2, 0x190 << 4);
  bad[1] ^= 0x10;
  const e = (() => {
    try {
      decodeFamily3b(bad);
    } catch (err) {
      return err;
    }
    return null;
  })();
  t.ok(e instanceof OneWireError && e.code === 'CRC', 'CRC mismatch throws code CRC');
  // A DS1825 shares the family; configuration bit 7 clear, DS18B20 format.
  const ds1825 = [0x91, 0x01, 0x4b, 0x46, 0x72, 0xff, 0x0f, 0x10];
  ds1825.push(crc8(ds1825));
  t.same(decodeFamily3b(ds1825), {
    temperature: 25.0625,
    coldJunction: null,
    fault: null,
    addressPins: 2,
    chip: 'DS1825',
  });
});

async function runUntil(poller: BusPoller, clock: { t: number }, until: number, step = 50): Promise<void> {
  while (clock.t < until) {
    clock.t = Math.min(until, clock.t + step);
    await poller.service(clock.t);
  }
}

t.test(
  'polled on a DS2482 next to a DS18B20: kettle temperatures, each fault -> null + named + counted, CRC errors',
  async (t) => {
    const { bus, segment, clock } = await ds2482Rig();
    const tc = segment.attach(
      new SimMax31850({ serial: 0xf001n, temperature: 650.25, coldJunction: 31.5, addressPins: 3 }),
    );
    const beer = segment.attach(new SimDs18b20({ serial: 0xb1n, temperature: 19.5 }));
    const poller = new BusPoller(bus);
    poller.watchTemperature(tc.address);
    poller.watchTemperature(beer.address);
    await runUntil(poller, clock, clock.t + 800);
    t.equal(poller.temperature(tc.address, clock.t), 650.25, 'several hundred degC pass');
    t.equal(poller.temperature(beer.address, clock.t), 19.5, 'the DS18B20 on the same bus still reads');
    t.equal(poller.sensor(tc.address)!.coldJunction, 31.5);
    t.equal(tc.conversions, 1, 'the bus-wide Convert T reached the MAX31850');

    let count = 0;
    for (const fault of ['open circuit', 'short to GND', 'short to VCC'] as const) {
      tc.setFault(fault);
      await runUntil(poller, clock, clock.t + 1000);
      const s = poller.sensor(tc.address)!;
      t.equal(poller.temperature(tc.address, clock.t), null, `${fault}: null right away`);
      t.equal(s.fault, fault, `${fault}: named`);
      t.ok(s.faultCount > count, `${fault}: counted (${s.faultCount})`);
      t.match(s.lastError, fault);
      count = s.faultCount;
      tc.setFault(null);
      await runUntil(poller, clock, clock.t + 1000);
      t.equal(poller.temperature(tc.address, clock.t), 650.25, `${fault} cleared: reads again`);
      t.equal(poller.sensor(tc.address)!.fault, null);
    }
    t.equal(poller.counters.thermocoupleFaults, count, 'bus counter matches');

    tc.corruptNextReads(1);
    await runUntil(poller, clock, clock.t + 1000);
    t.equal(poller.temperature(tc.address, clock.t), 650.25, 'one garbled frame: the CRC retry absorbs it');
    t.equal(bus.stats.crcRetries, 1, 'and counts the retry');
    tc.corruptAlways();
    await runUntil(poller, clock, clock.t + 3000);
    t.equal(poller.temperature(tc.address, clock.t), null, 'every frame garbled: null');
    t.ok(poller.counters.crcErrors >= 2, `CRC errors counted (${poller.counters.crcErrors})`);
    t.equal(poller.sensor(tc.address)!.fault, null, 'a CRC error is not a thermocouple fault');
    t.equal(poller.temperature(beer.address, clock.t), 19.5, 'the DS18B20 is unaffected');
  },
);

t.test('kernel w1 path: family 3b decoded from w1_slave bytes, faults named though t= looks plausible', async (t) => {
  const segment = new OneWireSegment({ name: 'w1' });
  const tc = segment.attach(new SimMax31850({ serial: 0xf002n, temperature: 212.5 }));
  const tree = new W1Tree({ masters: [segment] });
  t.teardown(() => tree.close());
  const bus = new W1SysfsBus({ root: tree.root, master: 'w1_bus_master1' });
  t.same(await bus.search(), [tc.address]);
  t.equal(romToKernelName(tc.address).slice(0, 3), '3b-');
  t.equal(await bus.readTemperature(tc.address), 212.5, 'above the DS18B20 range of 125');

  tc.setFault('short to VCC');
  tree.refresh();
  const text = readFileSync(join(tree.root, romToKernelName(tc.address), 'w1_slave'), 'utf8');
  t.match(text, /t=212500/, 'the kernel t= still shows a plausible value');
  t.equal(
    readFileSync(join(tree.root, romToKernelName(tc.address), 'temperature'), 'utf8'),
    '212500\n',
    'and so does temperature',
  );
  const r = await bus.readMax31850(tc.address);
  t.same([r.temperature, r.fault], [null, 'short to VCC'], 'the fault comes from the scratchpad bytes');
  const e = await rejects(bus.readTemperature(tc.address));
  t.match((e as Error).message, /short to VCC/);

  tc.setFault(null);
  tc.corruptAlways();
  tree.refresh();
  const crc = await rejects(bus.readMax31850(tc.address));
  t.equal((crc as OneWireError).code, 'CRC', 'crc=.. NO is a CRC error');
});
