import t from 'tap';
import { BusPoller } from '../../drivers/onewire/poller.js';
import { OneWireError, type OneWireBus } from '../../drivers/onewire/types.js';
import { SimDs18b20, SimDs2408, SimDs2413 } from '../../drivers/sim/onewire-wire.js';
import { ds2482Rig } from './onewire-fixtures.js';

/** Calls service every `step` ms from the current clock time up to `until` (inclusive). */
async function runUntil(poller: BusPoller, clock: { t: number }, until: number, step = 50): Promise<void> {
  while (clock.t < until) {
    clock.t = Math.min(until, clock.t + step);
    await poller.service(clock.t);
  }
}

t.test('N sensors refresh within one cycle: one conversion, then N reads after 750 ms', async (t) => {
  const { bus, segment, clock } = await ds2482Rig('ds2482-800', 2);
  const temps = [18.5, 19.0625, -3.25, 24, 65.5, 0.5, 10.125];
  const sensors = temps.map((c, i) => segment.attach(new SimDs18b20({ serial: BigInt(i + 1), temperature: c })));
  const poller = new BusPoller(bus);
  for (const s of sensors) poller.watchTemperature(s.address);
  const t0 = clock.t;
  await poller.service(t0);
  t.equal(sensors[0]!.conversions, 0, 'conversion started, not finished');
  t.ok(
    sensors.every((s) => s.converting),
    'one bus-wide Convert T reached every sensor',
  );
  await runUntil(poller, clock, t0 + 700);
  t.ok(
    sensors.every((s) => poller.temperature(s.address, clock.t) === null),
    'nothing before the conversion ends',
  );
  await runUntil(poller, clock, t0 + 750);
  t.same(
    sensors.map((s) => poller.temperature(s.address, clock.t)),
    temps,
    'all values present at 750 ms',
  );
  t.ok(
    sensors.every((s) => s.conversions === 1),
    'exactly one conversion each',
  );

  sensors.forEach((s, i) => s.setTemperature(temps[i]! + 1));
  await runUntil(poller, clock, t0 + 1700);
  t.same(
    sensors.map((s) => poller.temperature(s.address, clock.t)),
    temps,
    'old values until the next read',
  );
  t.ok(
    sensors.every((s) => s.converting && s.conversions === 1),
    'second conversion running since 1000 ms',
  );
  await runUntil(poller, clock, t0 + 1750);
  t.same(
    sensors.map((s) => poller.temperature(s.address, clock.t)),
    temps.map((c) => c + 1),
    'refreshed in cycle 2',
  );
  await runUntil(poller, clock, t0 + 10_000, 100);
  t.equal(sensors[0]!.conversions, 10, 'one cycle per second with 100 ms service calls');
  t.same(poller.counters, {
    crcErrors: 0,
    presenceErrors: 0,
    shortErrors: 0,
    readErrors: 0,
    thermocoupleFaults: 0,
    searches: 0,
  });
  t.equal(poller.lastError, null);
});

t.test('null 2 s after the sensor stops answering; recovers after replug', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const s = segment.attach(new SimDs18b20({ serial: 21n, temperature: 20 }));
  const keep = segment.attach(new SimDs18b20({ serial: 22n, temperature: 4 }));
  const poller = new BusPoller(bus);
  poller.watchTemperature(s.address);
  poller.watchTemperature(keep.address);
  const t0 = clock.t;
  await poller.service(t0);
  await runUntil(poller, clock, t0 + 2800);
  t.equal(poller.temperature(s.address, clock.t), 20);
  const lastGood = poller.sensor(s.address)!.validAt!;
  t.equal(lastGood, t0 + 2750);
  s.unplug();
  await runUntil(poller, clock, lastGood + 1950);
  t.equal(poller.temperature(s.address, clock.t), 20, 'last value kept while younger than 2 s');
  t.equal(poller.sensor(s.address)!.connected, false, 'but flagged disconnected');
  await runUntil(poller, clock, lastGood + 2000);
  t.equal(poller.temperature(s.address, clock.t), null, 'null once 2 s old');
  t.equal(poller.temperature(keep.address, clock.t), 4, 'the other sensor is unaffected');
  t.ok(poller.counters.presenceErrors >= 2, 'presence errors counted');
  t.match(poller.lastError, new RegExp(s.address));

  s.plug(); // power-on: 85 degC scratchpad and TH reloaded from EEPROM
  const back = clock.t;
  await runUntil(poller, clock, back + 5000);
  t.equal(poller.temperature(s.address, clock.t), 20, 'recovered');
  t.ok(poller.counters.readErrors >= 1, 'the power-on reading was rejected and counted');
  t.equal(poller.sensor(s.address)!.connected, true);
});

