import t from 'tap';
import { existsSync, readFileSync, readlinkSync, mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kernelNameToRom, makeRom, romToKernelName, isValidRom } from '../../drivers/onewire/address.js';
import { PowerOnResetError } from '../../drivers/onewire/ds18b20.js';
import { BusPoller } from '../../drivers/onewire/poller.js';
import { oneWireOutputsOff } from '../../src/failsafe/onewire.js';
import { OneWireError } from '../../drivers/onewire/types.js';
import {
  listW1Masters,
  openW1Buses,
  parseMasterSlaves,
  parseW1Slave,
  MAX_ATTRIBUTE_BYTES,
  readAttribute,
  writeAttribute,
  temperatureFromMillidegrees,
  temperatureFromW1Slave,
  W1SysfsBus,
} from '../../drivers/onewire/w1-sysfs.js';
import { OneWireSegment, SimDs18b20, SimDs2408, SimDs2413 } from '../../drivers/sim/onewire-wire.js';
import { renderW1Slave, W1Tree } from '../../drivers/sim/w1-tree.js';
import { rejects } from './onewire-fixtures.js';
import { crc8 } from '../../drivers/onewire/crc.js';

function code(e: unknown): string {
  return e instanceof OneWireError ? e.code : `not a OneWireError: ${String(e)}`;
}

t.test('kernel name <-> address both ways', async (t) => {
  // owfs #109 cross-check: sysfs 28-0000034a5a5d is 28.5D5A4A030000 in bus order.
  const a = kernelNameToRom('28-0000034a5a5d');
  t.equal(a.slice(0, 14), '285d5a4a030000', 'serial bytes reversed into bus order');
  t.ok(isValidRom(a), 'CRC byte computed');
  t.equal(romToKernelName(a), '28-0000034a5a5d');
  t.equal(kernelNameToRom('28-0000034A5A5D'), a, 'upper case accepted');
  // ROM 28 13 9B BB 0B 00 00 1F (CRC vector) is kernel name 28-00000bbb9b13
  t.equal(kernelNameToRom('28-00000bbb9b13'), '28139bbb0b00001f');
  t.equal(romToKernelName('28139bbb0b00001f'), '28-00000bbb9b13');
  for (const fam of [0x28, 0x29, 0x3a]) {
    const rom = makeRom(fam, 0x123456789abcn);
    t.equal(kernelNameToRom(romToKernelName(rom)), rom, `round trip family ${fam.toString(16)}`);
  }
  t.throws(() => kernelNameToRom('w1_bus_master1'), OneWireError);
  t.throws(() => kernelNameToRom('28-123'), OneWireError);
});

