import t from 'tap';
import { openI2cBus, I2cBusUnavailableError } from '../../drivers/i2c/i2c-bus.js';
import {
  CHANNEL_CODES,
  CHANNEL_READBACK,
  Ds2482Chip,
  detectDs2482,
  probeDs2482,
  STATUS,
} from '../../drivers/onewire/ds2482.js';
import { ProtocolBus } from '../../drivers/onewire/protocol-bus.js';
import { OneWireError } from '../../drivers/onewire/types.js';
import { createDs2482Sim, CHANNEL_READBACK_CODES, CHANNEL_SELECT_CODES } from '../../drivers/sim/ds2482-sim.js';
import { SimDs18b20 } from '../../drivers/sim/onewire-wire.js';
import { ds2482Rig, rejects } from './onewire-fixtures.js';

function code(e: unknown): string {
  return e instanceof OneWireError ? e.code : `not a OneWireError: ${String(e)}`;
}

t.test('probe finds -100 and -800 bridges at 0x18-0x1B only', async (t) => {
  const sim = createDs2482Sim({
    chips: [
      { address: 0x18, variant: 'ds2482-100' },
      { address: 0x1b, variant: 'ds2482-800' },
      { address: 0x1c, variant: 'ds2482-800' }, // outside the -100 address range probed by default
    ],
  });
  t.equal(await detectDs2482(sim.i2c, 0x18), 'ds2482-100');
  t.equal(await detectDs2482(sim.i2c, 0x1b), 'ds2482-800');
  t.equal(await detectDs2482(sim.i2c, 0x19), null, 'nothing at 0x19');
  const masters = await probeDs2482(sim.i2c);
  t.same(
    masters.map((m) => m.name),
    ['ds2482-sim-0x18-ch0', ...Array.from({ length: 8 }, (_, i) => `ds2482-sim-0x1b-ch${i}`)],
  );
  t.equal(sim.chips[0]!.configuration, 0x01, 'active pull-up configured on the -100');
  t.equal(sim.chips[1]!.configuration, 0x01, 'active pull-up configured on the -800');
  t.equal(sim.chips[2]!.stats.transactions, 0, '0x1c untouched');
});

t.test('channel select codes match the datasheet and are verified', async (t) => {
  t.same([...CHANNEL_CODES], [...CHANNEL_SELECT_CODES], 'driver and emulation agree on select codes');
  t.same([...CHANNEL_READBACK], [...CHANNEL_READBACK_CODES], 'and on read-back codes');
  const { chip, chipSim } = await ds2482Rig('ds2482-800');
  for (const ch of [3, 7, 0, 5]) {
    await chip.channel(ch).reset();
    t.equal(chipSim.selectedChannel, ch, `channel ${ch} selected before the reset`);
  }
});

t.test('presence and short detection from the status register', async (t) => {
  const { chip, segment } = await ds2482Rig();
  const m = chip.channel(0);
  t.equal(await m.reset(), false, 'empty segment: no presence');
  segment.attach(new SimDs18b20({ serial: 1n }));
  t.equal(await m.reset(), true, 'presence');
  segment.setShort(true);
  const e = await rejects(m.reset());
  t.equal(code(e), 'SHORT');
  t.equal((e as Error).name, 'BusShortError');
  segment.setShort(false);
  t.equal(await m.reset(), true, 'recovers');
});

t.test('bit, byte and triplet primitives', async (t) => {
  const { chip, segment } = await ds2482Rig();
  const s = segment.attach(new SimDs18b20({ serial: 0x5an }));
  const m = chip.channel(0);
  t.equal(await m.reset(), true);
  await m.writeByte(0x33); // Read ROM
  const rom: number[] = [];
  for (let i = 0; i < 8; i++) rom.push(await m.readByte());
  t.same(rom, [...s.romBytes], 'Read ROM through write/read byte');
  t.equal(await m.reset(), true);
  await m.writeByte(0xf0);
  const first = await m.triplet(0);
  t.same(first, { id: 0, cmp: 1, dir: 0 }, 'family 0x28 bit 0 is 0: id 0, complement 1');
  t.equal(await m.reset(), true);
  await m.writeByte(0xcc);
  await m.writeByte(0xb4); // Read Power Supply: externally powered answers 1
  t.equal(await m.readBit(), 1);
});

t.test('busy polling is bounded and the chip is re-initialised afterwards', async (t) => {
  const { chip, chipSim, segment } = await ds2482Rig();
  segment.attach(new SimDs18b20({ serial: 1n }));
  chipSim.busyPolls = 3;
  t.equal(await chip.channel(0).reset(), true, 'several busy polls are fine');
  chipSim.faults.hangOneWire = true;
  const before = chipSim.stats.transactions;
  const e = await rejects(chip.channel(0).reset());
  t.equal(code(e), 'TIMEOUT');
  const used = chipSim.stats.transactions - before;
  t.ok(used <= 105, `bounded: ${used} I2C transactions`);
  t.equal(chip.stats.busyTimeouts, 1);
  chipSim.faults.hangOneWire = false;
  const resets = chipSim.stats.deviceResets;
  t.equal(await chip.channel(0).reset(), true, 'works again');
  t.equal(chipSim.stats.deviceResets, resets + 1, 'after a Device Reset');
});

