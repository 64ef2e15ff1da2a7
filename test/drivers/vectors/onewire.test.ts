// 1-Wire drivers against vectors from outside the project: Maxim's application note 27 (CRC),
// the CRC catalogue's check values, the DS18B20, DS2408 and DS2413 datasheets. Each vector is
// fed to the driver's own functions and, where one exists, to the emulator, so a misreading
// shared by both cannot pass.
import t from 'tap';
import { makeRom, romToBytes, romToKernelName } from '../../../drivers/onewire/address.js';
import { checkInvertedCrc16, crc16, crc8 } from '../../../drivers/onewire/crc.js';
import { readDs2408Registers } from '../../../drivers/onewire/ds2408.js';
import { decodeDs2413, ds2413StatusValid } from '../../../drivers/onewire/ds2413.js';
import {
  checkPowerOnSignature,
  checkScratchpad,
  decodeTemperature,
  PowerOnResetError,
  temperatureFromScratchpad,
} from '../../../drivers/onewire/ds18b20.js';
import { OneWireError, type OneWireMaster } from '../../../drivers/onewire/types.js';
import { SimDs18b20, SimDs2408, SimDs2413 } from '../../../drivers/sim/onewire-wire.js';
import { ds2482Rig } from '../onewire-fixtures.js';

const ascii = (s: string) => Buffer.from(s, 'ascii');

t.test(
  'Maxim AN27 "Understanding and Using Cyclic Redundancy Checks": the CRC-8 of ROM 02 1C B8 01 00 00 00 is A2',
  async (t) => {
    t.equal(crc8([0x02, 0x1c, 0xb8, 0x01, 0x00, 0x00, 0x00]), 0xa2);
    t.equal(crc8([0x02, 0x1c, 0xb8, 0x01, 0x00, 0x00, 0x00, 0xa2]), 0, 'over data and its CRC the CRC is 0 (AN27)');
    // The project's ROM helpers make the same byte for the same family and serial (LSB first).
    const rom = makeRom(0x02, 0x000001b81cn);
    t.same([...romToBytes(rom)], [0x02, 0x1c, 0xb8, 0x01, 0x00, 0x00, 0x00, 0xa2], 'makeRom appends the AN27 CRC');
    t.equal(
      romToKernelName(rom),
      '02-00000001b81c',
      'the kernel names it %02x-%012llx: family, then the 48-bit serial',
    );
  },
);

t.test(
  'CRC RevEng catalogue check values over "123456789": CRC-8/MAXIM-DOW 0xA1, CRC-16/ARC 0xBB3D, CRC-16/MAXIM-DOW 0x44C2',
  async (t) => {
    t.equal(crc8(ascii('123456789')), 0xa1, 'CRC-8/MAXIM-DOW (the 1-Wire ROM and scratchpad CRC)');
    t.equal(crc16(ascii('123456789')), 0xbb3d, 'CRC-16/ARC: the same register, no final inversion');
    t.equal(~crc16(ascii('123456789')) & 0xffff, 0x44c2, 'CRC-16/MAXIM-DOW: the inverted CRC the DS2408 sends');
    t.ok(checkInvertedCrc16(ascii('123456789'), 0xc2, 0x44), 'sent LSB first: C2 44');
    t.notOk(checkInvertedCrc16(ascii('123456789'), 0x44, 0xc2), 'byte order matters');
  },
);

// DS18B20 datasheet (Maxim 19-7487), Table 1 "Temperature/Data Relationship", 12-bit resolution.
const TABLE_1: Array<[number, number]> = [
  [125, 0x07d0],
  [85, 0x0550],
  [25.0625, 0x0191],
  [10.125, 0x00a2],
  [0.5, 0x0008],
  [0, 0x0000],
  [-0.5, 0xfff8],
  [-10.125, 0xff5e],
  [-25.0625, 0xfe6f],
  [-55, 0xfc90],
];

t.test('DS18B20 datasheet Table 1 (temperature/data relationship, +125 = 07D0h ... -55 = FC90h)', async (t) => {
  for (const [celsius, raw] of TABLE_1) {
    const bytes = [raw & 0xff, raw >> 8, 0x4b, 0x46, 0x7f, 0xff, 0x10 - (raw & 0x0f), 0x10];
    t.equal(decodeTemperature(bytes), celsius, `driver: ${raw.toString(16).padStart(4, '0')}h is ${celsius} degC`);
    // The emulator, asked for the same temperature, must put the table's bytes in its scratchpad.
    const sim = new SimDs18b20({ temperature: celsius });
    sim.convertNow();
    const pad = sim.scratchpad();
    t.equal((pad[1]! << 8) | pad[0]!, raw, `emulator: ${celsius} degC is ${raw.toString(16).padStart(4, '0')}h`);
    if (celsius !== 85) t.equal(temperatureFromScratchpad(pad, null), celsius, 'and the driver accepts it');
  }
});