t.test('w1_slave parsing of real formats', async (t) => {
  const good = '72 01 4b 46 7f ff 0e 10 57 : crc=57 YES\n72 01 4b 46 7f ff 0e 10 57 t=23125\n';
  t.same(parseW1Slave(good).bytes, [0x72, 0x01, 0x4b, 0x46, 0x7f, 0xff, 0x0e, 0x10, 0x57]);
  t.equal(temperatureFromW1Slave(good), 23.125);
  const neg = 'fe ff 4b 46 7f ff 02 10 8c : crc=8c YES\nfe ff 4b 46 7f ff 02 10 8c t=-125\n';
  t.equal(temperatureFromW1Slave(neg), -0.125);
  const bad = '72 01 4b 46 7f ff 0e 10 56 : crc=57 NO\n00 00 00 00 00 00 00 00 00 t=23125\n';
  t.throws(() => temperatureFromW1Slave(bad), { code: 'CRC' }, 'crc=.. NO is a CRC error');
  t.throws(() => temperatureFromW1Slave(''), { code: 'IO' }, 'empty read');
  const zero = '00 00 00 00 00 00 00 00 00 : crc=00 YES\n00 00 00 00 00 00 00 00 00 t=0\n';
  t.throws(() => temperatureFromW1Slave(zero), { code: 'INVALID_DATA' }, 'all-zero scratchpad');
  const por = '50 05 4b 46 7f ff 0c 10 1c : crc=1c YES\n50 05 4b 46 7f ff 0c 10 1c t=85000\n';
  t.throws(() => temperatureFromW1Slave(por), PowerOnResetError, '85 degC power-on scratchpad');
  const real85 = '50 05 4b 46 7f ff 10 10 bd : crc=bd YES\n50 05 4b 46 7f ff 10 10 bd t=85000\n';
  t.equal(temperatureFromW1Slave(real85), 85, 'a genuine 85.000 (byte 6 = 0x10) is accepted from w1_slave');
  t.throws(() => temperatureFromW1Slave('garbage\n'), { code: 'INVALID_DATA' });
  t.equal(temperatureFromMillidegrees('23125\n'), 23.125);
  t.equal(temperatureFromMillidegrees('-10125\n'), -10.125);
  t.throws(() => temperatureFromMillidegrees('85000\n'), PowerOnResetError);
  t.throws(() => temperatureFromMillidegrees(''), { code: 'IO' });
  t.same(parseMasterSlaves('not found.\n'), []);
  t.same(parseMasterSlaves('28-0000034a5a5d\n3a-000000112233\n'), ['28-0000034a5a5d', '3a-000000112233']);
  t.equal(
    renderW1Slave([0x72, 0x01, 0x4b, 0x46, 0x7f, 0xff, 0x0e, 0x10, 0x57], []),
    good,
    'emulator renders the same format',
  );
});

function rig(opts: Partial<ConstructorParameters<typeof W1Tree>[0]> = {}) {
  const seg1 = new OneWireSegment();
  const seg2 = new OneWireSegment();
  const a = seg1.attach(new SimDs18b20({ serial: 0x0000034a5a5dn, temperature: 21.5 }));
  const b = seg1.attach(new SimDs18b20({ serial: 0x2n, temperature: -4.25 }));
  const sw = seg1.attach(new SimDs2408({ serial: 0x3n }));
  const ab = seg2.attach(new SimDs2413({ serial: 0x4n }));
  const tree = new W1Tree({ masters: [seg1, seg2], ...opts });
  const bus1 = new W1SysfsBus({ root: tree.root, master: 'w1_bus_master1' });
  const bus2 = new W1SysfsBus({ root: tree.root, master: 'w1_bus_master2' });
  return { seg1, seg2, a, b, sw, ab, tree, bus1, bus2 };
}

t.test('emulated tree layout and search', async (t) => {
  const { tree, a, b, sw, ab, bus1, bus2 } = rig();
  t.teardown(() => tree.close());
  t.same(await listW1Masters(tree.root), ['w1_bus_master1', 'w1_bus_master2']);
  t.equal((await openW1Buses(tree.root)).length, 2);
  const slaves = readFileSync(join(tree.root, 'w1_bus_master1', 'w1_master_slaves'), 'utf8');
  t.equal(slaves, '28-0000034a5a5d\n28-000000000002\n29-000000000003\n');
  t.equal(
    readlinkSync(join(tree.root, '28-0000034a5a5d')),
    join('w1_bus_master1', '28-0000034a5a5d'),
    'top-level symlink',
  );
  t.same(readFileSync(join(tree.root, '28-0000034a5a5d', 'id')), Buffer.from(a.romBytes), 'id holds the ROM bytes');
  t.match(
    readFileSync(join(tree.root, '28-0000034a5a5d', 'w1_slave'), 'utf8'),
    /^([0-9a-f]{2} ){9}: crc=[0-9a-f]{2} YES\n([0-9a-f]{2} ){9}t=21500\n$/,
  );
  t.same(await bus1.search(), [a.address, b.address, sw.address]);
  t.same(await bus2.search(), [ab.address]);
  t.equal(bus1.name, 'w1-w1_bus_master1');
  t.equal(bus1.kind, 'w1');
});

