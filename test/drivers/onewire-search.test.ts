import t from 'tap';
import { crc8 } from '../../drivers/onewire/crc.js';
import { Ds2482Chip, probeDs2482 } from '../../drivers/onewire/ds2482.js';
import { bytesToRom, makeRom, romToBytes, searchRoms } from '../../drivers/onewire/search.js';
import { createDs2482Sim } from '../../drivers/sim/ds2482-sim.js';
import { OneWireSegment, SimDs18b20, SimDs2408, SimDs2413, type SimSlave } from '../../drivers/sim/onewire-wire.js';

// Serials chosen so that the ROMs share long prefixes and disagree at many bit positions.
const SERIALS = [0x000000000001n, 0x000000000003n, 0x000000000007n, 0x000000000005n, 0x000000010001n, 0x800000000001n];

function populate(seg: OneWireSegment, salt: bigint): SimSlave[] {
  const devices: SimSlave[] = SERIALS.map((s) => seg.attach(new SimDs18b20({ serial: s ^ salt })));
  devices.push(seg.attach(new SimDs2408({ serial: 0x000000000001n ^ salt })));
  devices.push(seg.attach(new SimDs2413({ serial: 0x000000000003n ^ salt })));
  return devices;
}

function sorted(a: string[]): string[] {
  return [...a].sort();
}

t.test('search finds every device with shared prefixes on a DS2482-100', async (t) => {
  const sim = createDs2482Sim({ chips: [{ address: 0x18, variant: 'ds2482-100' }] });
  const devices = populate(sim.segment(0x18), 0n);
  const masters = await probeDs2482(sim.i2c);
  t.equal(masters.length, 1, 'one channel on a -100');
  const found = await searchRoms(masters[0]!);
  t.equal(found.length, devices.length, 'one address per device');
  t.same(sorted(found), sorted(devices.map((d) => d.address)), 'exactly the attached devices');
  t.equal(new Set(found).size, found.length, 'no duplicates');
  for (const a of found) t.equal(crc8(romToBytes(a).subarray(0, 7)), romToBytes(a)[7], `CRC valid ${a}`);
});

t.test('search on each DS2482-800 channel sees only that channel', async (t) => {
  const sim = createDs2482Sim({ chips: [{ address: 0x1a, variant: 'ds2482-800' }] });
  const perChannel: string[][] = [];
  for (let ch = 0; ch < 8; ch++) {
    // Different device sets per channel; channel 5 stays empty.
    const devs = ch === 5 ? [] : populate(sim.segment(0x1a, ch), BigInt(ch) << 40n).slice(0, 3 + (ch % 5));
    // keep only a subset attached
    const seg = sim.segment(0x1a, ch);
    for (const d of [...seg.devices]) if (!devs.includes(d)) seg.detach(d);
    perChannel.push(devs.map((d) => d.address));
  }
  const masters = await probeDs2482(sim.i2c);
  t.equal(masters.length, 8, 'eight channels on a -800');
  // Interleave channels to make sure channel selection is redone between operations.
  for (const order of [
    [0, 1, 2, 3, 4, 5, 6, 7],
    [7, 3, 0, 5, 1, 6, 2, 4],
  ]) {
    for (const ch of order) {
      const found = await searchRoms(masters[ch]!);
      t.same(sorted(found), sorted(perChannel[ch]!), `channel ${ch}`);
    }
  }
  t.equal(masters[3]!.name, 'ds2482-sim-0x1a-ch3');
});

t.test('search skips ROMs with a bad CRC and handles an empty bus', async (t) => {
  const seg = new OneWireSegment();
  const good = seg.attach(new SimDs18b20({ serial: 0x1234n }));
  const bytes = romToBytes(makeRom(0x28, 0x1235n));
  bytes[7] = bytes[7]! ^ 0xff;
  seg.attach(new SimDs18b20({ address: bytesToRom(bytes) }));
  const sim = createDs2482Sim({ chips: [{ address: 0x18, variant: 'ds2482-100' }] });
  sim.chips[0]!.channels[0] = seg;
  const chip = new Ds2482Chip(sim.i2c, 0x18, 'ds2482-100');
  await chip.init();
  t.same(await searchRoms(chip.channel(0)), [good.address], 'bad-CRC device left out');
  seg.detach(good);
  for (const d of [...seg.devices]) seg.detach(d);
  t.same(await searchRoms(chip.channel(0)), [], 'no presence -> []');
});

t.test('family-targeted search', async (t) => {
  const sim = createDs2482Sim({ chips: [{ address: 0x18, variant: 'ds2482-100' }] });
  const devices = populate(sim.segment(0x18), 0n);
  const [m] = await probeDs2482(sim.i2c);
  const ds2408 = await searchRoms(m!, { family: 0x29 });
  t.same(
    ds2408,
    devices.filter((d) => d.family === 0x29).map((d) => d.address),
  );
  const temps = await searchRoms(m!, { family: 0x28 });
  t.same(sorted(temps), sorted(devices.filter((d) => d.family === 0x28).map((d) => d.address)));
});

t.test('alarm search returns only sensors in alarm', async (t) => {
  const sim = createDs2482Sim({ chips: [{ address: 0x18, variant: 'ds2482-100' }] });
  const seg = sim.segment(0x18);
  const hot = seg.attach(new SimDs18b20({ serial: 1n, temperature: 90 })); // TH factory 75
  seg.attach(new SimDs18b20({ serial: 2n, temperature: 20, eepromTl: -10 })); // TH 75, TL -10: no alarm
  for (const d of seg.devices) (d as SimDs18b20).convertNow();
  const [m] = await probeDs2482(sim.i2c);
  t.same(await searchRoms(m!, { command: 0xec }), [hot.address]);
});
