// tags: alone (a real pty's byte timing)
import t from 'tap';
import {
  Ds2480bMaster,
  openDs2480bBus,
  openSerialLink,
  SerialPortUnavailableError,
} from '../../drivers/onewire/ds2480b.js';
import { makeRom } from '../../drivers/onewire/address.js';
import { ProtocolBus } from '../../drivers/onewire/protocol-bus.js';
import { BusPoller } from '../../drivers/onewire/poller.js';
import { searchRoms } from '../../drivers/onewire/search.js';
import { OneWireError } from '../../drivers/onewire/types.js';
import { createDs2480bPty, Ds2480bSim, SimSerialLink } from '../../drivers/sim/ds2480b-sim.js';
import { OneWireSegment, SimDs18b20, SimDs2408, SimDs2413 } from '../../drivers/sim/onewire-wire.js';
import { ManualClock, rejects } from './onewire-fixtures.js';
import { limit } from '../helpers/limits.js';
import { needTools } from '../helpers/tools.js';

needTools('socat');

function code(e: unknown): string {
  return e instanceof OneWireError ? e.code : `not a OneWireError: ${String(e)}`;
}

function populate(segment: OneWireSegment) {
  // Serials with shared prefixes, and one containing 0xE3 bytes so Match ROM must escape them.
  const temps = [0x1n, 0x3n, 0x7n, 0x10001n, 0xe3e3e3n].map((s, i) =>
    segment.attach(new SimDs18b20({ serial: s, temperature: 10 + i * 1.5 })),
  );
  const sw = segment.attach(new SimDs2408({ serial: 0x1n }));
  const ab = segment.attach(new SimDs2413({ serial: 0x2n }));
  return { temps, sw, ab };
}

t.test('DS2480B over a real socat pty pair', async (t) => {
  const clock = new ManualClock();
  const segment = new OneWireSegment({ now: clock.now });
  const { temps, sw, ab } = populate(segment);
  const sim = new Ds2480bSim(segment);
  // Fails (does not skip) with a clear message when socat is missing.
  const pty = await createDs2480bPty(sim, { startTimeoutMs: limit(5000) });
  t.teardown(() => pty.close());
  const bus = await openDs2480bBus(pty.path, { timeoutMs: 500 });
  t.teardown(() => bus.close());
  t.equal(bus.kind, 'ds2480b');
  t.equal(bus.name, `ds2480b-${pty.path}`);
  t.equal(sim.stats.calibrations, 1, 'calibration byte sent once');
  t.equal(sim.params[1], 3, 'slew rate configured');

  const found = await bus.search();
  t.same([...found].sort(), [...temps, sw, ab].map((d) => d.address).sort(), 'search accelerator finds all 7');
  t.ok(temps[4]!.address.includes('e3'), 'a ROM with 0xE3 bytes is on the bus');

  await bus.convertAll();
  clock.advance(750);
  for (const [i, s] of temps.entries()) t.equal(await bus.readTemperature(s.address), 10 + i * 1.5, `sensor ${i}`);

  await bus.writeDs2408(sw.address, 0xe3 ^ 0xff); // chip byte 0xE3 goes through data mode escaped
  t.equal(sw.latch, 0xe3, 'literal 0xE3 data byte reached the device');
  t.same(await bus.readDs2408(sw.address), { pins: 0x1c, latches: 0x1c });
  await bus.writeDs2413(ab.address, 0b11);
  t.same(await bus.readDs2413(ab.address), { pins: 0b11, latches: 0b11 });

  temps[0]!.corruptNextReads(2);
  t.equal(await bus.readTemperature(temps[0]!.address), 10, 'CRC retry over serial');
  temps[1]!.unplug();
  t.equal(code(await rejects(bus.readTemperature(temps[1]!.address))), 'NO_PRESENCE');
  segment.setShort(true);
  t.equal(code(await rejects(bus.convertAll())), 'SHORT', 'reset reply 0xCC = short');
  segment.setShort(false);

  // The adapter loses power: the next byte is swallowed as calibration, the driver times out,
  // re-initialises and carries on.
  sim.powerCycle();
  const master = (bus as ProtocolBus).master as Ds2480bMaster;
  const e = await rejects(bus.readTemperature(temps[2]!.address));
  t.ok(['TIMEOUT', 'IO'].includes(code(e)), `interrupted exchange fails (${code(e)})`);
  t.equal(await bus.readTemperature(temps[2]!.address), 13, 'recovered after re-initialisation');
  t.ok(master.stats.inits >= 2);
});