t.test('temperatures from `temperature`, and from w1_slave when it is absent', async (t) => {
  const { tree, a, b, bus1 } = rig();
  t.teardown(() => tree.close());
  t.equal(await bus1.readTemperature(a.address), 21.5);
  t.equal(await bus1.readTemperature(b.address), -4.25);
  a.setTemperature(30.0625);
  tree.refresh();
  t.equal(await bus1.readTemperature(a.address), 30.062, 'kernel truncates to whole millidegrees');

  const old = rig({ temperatureFile: false });
  t.teardown(() => old.tree.close());
  t.notOk(existsSync(join(old.tree.root, romToKernelName(old.a.address), 'temperature')));
  t.equal(await old.bus1.readTemperature(old.a.address), 21.5, 'parsed from w1_slave');
});

t.test('faults rendered the kernel way are errors', async (t) => {
  const { tree, a, bus1, seg1 } = rig({ slaveTtl: 1 });
  t.teardown(() => tree.close());
  a.corruptNextReads(1);
  tree.refresh();
  const w1 = readFileSync(join(tree.root, romToKernelName(a.address), 'w1_slave'), 'utf8');
  t.match(w1, /crc=[0-9a-f]{2} NO\n/, 'crc NO line');
  t.equal(readFileSync(join(tree.root, romToKernelName(a.address), 'temperature'), 'utf8'), '', 'temperature empty');
  t.equal(code(await rejects(bus1.readTemperature(a.address))), 'IO', 'empty temperature is a failed read');
  tree.refresh();
  t.equal(await bus1.readTemperature(a.address), 21.5, 'next read fine');

  const old = rig({ temperatureFile: false });
  t.teardown(() => old.tree.close());
  old.a.corruptNextReads(1);
  old.tree.refresh();
  t.equal(code(await rejects(old.bus1.readTemperature(old.a.address))), 'CRC', 'w1_slave with crc=.. NO');
  old.a.corruptAlways();
  old.tree.refresh();
  old.tree.refresh();
  const kept = parseW1Slave(readFileSync(join(old.tree.root, romToKernelName(old.a.address), 'w1_slave'), 'utf8'));
  t.equal(kept.crcOk, false);
  t.equal(crc8(kept.lastGood.slice(0, 8)), kept.lastGood[8], 'second line keeps the last CRC-valid bytes');
  t.not(kept.lastGood.join(), kept.bytes.join());
  t.equal(code(await rejects(old.bus1.readTemperature(old.a.address))), 'CRC');

  a.holdDataLow();
  tree.refresh();
  t.equal(
    readFileSync(join(tree.root, romToKernelName(a.address), 'temperature'), 'utf8'),
    '0\n',
    'kernel happily reports 0',
  );
  t.equal(code(await rejects(bus1.readTemperature(a.address))), 'INVALID_DATA', 'all-zero scratchpad rejected');
  a.holdDataLow(false);

  a.unplug();
  tree.refresh();
  t.ok(existsSync(join(tree.root, romToKernelName(a.address))), 'still listed for slaveTtl');
  t.equal(code(await rejects(bus1.readTemperature(a.address))), 'IO', 'empty read while listed');
  tree.refresh();
  t.notOk(existsSync(join(tree.root, romToKernelName(a.address))), 'directory vanished');
  t.notOk((await bus1.search()).includes(a.address));
  t.equal(code(await rejects(bus1.readTemperature(a.address))), 'NO_PRESENCE', 'vanished device');

  a.plug();
  tree.refresh();
  const e = await rejects(bus1.readTemperature(a.address));
  t.type(e, PowerOnResetError, '85000 after a replug is rejected');
  tree.refresh();
  t.equal(await bus1.readTemperature(a.address), 21.5, 'then a real value');

  seg1.setShort(true);
  tree.refresh();
  tree.refresh();
  t.same(await bus1.search(), [], 'short: kernel drops every slave');
  t.equal(readFileSync(join(tree.root, 'w1_bus_master1', 'w1_master_slaves'), 'utf8'), 'not found.\n');
});

