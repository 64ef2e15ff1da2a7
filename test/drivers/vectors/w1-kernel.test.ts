// The Linux kernel's w1 sysfs formats (drivers/w1/slaves/w1_therm.c and drivers/w1/w1.c, and
// Documentation/w1/slaves/w1_therm.rst) fed to the sysfs driver's parsers, and the emulated
// tree (drivers/sim/w1-tree.ts) checked to write the same text for the same scratchpad.
import t from 'tap';
import { crc8 } from '../../../drivers/onewire/crc.js';
import { PowerOnResetError } from '../../../drivers/onewire/ds18b20.js';
import {
  parseMasterSlaves,
  parseW1Slave,
  temperatureFromMillidegrees,
  temperatureFromW1Slave,
} from '../../../drivers/onewire/w1-sysfs.js';
import { OneWireError } from '../../../drivers/onewire/types.js';
import { renderW1Slave } from '../../../drivers/sim/w1-tree.js';

const code = (e: unknown) => (e instanceof OneWireError ? e.code : String(e));
const bytes = (s: string) => s.split(' ').map((h) => parseInt(h, 16));

t.test(
  'w1_therm.c w1_slave_show: "%02x " x9 ": crc=%02x YES" then "%02x " x9 "t=%d" (the 23.125 degC example)',
  async (t) => {
    const text = '72 01 4b 46 7f ff 0e 10 57 : crc=57 YES\n72 01 4b 46 7f ff 0e 10 57 t=23125\n';
    const r = parseW1Slave(text);
    t.same(r.bytes, bytes('72 01 4b 46 7f ff 0e 10 57'));
    t.equal(r.crc, 0x57);
    t.equal(r.crcOk, true);
    t.equal(r.millidegrees, 23125);
    t.equal(temperatureFromW1Slave(text), 23.125);
    t.equal(crc8(r.bytes.slice(0, 8)), 0x57, 'the kernel prints the CRC it computed over bytes 0-7');
    t.equal(renderW1Slave(r.bytes, r.bytes), text, 'the emulated tree writes the same two lines');
  },
);

t.test(
  'w1_therm.c w1_slave_show with a CRC mismatch: "crc=.. NO", line 2 the last good bytes, t= from the bad ones',
  async (t) => {
    const bad = bytes('72 01 4b 46 7f ff 0e 10 ff');
    const lastGood = bytes('00 00 00 00 00 00 00 00 00');
    const text = '72 01 4b 46 7f ff 0e 10 ff : crc=57 NO\n00 00 00 00 00 00 00 00 00 t=23125\n';
    t.equal(renderW1Slave(bad, lastGood), text, 'the emulated tree: kernel layout of a failed CRC');
    const r = parseW1Slave(text);
    t.equal(r.crcOk, false);
    t.same(r.lastGood, lastGood);
    t.equal(code(t.throws(() => temperatureFromW1Slave(text))), 'CRC', 'the driver refuses it as a CRC error');
  },
);

t.test('w1_therm.c: the DS18B20 power-on scratchpad reads "t=85000" with a valid CRC', async (t) => {
  const text = '50 05 4b 46 7f ff 0c 10 1c : crc=1c YES\n50 05 4b 46 7f ff 0c 10 1c t=85000\n';
  t.equal(renderW1Slave(bytes('50 05 4b 46 7f ff 0c 10 1c'), bytes('50 05 4b 46 7f ff 0c 10 1c')), text);
  t.throws(() => temperatureFromW1Slave(text), PowerOnResetError, 'refused as the power-on value');
  t.throws(() => temperatureFromMillidegrees('85000\n'), PowerOnResetError, 'also through the temperature attribute');
});

t.test(
  'w1_therm.c: an all-zero scratchpad passes the kernel CRC ("crc=00 YES", "t=0") and is refused here',
  async (t) => {
    const zeros = '00 00 00 00 00 00 00 00 00';
    const text = `${zeros} : crc=00 YES\n${zeros} t=0\n`;
    t.equal(renderW1Slave(bytes(zeros), bytes(zeros)), text);
    t.equal(code(t.throws(() => temperatureFromW1Slave(text))), 'INVALID_DATA');
  },
);

t.test(
  'w1_therm.c w1_DS18B20_convert_temp: millidegrees = (s16)raw * 1000 / 16, C division (toward zero)',
  async (t) => {
    for (const [raw, milli] of [
      [0xff5e, -10125],
      [0xfe6f, -25062],
      [0xfc90, -55000],
      [0x0191, 25062],
      [0x07d0, 125000],
    ] as const) {
      const pad = [raw & 0xff, raw >> 8, 0x4b, 0x46, 0x7f, 0xff, 0x10 - (raw & 0x0f), 0x10];
      pad.push(crc8(pad));
      const text = renderW1Slave(pad, pad);
      t.match(text, new RegExp(`t=${milli}\\n$`), `emulator: ${raw.toString(16)}h -> t=${milli}`);
      t.equal(temperatureFromW1Slave(text), milli / 1000, `driver: t=${milli} -> ${milli / 1000} degC`);
    }
  },
);

t.test('w1_therm.c temperature_show: "%d\\n" millidegrees; an empty read when the conversion failed', async (t) => {
  t.equal(temperatureFromMillidegrees('23125\n'), 23.125);
  t.equal(temperatureFromMillidegrees('-10125\n'), -10.125);
  t.equal(code(t.throws(() => temperatureFromMillidegrees(''))), 'IO', 'empty: the kernel returned 0 bytes');
  t.equal(code(t.throws(() => temperatureFromMillidegrees('abc\n'))), 'INVALID_DATA');
});

t.test('w1.c w1_master_attribute_show_slaves: one "ff-xxxxxxxxxxxx" per line, or "not found."', async (t) => {
  t.same(parseMasterSlaves('not found.\n'), [], '"not found." is no slave, not a slave named so');
  t.same(parseMasterSlaves('28-00000a1b2c3d\n3a-0000001c2d3e\n'), ['28-00000a1b2c3d', '3a-0000001c2d3e']);
});

t.test(
  'w1_therm.rst therm_bulk_read: writing "trigger" converts on every sensor of the master; it reads 0 when none is pending',
  async (t) => {
    const { W1SysfsBus } = await import('../../../drivers/onewire/w1-sysfs.js');
    const { W1Tree } = await import('../../../drivers/sim/w1-tree.js');
    const { OneWireSegment, SimDs18b20 } = await import('../../../drivers/sim/onewire-wire.js');
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const segment = new OneWireSegment();
    segment.attach(new SimDs18b20({ serial: 0xb01cn }));
    const tree = new W1Tree({ masters: [segment] });
    t.teardown(() => tree.close());
    const file = join(tree.root, 'w1_bus_master1', 'therm_bulk_read');
    t.equal(readFileSync(file, 'utf8'), '0\n', 'the emulated tree: no bulk conversion pending');
    await new W1SysfsBus({ root: tree.root }).convertAll();
    t.equal(readFileSync(file, 'utf8'), 'trigger\n', 'the driver writes the documented keyword');
    tree.refresh();
    t.equal(tree.stats.bulkTriggers, 1, 'the emulated tree takes it as a bulk conversion');
  },
);
