// When the 1-Wire hub asks for its tick hook (nextServiceAt): what the pollers need, an asked-for
// address expiring, the next search while one is missing, a released IO module at once; and
// when a sensor's reading can next change (nextChangeAt), which TempSensorOneWire sleeps until.
import t from 'tap';
import pino from 'pino';
import { makeRom } from '../../drivers/onewire/address.js';
import { Ds2482Chip } from '../../drivers/onewire/ds2482.js';
import { ProtocolBus } from '../../drivers/onewire/protocol-bus.js';
import { createDs2482Sim } from '../../drivers/sim/ds2482-sim.js';
import { SimDs18b20, SimDs2408 } from '../../drivers/sim/onewire-wire.js';
import { OneWireHub, RESEARCH_INTERVAL_MS, WANT_EXPIRY_MS } from '../../src/hardware/onewire-hub.js';
import { HARDWARE_POLL_MS } from '../../src/runtime/loop.js';
import { ds2482Rig } from '../drivers/onewire-fixtures.js';

const log = pino({ level: 'silent' });

t.test('nextServiceAt follows the pollers, the wants and the searches', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const sensor = segment.attach(new SimDs18b20({ address: makeRom(0x28, 0x4401), temperature: 19.5 }));
  const io = segment.attach(new SimDs2408({ address: makeRom(0x29, 0x4402) }));
  const hub = new OneWireHub(log);
  t.equal(hub.nextServiceAt(0), Infinity, 'no bus: never');
  hub.addBus(bus);
  t.equal(hub.nextServiceAt(0), Infinity, 'a bus with nothing asked for: never');
  const search = hub.searchAll();
  t.equal(hub.nextServiceAt(0), HARDWARE_POLL_MS, 'a search running: every poll interval');
  await search;

  // Fractional times, as performance.now() gives them: the hub's sums must match exactly. The
  // emulated chips run on the same clock.
  clock.advance(1000.3);
  const t0 = clock.now();
  let now = t0;
  t.equal(hub.temperature(sensor.address, now).value, null, 'asked for: nothing read yet');
  t.equal(hub.nextServiceAt(now), now, 'a newly watched sensor: at once');
  await hub.service(now);
  t.equal(hub.nextServiceAt(now), now + 750, 'converting: at its end');
  t.equal(hub.temperature(sensor.address, now).nextChangeAt, now + 750, 'and the reading changes then');
  clock.advance(750);
  now += 750;
  await hub.service(now);
  const r = hub.temperature(sensor.address, now);
  t.equal(r.value, 19.5, 'read exactly at the end of the conversion');
  t.equal(hub.nextServiceAt(now), t0 + 1000, 'then the next cycle');
  t.equal(r.nextChangeAt, t0 + 1000 + 750, 'the reading changes at the next read');

  t.equal(hub.io(io.address, 'DS2408')?.connected, false, 'an IO module asked for');
  t.equal(hub.nextServiceAt(now), now, 'a newly watched module: at once');
  await hub.service(now);
  hub.setLatches(io.address, 'DS2408', 0x01);
  t.equal(hub.nextServiceAt(now), now, 'a queued latch write: at once');
  await hub.service(now);
  t.equal(io.activeOutputs(), 0x01);
  t.ok(hub.nextServiceAt(now) <= now + WANT_EXPIRY_MS + 1, 'never later than a want expiring');
});

t.test('a missing sensor is searched for again every RESEARCH_INTERVAL_MS, and the hub wakes for it', async (t) => {
  const { bus } = await ds2482Rig();
  const hub = new OneWireHub(log);
  hub.addBus(bus);
  await hub.searchAll();
  const ghost = makeRom(0x28, 0x4499);
  const now = 5000.7;
  t.equal(hub.temperature(ghost, now).bus, null, 'not on any bus');
  await hub.service(now);
  const due = hub.nextServiceAt(now);
  t.ok(due <= now + RESEARCH_INTERVAL_MS, `the next search is what wakes it (due in ${(due - now).toFixed(1)} ms)`);
  t.ok(due > now, 'not at once: the start-up search just ran');
});

t.test('a released IO module switches off at once: the hub asks for service now', async (t) => {
  const { bus, segment } = await ds2482Rig();
  const io = segment.attach(new SimDs2408({ address: makeRom(0x29, 0x4403) }));
  const hub = new OneWireHub(log);
  hub.addBus(bus);
  await hub.searchAll();
  const now = 200.5;
  hub.io(io.address, 'DS2408');
  await hub.service(now);
  hub.setLatches(io.address, 'DS2408', 0x03);
  await hub.service(now);
  t.equal(io.activeOutputs(), 0x03);
  hub.release(io.address);
  t.equal(hub.nextServiceAt(now + 10), now + 10, 'released: service at once');
  await hub.service(now + 10);
  t.equal(io.activeOutputs(), 0, 'its outputs went off');
  t.equal(hub.nextServiceAt(now + 10), Infinity, 'and then nothing is asked for');
});