t.test(
  'DS18B20 datasheet Figure 7 (scratchpad power-up state): 85 degC, EEPROM TH/TL/config, FFh, 0Ch, 10h',
  async (t) => {
    // The power-up scratchpad with the factory EEPROM (TH 4Bh, TL 46h, 12-bit 7Fh), as the kernel
    // shows it in w1_slave: "50 05 4b 46 7f ff 0c 10 1c".
    const powerUp = [0x50, 0x05, 0x4b, 0x46, 0x7f, 0xff, 0x0c, 0x10, 0x1c];
    t.equal(crc8(powerUp.slice(0, 8)), 0x1c, 'its CRC is valid: the CRC alone cannot catch it');
    t.doesNotThrow(() => checkScratchpad(powerUp));
    t.throws(() => checkPowerOnSignature(powerUp), PowerOnResetError, 'the driver refuses it as a power-on value');
    t.throws(() => temperatureFromScratchpad(powerUp, null), PowerOnResetError);
    const sim = new SimDs18b20({ eepromTh: 0x4b, eepromTl: 0x46, eepromConfig: 0x7f });
    t.same(sim.scratchpad(), powerUp, 'the emulator powers up with the same nine bytes');
  },
);

t.test('DS18B20 datasheet: an all-zero scratchpad has CRC 00 (a data line held low), refused', async (t) => {
  const zeros = new Array(9).fill(0);
  t.equal(crc8(zeros.slice(0, 8)), 0, 'CRC of zeros is zero');
  const e = t.throws(() => checkScratchpad(zeros)) as unknown as OneWireError;
  t.equal(e.code, 'INVALID_DATA');
  const ff = t.throws(() => checkScratchpad(new Array(9).fill(0xff))) as unknown as OneWireError;
  t.equal(ff.code, 'NO_PRESENCE', 'all FFh: nobody pulled the bus low');
});

/** The master with every byte it writes recorded. */
function recording(master: OneWireMaster): { master: OneWireMaster; written: number[] } {
  const written: number[] = [];
  const wrapped = Object.create(master) as OneWireMaster;
  wrapped.writeByte = async (b: number) => {
    written.push(b);
    return master.writeByte(b);
  };
  return { master: wrapped, written };
}

t.test(
  'DS2413 datasheet "PIO Access Read" (F5h): bits 0-3 PIOA pin, PIOA latch, PIOB pin, PIOB latch; bits 4-7 their complement',
  async (t) => {
    // Power-up: both latches off (1), both pins pulled high (1): 0Fh with complement 0h.
    t.ok(ds2413StatusValid(0x0f));
    t.same(decodeDs2413(0x0f), { pins: 0, latches: 0 }, '0Fh: nothing on');
    // PIOA latch on (0), pin A low (0), B off/high: low nibble 1100b = Ch, complement 3h.
    t.ok(ds2413StatusValid(0x3c));
    t.same(decodeDs2413(0x3c), { pins: 1, latches: 1 }, '3Ch: A on');
    for (let low = 0; low < 16; low++) {
      t.ok(ds2413StatusValid(((~low & 0x0f) << 4) | low), `complement of ${low.toString(16)}h passes`);
      t.notOk(ds2413StatusValid((low << 4) | low), `${low.toString(16)}h repeated fails`);
    }
    const sim = new SimDs2413({ serial: 0x2413n });
    t.equal(sim.status(), 0x0f, 'the emulator powers up at 0Fh');
    sim.pioWrite(0xfe);
    t.equal(sim.status(), 0x3c, 'and reads 3Ch with A on');
  },
);

t.test(
  'DS2413 datasheet "PIO Access Write" (5Ah): data byte with bits 7-2 set, its inverse, then AAh and the status',
  async (t) => {
    const { bus, segment } = await ds2482Rig();
    const io = segment.attach(new SimDs2413({ serial: 0x2414n }));
    const frames: number[][] = [];
    await bus.exclusive(async (m) => {
      const rec = recording(m);
      const { writeDs2413Latches } = await import('../../../drivers/onewire/ds2413.js');
      const status = await writeDs2413Latches(rec.master, io.address, 0b01);
      frames.push(rec.written.slice(-3));
      t.equal(status, 0x3c, 'the status byte after AAh: A on');
    });
    t.same(frames[0], [0x5a, 0xfe, 0x01], '5Ah, FEh (PIOA latch 0, bits 7-2 = 1), 01h (its inverse)');
  },
);

t.test(
  'DS2408 datasheet "Channel-Access Write" (5Ah) and "Read PIO Registers" (F0h 88h 00h, inverted CRC16)',
  async (t) => {
    const { bus, segment } = await ds2482Rig();
    const io = segment.attach(new SimDs2408({ serial: 0x2408n }));
    let written: number[] = [];
    await bus.exclusive(async (m) => {
      const rec = recording(m);
      const { writeDs2408Output } = await import('../../../drivers/onewire/ds2408.js');
      const pins = await writeDs2408Output(rec.master, io.address, 0xa5);
      written = rec.written.slice(-3);
      t.equal(pins, 0xa5, 'after AAh the chip sends the PIO pin state');
    });
    t.same(written, [0x5a, 0xa5, 0x5a], '5Ah, the latch byte, its inverse');
    await bus.exclusive(async (m) => {
      const rec = recording(m);
      const regs = await readDs2408Registers(rec.master, io.address);
      t.same(rec.written.slice(-3), [0xf0, 0x88, 0x00], 'F0h with target address 0088h (TA1 88h, TA2 00h)');
      t.equal(regs.outputLatch, 0xa5);
      t.equal(regs.controlStatus & 0x08, 0x08, 'control/status PORL (bit 3) set after power-on');
    });
  },
);
