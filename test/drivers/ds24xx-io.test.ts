import t from 'tap';
import { decodeDs2413, ds2413StatusValid } from '../../drivers/onewire/ds2413.js';
import { readDs2408Registers } from '../../drivers/onewire/ds2408.js';
import { BusPoller } from '../../drivers/onewire/poller.js';
import { OneWireError } from '../../drivers/onewire/types.js';
import { SimDs2408, SimDs2413 } from '../../drivers/sim/onewire-wire.js';
import { ds2482Rig, rejects } from './onewire-fixtures.js';

function code(e: unknown): string {
  return e instanceof OneWireError ? e.code : `not a OneWireError: ${String(e)}`;
}

t.test('DS2408 latches and pins in active polarity', async (t) => {
  const { bus, segment } = await ds2482Rig();
  const io = segment.attach(new SimDs2408({ serial: 0x2408n }));
  t.same(await bus.readDs2408(io.address), { pins: 0, latches: 0 }, 'power-on: all off, pins high');
  await bus.writeDs2408(io.address, 0b1010_0101);
  t.equal(io.activeOutputs(), 0b1010_0101, 'model outputs switched on');
  t.equal(io.latch, 0b0101_1010, 'chip latch register is the complement');
  t.same(await bus.readDs2408(io.address), { pins: 0b1010_0101, latches: 0b1010_0101 });
  io.setExternalLow(0b0000_0010);
  t.same(await bus.readDs2408(io.address), { pins: 0b1010_0111, latches: 0b1010_0101 }, 'input pulled low outside');
  const regs = await bus.exclusive((m) => readDs2408Registers(m, io.address));
  t.equal(regs.controlStatus & 0x80, 0x80, 'VCCP set');
  t.not(regs.activityLatch, 0, 'activity latched');
});

t.test('DS2408 CRC16 failures are detected and retried', async (t) => {
  const { bus, segment } = await ds2482Rig();
  const io = segment.attach(new SimDs2408({ serial: 0x2409n }));
  await bus.writeDs2408(io.address, 0x0f);
  io.corruptNextReads(2);
  t.same(await bus.readDs2408(io.address), { pins: 0x0f, latches: 0x0f }, 'retried past two corrupt frames');
  t.equal(bus.stats.crcRetries, 2);
  io.corruptAlways();
  t.equal(code(await rejects(bus.readDs2408(io.address))), 'CRC');
  io.corruptAlways(false);
  io.unplug();
  t.equal(code(await rejects(bus.readDs2408(io.address))), 'NO_PRESENCE');
  t.equal(code(await rejects(bus.writeDs2408(io.address, 1))), 'NO_PRESENCE');
  io.plug();
  t.same(await bus.readDs2408(io.address), { pins: 0, latches: 0 }, 'replugged: power-on latches (all off here)');
});

t.test('DS2408 power-on latches can come up on (datasheet: random)', async (t) => {
  const { bus, segment } = await ds2482Rig();
  const io = segment.attach(new SimDs2408({ serial: 0x240an, powerOnLatches: 0x00 }));
  t.same(await bus.readDs2408(io.address), { pins: 0xff, latches: 0xff });
});

t.test('a DS2408 that powers up with P0 in its test mode is taken out of it: channel 1 switches off', async (t) => {
  // Datasheet, power-up timing: a fast power-on slew can leave P0 in a test mode in which it
  // ignores Channel-Access Write; the Disable Test Mode sequence after every power-on ends it.
  // With its latch come up on (power-on latches are random), the relay on channel 1 stayed on.
  const { bus, segment } = await ds2482Rig();
  const io = segment.attach(new SimDs2408({ serial: 0x240bn, powerOnLatches: 0xfe, testModeAtPowerOn: true }));
  t.equal(io.activeOutputs(), 0b1, 'channel 1 came up on');
  const poller = new BusPoller(bus);
  poller.watchIo(io.address, 'DS2408');
  poller.setLatches(io.address, 0);
  let now = 0;
  const run = async (ms: number) => {
    for (const end = now + ms; now < end; now += 100) await poller.service(now);
  };
  await run(3000);
  t.equal(io.activeOutputs(), 0, 'every output off, channel 1 too');
  poller.setLatches(io.address, 0b1);
  await run(2000);
  t.equal(io.activeOutputs(), 0b1, 'channel 1 switches on when asked');

  io.powerOnReset();
  poller.setLatches(io.address, 0);
  await run(3000);
  t.equal(io.activeOutputs(), 0, 'after a brown-out too');
  const regs = await bus.exclusive((m) => readDs2408Registers(m, io.address));
  t.equal(regs.controlStatus & 0x08, 0, 'the power-on latch is cleared once the power-on was seen');
});

t.test('DS2413 read/write with complement check', async (t) => {
  const { bus, segment } = await ds2482Rig();
  const io = segment.attach(new SimDs2413({ serial: 0x2413n }));
  t.same(await bus.readDs2413(io.address), { pins: 0, latches: 0 });
  await bus.writeDs2413(io.address, 0b01);
  t.equal(io.activeOutputs(), 0b01, 'A on');
  t.same(await bus.readDs2413(io.address), { pins: 0b01, latches: 0b01 });
  await bus.writeDs2413(io.address, 0b11);
  t.same(await bus.readDs2413(io.address), { pins: 0b11, latches: 0b11 });
  io.setExternalLow(0b10);
  await bus.writeDs2413(io.address, 0b00);
  t.same(await bus.readDs2413(io.address), { pins: 0b10, latches: 0b00 }, 'B held low from outside');
  io.corruptNextReads(1);
  t.same(await bus.readDs2413(io.address), { pins: 0b10, latches: 0 }, 'one bad status byte retried');
  io.corruptAlways();
  t.equal(code(await rejects(bus.readDs2413(io.address))), 'CRC', 'complement check');
  io.corruptAlways(false);
  io.unplug();
  t.equal(code(await rejects(bus.readDs2413(io.address))), 'NO_PRESENCE');
});

t.test('DS2413 status decoding matches the datasheet examples', async (t) => {
  // Write FCh/03h (both latches on) -> status F0: pins low, latches 0.
  t.ok(ds2413StatusValid(0xf0));
  t.same(decodeDs2413(0xf0), { pins: 0b11, latches: 0b11 });
  // Write FDh/02h (A off, B on) -> status C3.
  t.ok(ds2413StatusValid(0xc3));
  t.same(decodeDs2413(0xc3), { pins: 0b10, latches: 0b10 });
  t.notOk(ds2413StatusValid(0xc2));
  const sim = new SimDs2413({ serial: 5n });
  sim.pioWrite(0xfc);
  t.equal(sim.status(), 0xf0, 'emulation agrees with example 1');
  sim.pioWrite(0xfd);
  t.equal(sim.status(), 0xc3, 'emulation agrees with example 2');
});