t.test('bulk conversion through therm_bulk_read when writable', async (t) => {
  const { tree, bus1, bus2 } = rig();
  t.teardown(() => tree.close());
  await bus1.convertAll();
  t.equal(bus1.bulkTriggers, 1);
  tree.refresh();
  t.equal(tree.stats.bulkTriggers, 1, 'the emulated kernel saw the trigger');
  t.equal(readFileSync(join(tree.root, 'w1_bus_master1', 'therm_bulk_read'), 'utf8'), '0\n', 'back to idle');
  await bus2.convertAll();
  t.equal(bus2.bulkTriggers, 0, 'no DS18B20 on master 2: no therm_bulk_read, per-device reads');

  const ro = rig({ bulkRead: 'readonly' });
  t.teardown(() => ro.tree.close());
  await ro.bus1.convertAll();
  await ro.bus1.convertAll();
  t.equal(ro.bus1.bulkTriggers, 0, 'read-only attribute is not written');
  t.equal(await ro.bus1.readTemperature(ro.a.address), 21.5, 'per-device read works');
  const none = rig({ bulkRead: 'absent' });
  t.teardown(() => none.tree.close());
  await none.bus1.convertAll();
  t.equal(none.bus1.bulkTriggers, 0);
});

t.test('therm_bulk_read is looked at once, and again only after it went away', async (t) => {
  const { tree, bus1 } = rig();
  t.teardown(() => tree.close());
  const file = join(tree.root, 'w1_bus_master1', 'therm_bulk_read');
  await bus1.convertAll();
  t.equal(bus1.bulkTriggers, 1);
  rmSync(file);
  await bus1.convertAll();
  t.equal(bus1.bulkTriggers, 1, 'gone: no trigger, and no error');
  t.notOk(existsSync(file), 'and not made again as a plain file');
  writeFileSync(file, '0\n', { mode: 0o444 });
  await bus1.convertAll();
  t.equal(bus1.bulkTriggers, 1, 'back, but read-only: looked at again, not written');
  const ok = rig();
  t.teardown(() => ok.tree.close());
  await ok.bus1.convertAll();
  await ok.bus1.convertAll();
  t.equal(ok.bus1.bulkTriggers, 2, 'present and writable: a trigger every cycle');
});

t.test('writeAttribute writes in one go, in place of what was there, and never makes a file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'edgeblocks-attr-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const output = join(dir, 'output');
  writeFileSync(output, 'longer than a byte');
  await writeAttribute(output, Buffer.from([0xfc]));
  t.same([...readFileSync(output)], [0xfc], 'the old content is gone (O_TRUNC)');
  await t.rejects(writeAttribute(join(dir, 'gone'), Buffer.from('trigger\n')), { code: 'ENOENT' });
  t.notOk(existsSync(join(dir, 'gone')), 'an attribute that is not there is not created');
  await t.rejects(writeAttribute(dir, Buffer.from('x')), { code: 'EISDIR' });
});

t.test('readAttribute reads an attribute whole, however long', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'edgeblocks-attr-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const short = join(dir, 'temperature');
  writeFileSync(short, '21500\n');
  t.equal((await readAttribute(short)).toString(), '21500\n');
  const long = join(dir, 'long');
  const text = 'x'.repeat(4096 * 2 + 17);
  writeFileSync(long, text);
  t.equal((await readAttribute(long)).toString(), text, 'past one 4 KiB read');
  const exact = join(dir, 'exact');
  writeFileSync(exact, 'y'.repeat(4096));
  t.equal((await readAttribute(exact)).length, 4096, 'exactly one buffer');
  await t.rejects(readAttribute(join(dir, 'gone')), { code: 'ENOENT' });
  const huge = join(dir, 'huge');
  writeFileSync(huge, Buffer.alloc(MAX_ATTRIBUTE_BYTES + 1));
  await t.rejects(
    readAttribute(huge),
    /huge holds 65536 bytes or more: not a kernel w1 attribute/,
    'a file past the cap is refused, not read whole',
  );
  writeFileSync(huge, Buffer.alloc(MAX_ATTRIBUTE_BYTES - 1));
  t.equal((await readAttribute(huge)).length, MAX_ATTRIBUTE_BYTES - 1, 'one just under the cap is read');
});