t.test('bit-level primitives and the triplet fallback over the in-process link', async (t) => {
  const segment = new OneWireSegment();
  const { temps, sw, ab } = populate(segment);
  const sim = new Ds2480bSim(segment);
  const master = new Ds2480bMaster(new SimSerialLink(sim), { timeoutMs: 100, settleMs: 1 });
  await master.init();
  t.equal(await master.reset(), true);
  await master.writeByte(0xcc);
  await master.writeByte(0xb4);
  t.equal(await master.readBit(), 1, 'read slot through a single-bit command');
  // Hide searchPass to force the triplet path of searchRoms.
  const viaTriplet = await searchRoms({
    name: master.name,
    reset: () => master.reset(),
    writeByte: (b) => master.writeByte(b),
    readByte: () => master.readByte(),
    writeBit: (b) => master.writeBit(b),
    readBit: () => master.readBit(),
    triplet: (d) => master.triplet(d),
  });
  const viaAccelerator = await searchRoms(master);
  const all = [...temps, sw, ab].map((d) => d.address).sort();
  t.same([...viaTriplet].sort(), all, 'triplet emulation');
  t.same(viaAccelerator, viaTriplet, 'accelerator gives the same order');
  t.equal(sim.currentMode, 'command', 'accelerator switched off and back in command mode');

  // A chip left in data mode by an earlier process is recovered by init.
  await master.writeByte(0x00);
  t.equal(sim.currentMode, 'data');
  const again = new Ds2480bMaster(new SimSerialLink(sim), { timeoutMs: 100, settleMs: 1 });
  Object.defineProperty(again.link, 'sendBreak', { value: undefined }); // a link without BREAK
  await again.init();
  t.equal(await again.reset(), true, 'init recovered a chip left in data mode');
  t.equal(makeRom(0x28, 0xe3e3e3n).slice(2, 8), 'e3e3e3');

  segment.setShort(true);
  t.equal(code(await rejects(again.reset())), 'SHORT');
  segment.setShort(false);
  for (const d of [...segment.devices]) segment.detach(d);
  t.equal(await again.reset(), false, 'no presence');
  t.same(await searchRoms(again), [], 'empty bus');
});

t.test('poller over the DS2480B', async (t) => {
  const clock = new ManualClock();
  const segment = new OneWireSegment({ now: clock.now });
  const { temps } = populate(segment);
  const master = new Ds2480bMaster(new SimSerialLink(new Ds2480bSim(segment)), { timeoutMs: 100, settleMs: 1 });
  const poller = new BusPoller(new ProtocolBus(master, { kind: 'ds2480b' }));
  for (const s of temps) poller.watchTemperature(s.address);
  const t0 = clock.t;
  for (let now = t0; now <= t0 + 800; now += 100) {
    clock.t = now;
    await poller.service(now);
  }
  t.same(
    temps.map((s) => poller.temperature(s.address, clock.t)),
    [10, 11.5, 13, 14.5, 16],
  );
});

t.test('missing serialport package and missing socat give clear errors', async (t) => {
  const e = await rejects(
    openSerialLink('/dev/ttyUSB0', {
      load: async () => {
        throw new Error("Cannot find package 'serialport'");
      },
    }),
  );
  t.type(e, SerialPortUnavailableError);
  t.match((e as Error).message, /optional 'serialport' package could not be loaded/);
  const e2 = await rejects(createDs2480bPty(new Ds2480bSim(), { socat: '/nonexistent/socat' }));
  t.match((e2 as Error).message, /not found: the DS2480B pty emulation needs socat \(apt-get install -y socat\)/);
  const e3 = await rejects(openSerialLink('/nonexistent/tty'));
  t.equal(code(e3), 'IO');
  t.match((e3 as Error).message, /cannot open \/nonexistent\/tty/);
});