t.test('a bridge brown-out (RST) is detected and recovered from', async (t) => {
  const { chip, chipSim, sim, clock } = await ds2482Rig('ds2482-800');
  const seg3 = sim.segment(0x18, 3);
  const s = seg3.attach(new SimDs18b20({ serial: 3n, temperature: 12.5 }));
  const bus = new ProtocolBus(chip.channel(3), { kind: 'ds2482' });
  await bus.convertAll();
  clock.advance(800);
  t.equal(await bus.readTemperature(s.address), 12.5);
  chipSim.brownOut();
  t.equal(chipSim.configuration, 0, 'config lost');
  t.equal(chipSim.selectedChannel, 0, 'back on channel 0');
  const e = await rejects(bus.readTemperature(s.address));
  t.equal(code(e), 'IO', 'the interrupted transaction fails');
  t.equal(await bus.readTemperature(s.address), 12.5, 'next one works');
  t.equal(chipSim.configuration, 0x01, 'APU rewritten');
  t.equal(chipSim.selectedChannel, 3, 'channel reselected');
  t.equal(chip.stats.chipResetsSeen, 1);
});

t.test('I2C errors become OneWireError IO and do not stick', async (t) => {
  const { chip, chipSim, segment } = await ds2482Rig();
  segment.attach(new SimDs18b20({ serial: 1n }));
  chipSim.faults.failTransactions = 1;
  const e = await rejects(chip.channel(0).reset());
  t.equal(code(e), 'IO');
  t.match((e as Error).message, /EIO/);
  t.equal(await chip.channel(0).reset(), true);
  t.equal(chip.stats.i2cErrors, 1);
});

t.test('a -100 refuses channel select; a missing chip errors clearly', async (t) => {
  const sim = createDs2482Sim({ chips: [{ address: 0x18, variant: 'ds2482-100' }] });
  const wrong = new Ds2482Chip(sim.i2c, 0x18, 'ds2482-800');
  await wrong.init();
  t.equal(code(await rejects(wrong.channel(1).reset())), 'IO', 'NACKed channel select');
  const ghost = new Ds2482Chip(sim.i2c, 0x19, 'ds2482-100');
  const e = await rejects(ghost.init());
  t.equal(code(e), 'IO');
  t.match((e as Error).message, /0x19/);
});

t.test('status register semantics of the emulation', async (t) => {
  const { chipSim, sim } = await ds2482Rig();
  await sim.i2c.sendByte(0x18, 0xf0);
  const s = await sim.i2c.receiveByte(0x18);
  t.equal(s, STATUS.RST | STATUS.LL, 'after Device Reset: RST and LL');
  await t.rejects(sim.i2c.writeByte(0x18, 0xe1, 0x55), /EREMOTEIO/, 'invalid read pointer NACKed');
  await sim.i2c.writeByte(0x18, 0xd2, 0x11); // complement rule violated: ignored
  t.equal(await sim.i2c.receiveByte(0x18), 0, 'config unchanged');
  await sim.i2c.writeByte(0x18, 0xd2, 0xe1);
  t.equal(await sim.i2c.receiveByte(0x18), 0x01, 'config accepted, high nibble reads 0');
  chipSim.busyPolls = 2;
  await sim.i2c.sendByte(0x18, 0xb4);
  t.equal((await sim.i2c.receiveByte(0x18)) & STATUS.BUSY, STATUS.BUSY, 'busy');
  await t.rejects(sim.i2c.sendByte(0x18, 0xb4), /busy/, '1-Wire command NACKed while busy');
  t.equal((await sim.i2c.receiveByte(0x18)) & STATUS.BUSY, STATUS.BUSY, 'still busy');
  t.equal((await sim.i2c.receiveByte(0x18)) & STATUS.BUSY, 0, 'idle');
});

t.test('i2c-bus adapter: a missing native module gives a clear error', async (t) => {
  const e = await rejects(
    openI2cBus(1, {
      load: async () => {
        throw Object.assign(new Error("Cannot find package 'i2c-bus'"), { code: 'ERR_MODULE_NOT_FOUND' });
      },
    }),
  );
  t.type(e, I2cBusUnavailableError);
  t.match((e as Error).message, /optional 'i2c-bus' package could not be loaded.*Cannot find package/);
  const e2 = await rejects(openI2cBus(1, { load: async () => ({}) }));
  t.type(e2, I2cBusUnavailableError);
  const e3 = await rejects(
    openI2cBus(7, { load: async () => ({ openPromisified: async () => Promise.reject(new Error('ENOENT')) }) }),
  );
  t.match((e3 as Error).message, /cannot open \/dev\/i2c-7: ENOENT/);
});