t.test('bus short: service never throws, counts, and recovers', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const s = segment.attach(new SimDs18b20({ serial: 31n, temperature: 20 }));
  const io = segment.attach(new SimDs2413({ serial: 32n }));
  const poller = new BusPoller(bus);
  poller.watchTemperature(s.address);
  poller.watchIo(io.address, 'DS2413');
  await runUntil(poller, clock, clock.t + 1000);
  t.equal(poller.io(io.address)!.connected, true);
  segment.setShort(true);
  await runUntil(poller, clock, clock.t + 3000);
  t.ok(poller.counters.shortErrors >= 3, `short errors counted (${poller.counters.shortErrors})`);
  t.match(poller.lastError, /short/);
  t.equal(poller.temperature(s.address, clock.t), null);
  t.equal(poller.io(io.address)!.connected, false);
  segment.setShort(false);
  await runUntil(poller, clock, clock.t + 2000);
  t.equal(poller.temperature(s.address, clock.t), 20);
  t.equal(poller.io(io.address)!.connected, true);
});

t.test('CRC errors are counted after retries are exhausted', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const s = segment.attach(new SimDs18b20({ serial: 41n, temperature: 20 }));
  const poller = new BusPoller(bus);
  poller.watchTemperature(s.address);
  await runUntil(poller, clock, clock.t + 1000);
  s.corruptNextReads(2);
  await runUntil(poller, clock, clock.t + 1000);
  t.equal(poller.counters.crcErrors, 0, 'absorbed by retries');
  t.equal(poller.temperature(s.address, clock.t), 20);
  s.corruptAlways();
  await runUntil(poller, clock, clock.t + 3000);
  t.equal(poller.counters.crcErrors, 3, 'one per cycle');
  t.equal(poller.temperature(s.address, clock.t), null);
});

t.test('DS2408 and DS2413 through the poller', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const sw = segment.attach(new SimDs2408({ serial: 51n }));
  const ab = segment.attach(new SimDs2413({ serial: 52n }));
  const poller = new BusPoller(bus);
  poller.watchIo(sw.address, 'DS2408');
  poller.watchIo(ab.address, 'DS2413');
  t.same(
    poller.io(sw.address),
    { pins: 0, latches: 0, connected: false, polled: false, garbled: false, desired: null, lost: null },
    'unknown until polled',
  );
  t.equal(poller.io('28ffffffffffffff'), null, 'not watched');
  await poller.service(clock.t);
  t.match(poller.io(sw.address), { pins: 0, latches: 0, connected: true, polled: true });
  t.match(poller.io(ab.address), { pins: 0, latches: 0, connected: true, polled: true });

  sw.setExternalLow(0x80);
  poller.setLatches(sw.address, 0x05);
  poller.setLatches(ab.address, 0x02);
  t.equal(sw.activeOutputs(), 0, 'nothing written before service');
  await poller.service(clock.advance(50));
  t.equal(sw.activeOutputs(), 0x05, 'DS2408 write pushed on the next service');
  t.equal(ab.activeOutputs(), 0x02, 'DS2413 write pushed');
  t.equal(poller.io(sw.address)!.latches, 0x05);
  await runUntil(poller, clock, clock.t + 1000);
  t.match(
    poller.io(sw.address),
    { pins: 0x85, latches: 0x05, connected: true, polled: true },
    'pins from the 1 s poll',
  );
  t.match(poller.io(ab.address), { pins: 0x02, latches: 0x02, connected: true, polled: true });

  sw.unplug();
  await runUntil(poller, clock, clock.t + 1000);
  t.equal(poller.io(sw.address)!.connected, false, 'failed exchange marks it disconnected');
  t.equal(poller.io(ab.address)!.connected, true);
  poller.setLatches(sw.address, 0x06);
  await poller.service(clock.advance(50));
  t.equal(poller.io(sw.address)!.connected, false, 'write to an absent module fails quietly');
  sw.plug(); // power-on latches: all off
  await runUntil(poller, clock, clock.t + 1000);
  // Output 3 was on when the module went, and came back off: lost, it stays off until asked for
  // again (a compressor's minimum off time counts from here). Output 2, never on, is written.
  t.match(
    poller.io(sw.address),
    { pins: 0x82, latches: 0x02, connected: true, polled: true, desired: 0x02, lost: { bits: 0x04 } },
    'reconnected after a power-on: what was asked for and not lost is re-asserted',
  );
  t.equal(sw.activeOutputs(), 0x02);
  poller.setLatches(sw.address, 0x06);
  await poller.service(clock.advance(50));
  t.equal(sw.activeOutputs(), 0x06, 'the lost output, asked for again, is on');
  t.throws(() => poller.setLatches('29ffffffffffffff', 1), /not a watched/);
});

