// The kernel w1 sysfs bus (drivers/onewire/w1-sysfs.ts) on an emulated tree (w1-sysfs-rig.ts): names,
// formats, reads, faults, attribute I/O. Conversions are in w1-sysfs-bulk.test.ts, switches in w1-sysfs-switches.test.ts.
import t from 'tap';
import { existsSync, readFileSync, readlinkSync, mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kernelNameToRom, makeRom, romToKernelName, isValidRom } from '../../drivers/onewire/address.js';
import { PowerOnResetError } from '../../drivers/onewire/ds18b20.js';
import { BusPoller } from '../../drivers/onewire/poller.js';
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
import { renderW1Slave } from '../../drivers/sim/w1-tree.js';
import { rejects } from './onewire-fixtures.js';
import { crc8 } from '../../drivers/onewire/crc.js';
import { code, rig } from './w1-sysfs-rig.js';

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

t.test('a real 85.000 degC through the temperature attribute is confirmed from w1_slave, not refused', async (t) => {
  const { tree, a, bus1 } = rig();
  t.teardown(() => tree.close());
  a.setTemperature(85);
  tree.refresh();
  t.equal(
    readFileSync(join(tree.root, romToKernelName(a.address), 'temperature'), 'utf8'),
    '85000\n',
    'the kernel shows 85000, as for the power-on value',
  );
  t.equal(await bus1.readTemperature(a.address), 85, 'a conversion that gave 85.000 (byte 6 = 0x10) is a reading');
  a.unplug();
  tree.refresh();
  a.plug();
  tree.refresh();
  t.type(await rejects(bus1.readTemperature(a.address)), PowerOnResetError, 'the power-on value still is refused');
});