t.test('DS2408 and DS2413 via state/output', async (t) => {
  const { tree, sw, ab, bus1, bus2 } = rig();
  t.teardown(() => tree.close());
  t.same(await bus1.readDs2408(sw.address), { pins: 0, latches: 0 });
  await bus1.writeDs2408(sw.address, 0x81);
  tree.refresh();
  t.equal(sw.activeOutputs(), 0x81, 'write reached the model');
  t.equal(tree.stats.outputWrites, 1);
  t.same(await bus1.readDs2408(sw.address), { pins: 0x81, latches: 0x81 });
  sw.setExternalLow(0x02);
  tree.refresh();
  t.same(await bus1.readDs2408(sw.address), { pins: 0x83, latches: 0x81 });

  t.same(await bus2.readDs2413(ab.address), { pins: 0, latches: 0 });
  await bus2.writeDs2413(ab.address, 0b10);
  tree.refresh();
  t.equal(ab.activeOutputs(), 0b10);
  t.same(await bus2.readDs2413(ab.address), { pins: 0b10, latches: 0b10 });
  ab.corruptNextReads(1);
  tree.refresh();
  t.equal(code(await rejects(bus2.readDs2413(ab.address))), 'IO', 'kernel fails the read (empty)');
  ab.unplug();
  tree.refresh();
  t.equal(code(await rejects(bus2.readDs2413(ab.address))), 'NO_PRESENCE');
});

t.test(
  'a DS2408 that stops answering while the other devices on its master answer is no answer, not "every output off"',
  async (t) => {
    // The kernel reads a DS2408 register as one byte without a CRC: another device gives the
    // presence pulse, and a chip that does not drive the bus reads as its pull-up, 0xFF, which
    // is also what a chip with every output off and no input pulled low reads in state and output.
    const { tree, sw, bus1 } = rig({ slaveTtl: 10 });
    t.teardown(() => tree.close());
    const dir = join(tree.root, romToKernelName(sw.address));
    t.same(await bus1.readDs2408(sw.address), { pins: 0, latches: 0 }, 'present, every output off');
    const poller = new BusPoller(bus1);
    poller.watchIo(sw.address, 'DS2408');
    poller.setLatches(sw.address, 0);
    await poller.service(0);
    t.equal(poller.io(sw.address)!.connected, true);

    sw.unplug();
    tree.refresh();
    t.ok(existsSync(dir), 'the kernel still lists it');
    t.same(
      [...readFileSync(join(dir, 'state')), ...readFileSync(join(dir, 'output'))],
      [0xff, 0xff],
      'reads the idle bus',
    );
    t.equal(code(await rejects(bus1.readDs2408(sw.address))), 'NO_PRESENCE', 'no answer');
    await poller.service(1000);
    t.equal(poller.io(sw.address)!.connected, false, 'the poller sees it gone');

    sw.plug();
    tree.refresh();
    await poller.service(2000);
    t.equal(poller.io(sw.address)!.connected, true, 'and back');
  },
);

t.test('the failsafe does not report a DS2408 it cannot reach as switched off', async (t) => {
  const { tree, sw } = rig({ slaveTtl: 10 });
  t.teardown(() => tree.close());
  sw.channelWrite(0x00);
  tree.refresh();
  sw.unplug();
  tree.refresh();
  const said: string[] = [];
  const problems: string[] = [];
  const failed = await oneWireOutputsOff(
    { w1Root: tree.root, i2cBuses: ['/dev/i2c-250'], serialPorts: [] },
    { say: (l) => said.push(l), problem: (l) => problems.push(l) },
    5000,
  );
  t.equal(failed, 1, `one failure (${problems.join('; ')})`);
  t.match(problems, [new RegExp(`DS2408 ${sw.address} .*NOT made safe`)]);
  t.notMatch(said.join('\n'), new RegExp(`DS2408 ${sw.address}.*all outputs off`));
});