t.test('search is serialised with polling; service never throws on odd errors', async (t) => {
  const { bus, segment, clock } = await ds2482Rig();
  const devices = [1n, 2n, 3n].map((n) => segment.attach(new SimDs18b20({ serial: n, temperature: 10 })));
  let inFlight = 0;
  let maxInFlight = 0;
  const tracked = new Proxy(bus, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function' || prop === 'close') return v;
      return async (...args: unknown[]) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 2));
        try {
          return await v.apply(target, args);
        } finally {
          inFlight--;
        }
      };
    },
  }) as OneWireBus;
  const poller = new BusPoller(tracked);
  for (const d of devices) poller.watchTemperature(d.address);
  await poller.service(clock.t);
  clock.advance(800);
  const [found] = await Promise.all([
    poller.search(),
    poller.service(clock.t),
    poller.service(clock.t),
    poller.search(),
  ]);
  t.equal(maxInFlight, 1, 'never two bus operations at once');
  t.same([...found].sort(), devices.map((d) => d.address).sort());
  t.same(poller.addresses, found);
  t.equal(poller.counters.searches, 2);
  t.ok(devices.every((d) => poller.temperature(d.address, clock.t) === 10));

  const broken: OneWireBus = {
    name: 'broken',
    kind: 'w1',
    search: async () => {
      throw new OneWireError('NO_PRESENCE', 'nobody');
    },
    convertAll: async () => {
      throw new TypeError('boom');
    },
    readTemperature: async () => 0,
    readMax31850: async () => ({ temperature: 0, coldJunction: 0, fault: null, addressPins: 0, chip: 'MAX31850' }),
    readDs2408: async () => ({ pins: 0, latches: 0 }),
    writeDs2408: async () => {},
    readDs2413: async () => ({ pins: 0, latches: 0 }),
    writeDs2413: async () => {},
    close: async () => {},
  };
  const p2 = new BusPoller(broken);
  p2.watchTemperature(devices[0]!.address);
  await p2.service(0);
  t.equal(p2.counters.readErrors, 1, 'a non-1-Wire error is counted, not thrown');
  t.match(p2.lastError, /boom/);
  await t.rejects(p2.search(), /nobody/, 'search reports its failure to the caller');
  t.equal(p2.counters.presenceErrors, 1);
  t.equal(p2.counters.searches, 1);
});