t.test('start-up is a state: nothing is missing before the first search and each device its first read', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const sensor = segment.attach(new SimDs18b20({ address: makeRom(0x28, 0x4501), temperature: 20 }));
  const io = segment.attach(new SimDs2408({ address: makeRom(0x29, 0x4502) }));
  const ghost = makeRom(0x28, 0x45ff);
  const hub = new OneWireHub(log);
  hub.addBus(bus);
  let now = clock.now();
  // Blocks ask before the first search has finished (as on every start).
  t.equal(hub.temperature(sensor.address, now).pending, true, 'a sensor asked for before the search: pending');
  hub.temperature(ghost, now);
  hub.io(io.address, 'DS2408');
  t.same(hub.missing(), [], 'nothing is missing before the first search');
  t.same(hub.pending().sort(), [sensor.address, io.address, ghost].sort());
  await hub.searchAll();
  t.same(hub.missing(), [ghost], 'after the search, an address not found is missing');
  t.equal(hub.temperature(ghost, now).pending, false, 'and no longer pending');
  t.same(hub.pending().sort(), [sensor.address, io.address].sort(), 'found devices wait for their first read');
  await hub.service(now);
  t.notOk(hub.pending().includes(io.address), 'the IO module after its first poll');
  t.same(hub.missing(), [ghost], 'which answered');
  t.equal(hub.temperature(sensor.address, now).pending, true, 'the sensor while it converts');
  clock.advance(750);
  now += 750;
  await hub.service(now);
  const r = hub.temperature(sensor.address, now);
  t.same([r.value, r.pending], [20, false], 'read: a value, not pending');
  t.same(hub.pending(), []);

  // A sensor that fails its first read is ridden through for staleMs (2 s), as a running sensor
  // rides through a missed read; still failing then, it is missing.
  const failing = segment.attach(new SimDs18b20({ address: makeRom(0x28, 0x4503), temperature: 21 }));
  await hub.searchAll();
  segment.detach(failing);
  hub.temperature(failing.address, now);
  t.equal(hub.temperature(failing.address, now).pending, true, 'found, not read yet');
  clock.advance(1000);
  now += 1000;
  await hub.service(now);
  clock.advance(750);
  now += 750;
  await hub.service(now);
  const f = hub.temperature(failing.address, now);
  t.same([f.value, f.pending], [null, true], 'its first read failed: null, still pending');
  t.notOk(hub.missing().includes(failing.address), 'not missing yet');
  clock.advance(2000);
  now += 2000;
  await hub.service(now);
  const g = hub.temperature(failing.address, now);
  t.same([g.value, g.pending], [null, false], 'failing for 2 s since its first try: null and no longer pending');
  t.ok(hub.missing().includes(failing.address), 'so it is missing');
});

t.test('an IO module moved to another bus: outputs that came back off count as lost, not switched on', async (t) => {
  let now = 1_000_000;
  const sim = createDs2482Sim({ chips: [{ address: 0x18, variant: 'ds2482-800' }], now: () => now });
  const chip = new Ds2482Chip(sim.i2c, 0x18, 'ds2482-800');
  await chip.init();
  const address = makeRom(0x29, 0x5501);
  const board = sim.segment(0x18, 0).attach(new SimDs2408({ address }));
  const hub = new OneWireHub(log);
  hub.addBus(new ProtocolBus(chip.channel(0), { kind: 'ds2482' }));
  hub.addBus(new ProtocolBus(chip.channel(1), { kind: 'ds2482' }));
  await hub.searchAll();
  hub.io(address, 'DS2408');
  await hub.service(now);
  hub.setLatches(address, 'DS2408', 0x03); // a compressor and a pump
  await hub.service(now);
  t.equal(board.activeOutputs(), 0x03);

  // Unplugged from channel 0 and plugged into channel 1: it powers up with every output off.
  sim.segment(0x18, 0).detach(board);
  const moved = sim.segment(0x18, 1).attach(new SimDs2408({ address }));
  // A block asks on every tick; the missing module is searched for again.
  for (let i = 0; i < RESEARCH_INTERVAL_MS / 1000 + 3; i++) {
    now += 1000;
    hub.io(address, 'DS2408');
    await hub.service(now);
  }
  const r = hub.io(address, 'DS2408')!;
  t.equal(r.bus, 'ds2482-sim-0x18-ch1', 'found on the other channel');
  t.equal(r.connected, true);
  t.equal(moved.activeOutputs(), 0, 'the compressor is not switched straight back on');
  t.match(r, { desired: 0, lost: { bits: 0x03 } }, 'its outputs count as lost, for their actuators');

  // A board with its own supply keeps its outputs when its data line moves: nothing is lost.
  hub.setLatches(address, 'DS2408', 0x01);
  now += 10;
  await hub.service(now);
  t.equal(moved.activeOutputs(), 0x01);
  sim.segment(0x18, 1).detach(moved);
  sim.segment(0x18, 0).attach(moved);
  // A block asks on every tick; the missing module is searched for again.
  for (let i = 0; i < RESEARCH_INTERVAL_MS / 1000 + 3; i++) {
    now += 1000;
    hub.io(address, 'DS2408');
    await hub.service(now);
  }
  const back = hub.io(address, 'DS2408')!;
  t.equal(back.bus, 'ds2482-sim-0x18-ch0');
  t.equal(moved.activeOutputs(), 0x01, 'kept on');
  t.equal(back.desired, 0x01);
});