t.test(
  'without therm_bulk_read each kernel read converts (750 ms): several sensors still read all the time',
  async (t) => {
    // The service cannot write therm_bulk_read without a udev rule, so on a Pi each read of
    // `temperature` blocks in the kernel for its own conversion. The reads of one round then take
    // 750 ms a sensor; a reading must not go stale while the others' reads run.
    const seg = new OneWireSegment();
    const sensors = [1n, 2n, 3n, 4n].map((n) => seg.attach(new SimDs18b20({ serial: n, temperature: 18 + Number(n) })));
    const tree = new W1Tree({ masters: [seg], bulkRead: 'absent' });
    t.teardown(() => tree.close());
    let clock = 1000;
    /** The kernel's time: its read of a sensor returns after that sensor's conversion. */
    class KernelConverting extends W1SysfsBus {
      override async readTemperature(address: string): Promise<number> {
        try {
          return await super.readTemperature(address);
        } finally {
          clock += 750;
          look();
        }
      }
    }
    const poller = new BusPoller(new KernelConverting({ root: tree.root }), { clock: () => clock });
    for (const s of sensors) poller.watchTemperature(s.address);
    const nulls = new Map<string, number[]>(sensors.map((s) => [s.address, []]));
    const look = () => {
      for (const s of sensors) if (poller.temperature(s.address, clock) === null) nulls.get(s.address)!.push(clock);
    };
    const until = async (end: number) => {
      while (clock < end) {
        await poller.service(clock);
        look();
        clock += 100;
      }
    };
    await until(6000);
    nulls.forEach((at) => at.splice(0));
    await until(40_000);
    for (const s of sensors) t.same(nulls.get(s.address), [], `${s.address} reads every time it is looked at`);
    t.equal(poller.temperature(sensors[3]!.address, clock), 22);

    sensors[1]!.unplug();
    tree.refresh();
    const gone = clock;
    await until(gone + 10_000);
    const sinceGone = nulls.get(sensors[1]!.address)!;
    t.ok(
      sinceGone.length > 0 && sinceGone[0]! - gone <= 2000 + 4 * 750,
      `an unplugged one reads null within a round of reads and 2 s (${sinceGone[0]! - gone} ms)`,
    );
    t.same(nulls.get(sensors[3]!.address), [], 'the others still read');
  },
);

t.test('hand-written tree: directory listing fallback, odd entries, a corrupt state byte', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'w1-hand-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const m = join(root, 'w1_bus_master1');
  mkdirSync(m);
  for (const n of ['28-0000034a5a5d', '00-800000000000', 'subsystem', '3a-000000000004']) mkdirSync(join(m, n));
  const bus = new W1SysfsBus({ root, master: 'w1_bus_master1' });
  t.same(
    await bus.search(),
    [kernelNameToRom('28-0000034a5a5d'), kernelNameToRom('3a-000000000004')],
    'family 00 and non-slave entries ignored',
  );
  mkdirSync(join(root, '3a-000000000004'));
  writeFileSync(join(root, '3a-000000000004', 'state'), Buffer.from([0x1f]));
  t.equal(code(await rejects(bus.readDs2413(kernelNameToRom('3a-000000000004')))), 'CRC', 'complement nibble checked');
  const missing = new W1SysfsBus({ root, master: 'w1_bus_master9' });
  t.equal(code(await rejects(missing.search())), 'NO_PRESENCE', 'missing master');
});

t.test('poller over the kernel tree', async (t) => {
  const { tree, a, b, bus1 } = rig();
  t.teardown(() => tree.close());
  const poller = new BusPoller(bus1);
  poller.watchTemperature(a.address);
  poller.watchTemperature(b.address);
  let now = 0;
  for (; now <= 800; now += 100) {
    await poller.service(now);
    tree.refresh();
  }
  t.equal(poller.temperature(a.address, now), 21.5);
  t.equal(poller.temperature(b.address, now), -4.25);
  t.equal(bus1.bulkTriggers, 1, 'one bulk trigger per cycle');
});