t.test(
  'nextServiceAt: serviced only when it says, the poller reads as often and as soon as when serviced every 50 ms',
  async (t) => {
    const { bus, segment, clock } = await ds2482Rig();
    const sensor = segment.attach(new SimDs18b20({ serial: 31n, temperature: 21.5 }));
    const io = segment.attach(new SimDs2408({ serial: 32n }));
    const poller = new BusPoller(bus);
    t.equal(poller.nextServiceAt(clock.t), Infinity, 'nothing watched: never');
    poller.watchTemperature(sensor.address);
    const t0 = clock.t;
    t.equal(poller.nextServiceAt(t0), t0, 'a newly watched sensor: now');
    await poller.service(t0);
    t.equal(poller.nextServiceAt(t0 + 10), t0 + 750, 'converting: at the end of the conversion');
    clock.t = t0 + 750;
    await poller.service(clock.t);
    t.equal(poller.temperature(sensor.address, clock.t), 21.5, 'read at 750 ms, as with 50 ms service calls');
    t.equal(poller.nextServiceAt(clock.t), t0 + 1000, 'then the next cycle');

    poller.watchIo(io.address, 'DS2408');
    t.equal(poller.nextServiceAt(clock.t), clock.t, 'a newly watched IO module: now');
    await poller.service(clock.t);
    t.equal(poller.io(io.address)?.connected, true);
    t.equal(
      poller.nextServiceAt(clock.t),
      t0 + 1000,
      'both polled: the earlier of the next cycle and the next IO poll',
    );
    poller.setLatches(io.address, 0x01);
    t.equal(poller.nextServiceAt(clock.t), clock.t, 'a queued latch write: now');
    await poller.service(clock.t);
    t.equal(io.activeOutputs(), 0x01, 'written');

    // Ten seconds driven only at the times it asks for.
    let calls = 0;
    const start = clock.t;
    while (clock.t < start + 10_000) {
      clock.t = Math.min(start + 10_000, poller.nextServiceAt(clock.t));
      await poller.service(clock.t);
      calls++;
      if (clock.t === start + 5000) sensor.setTemperature(17.25);
    }
    t.ok(calls <= 2 * 10 + 2, `${calls} service calls in 10 s (a conversion and a read a second; at 10 Hz it was 100)`);
    t.equal(poller.temperature(sensor.address, clock.t), 17.25, 'the new temperature was read');
    t.equal(sensor.conversions, 11, 'one conversion a second, as before');
    t.equal(poller.lastError, null);
  },
);

// A start is a state of its own: a sensor whose first read since it was watched fails (a frame
// garbled on a long wire) is ridden through as a running sensor rides through a missed read, for
// staleMs, before it counts as having no value. Before, `tried` alone ended the wait, and the
// miss was a null the alerts counted: two quick restarts that each missed a first read made one
// streak old enough to fire "Sensor not reading" (alerts/restart-quiet.test.ts, under load).
t.test('a failed first read is still pending for staleMs; a sensor that keeps failing is not', async (t) => {
  const { bus, segment, clock } = await ds2482Rig('ds2482-800', 2);
  const flaky = segment.attach(new SimDs18b20({ serial: 11n, temperature: 20 }));
  const dead = segment.attach(new SimDs18b20({ serial: 12n, temperature: 21 }));
  const poller = new BusPoller(bus);
  poller.watchTemperature(flaky.address);
  poller.watchTemperature(dead.address);
  t.ok(poller.readingPending(flaky.address, clock.t), 'not read yet: pending');
  flaky.corruptNextReads(20);
  dead.corruptAlways(true);
  const t0 = clock.t;
  await poller.service(t0);
  await runUntil(poller, clock, t0 + 800);
  t.ok(poller.sensor(flaky.address)?.tried, 'its first read was tried');
  t.equal(poller.temperature(flaky.address, clock.t), null, 'and failed');
  t.ok(poller.readingPending(flaky.address, clock.t), 'a failed first read is still pending');
  flaky.corruptNextReads(0);
  await runUntil(poller, clock, t0 + 1800);
  t.equal(poller.temperature(flaky.address, clock.t), 20, 'the next round reads it');
  t.notOk(poller.readingPending(flaky.address, clock.t), 'read: not pending');
  await runUntil(poller, clock, t0 + 800 + 2100);
  t.equal(poller.temperature(dead.address, clock.t), null, 'the dead sensor never reads');
  t.notOk(poller.readingPending(dead.address, clock.t), 'failing for staleMs since its first try: no longer pending');
});
