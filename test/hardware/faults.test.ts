// The outcome of every injected fault, seen through the blocks: the emulation misbehaves, the
// real drivers cope, the blocks report it.
import t from 'tap';
import { q, simApp, type SimApp } from './sim-app.js';

const SIM = {
  plant: { ambient: 20, initial: { beer: 18, air: 19 } },
  ds2482: [
    {
      address: 24,
      variant: 'ds2482-800',
      channels: [
        [
          { name: 'beer', type: 'DS18B20', address: '28-0000000000b1', sense: 'beer' },
          { name: 'air', type: 'DS18B20', address: '28-0000000000a1', sense: 'air' },
        ],
        [{ name: 'relays', type: 'DS2408', address: '29-0000000000d1' }],
      ],
    },
  ],
};
const BEER = 'Sensor 00b1';
const AIR = 'Sensor 00a1';
const BUS0 = 'OneWire Bus ds2482-sim-0x18-ch0';

async function discovered(): Promise<SimApp> {
  const s = await simApp({ sim: SIM });
  const found = await s.post('blocks/discover');
  if (found.body.length !== 5) throw new Error(`expected 5 discovered blocks, got ${JSON.stringify(found.body)}`);
  await s.run(3000);
  return s;
}

/** Runs until `pred` holds, in 100 ms steps; returns the time it took (ms), or Infinity. */
async function until(s: SimApp, pred: () => boolean, limitMs: number): Promise<number> {
  const t0 = s.clock.now();
  while (!pred()) {
    if (s.clock.now() - t0 >= limitMs) return Infinity;
    await s.run(100);
  }
  return s.clock.now() - t0;
}

t.test('unplug: value null and not connected within 2 s; replug: back', async (t) => {
  const s = await discovered();
  t.teardown(() => s.close());
  t.equal(q(s.data(BEER).value), 18);
  const r = await s.post('sim/devices/beer/unplug');
  t.equal(r.status, 200);
  t.equal(r.body.plugged, false);
  const took = await until(s, () => q(s.data(BEER).value) === null && s.data(BEER).connected === false, 5000);
  t.ok(took <= 2000, `null and disconnected after ${took} ms`);
  t.equal(q(s.data(AIR).value), 19, 'the other sensor on the bus is unaffected');
  await s.run(5000);
  t.equal(q(s.data(BEER).value), null, 'stays null while unplugged');
  t.ok(s.data(BUS0).presenceErrors > 0, 'the bus block counts the missing answers');

  await s.post('sim/devices/beer/plug');
  const back = await until(s, () => q(s.data(BEER).value) === 18 && s.data(BEER).connected === true, 5000);
  t.ok(back < 5000, `recovered after ${back} ms`);
});

t.test('an unplugged IO module reads disconnected and its channels unknown; back on replug', async (t) => {
  const s = await discovered();
  t.teardown(() => s.close());
  await s.post('blocks/create', {
    id: 'Heater',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': 'DS2408 0000000000d1', channel: 1, storedState: 'STATE_ACTIVE' },
  });
  await s.run(2000);
  t.equal(s.data('Heater').state, 'STATE_ACTIVE');
  await s.post('sim/devices/relays/unplug');
  await s.run(2500);
  t.equal(s.data('DS2408 0000000000d1').connected, false);
  t.equal(s.data('Heater').state, null, 'actuator state unknown');
  await s.post('sim/devices/relays/plug');
  await s.run(3000);
  t.equal(s.data('DS2408 0000000000d1').connected, true);
  t.equal(s.data('Heater').state, 'STATE_ACTIVE', 'latch re-asserted after the module powered up again');
  t.same((await s.get('sim/devices/relays')).body.activeChannels, [1]);
});

t.test(
  'CRC corruption: a few bad frames are retried, persistent corruption is counted and nulls the value',
  async (t) => {
    const s = await discovered();
    t.teardown(() => s.close());
    const before = s.data(BUS0);
    await s.post('sim/devices/beer/fault', { fault: 'crc', count: 2 });
    const values: Array<number | null> = [];
    for (let i = 0; i < 30; i++) {
      await s.run(100);
      values.push(q(s.data(BEER).value));
    }
    t.ok(
      values.every((v) => v === 18),
      'value stays valid through retried frames',
    );
    const after = s.data(BUS0);
    t.equal(after.crcRetries - before.crcRetries, 2, 'both bad frames absorbed by retries');
    t.equal(after.crcErrors, before.crcErrors, 'no read failed');

    await s.post('sim/devices/beer/fault', { fault: 'crc', count: 'always' });
    const took = await until(s, () => q(s.data(BEER).value) === null, 5000);
    t.ok(took <= 3000, `null once no valid reading for 2 s (${took} ms)`);
    t.ok(s.data(BUS0).crcErrors > after.crcErrors, 'failed reads counted as CRC errors');
    t.match(
      s.data(BUS0).lastError,
      new RegExp(`${s.data(BEER).address}.*CRC`),
      'lastError names the sensor and the CRC',
    );
    t.equal(q(s.data(AIR).value), 19);

    await s.post('sim/devices/beer/fault', { fault: 'clear' });
    t.ok((await until(s, () => q(s.data(BEER).value) === 18, 5000)) < 5000, 'recovers when cleared');
  },
);

t.test('power-on 85 degC is rejected, never shown', async (t) => {
  const s = await discovered();
  t.teardown(() => s.close());
  await s.post('sim/devices/air/temperature', { value: 25 });
  await s.run(2000);
  t.equal(q(s.data(AIR).value), 25);
  const errors = s.data(BUS0).readErrors;
  const seen = new Set<number | null>();
  for (let round = 0; round < 4; round++) {
    // Glitch at different points of the conversion cycle.
    await s.run(250 * round + 100);
    t.equal((await s.post('sim/devices/air/fault', { fault: 'power-on' })).status, 200);
    for (let i = 0; i < 25; i++) {
      await s.run(100);
      seen.add(q(s.data(AIR).value));
    }
  }
  t.notOk(seen.has(85), 'the power-on value never reaches the block');
  t.ok(
    [...seen].every((v) => v === 25 || v === null),
    `only real readings: ${[...seen].join(', ')}`,
  );
  t.ok(s.data(BUS0).readErrors > errors, 'rejected readings counted');
  await s.run(3000);
  t.equal(q(s.data(AIR).value), 25, 'reads normally afterwards');
});

t.test('all-zero scratchpad (CRC passes) is rejected', async (t) => {
  const s = await discovered();
  t.teardown(() => s.close());
  const errors = s.data(BUS0).readErrors;
  await s.post('sim/devices/beer/fault', { fault: 'zero' });
  const seen = new Set<number | null>();
  for (let i = 0; i < 40; i++) {
    await s.run(100);
    seen.add(q(s.data(BEER).value));
  }
  t.notOk(seen.has(0), 'never reads 0');
  t.equal(q(s.data(BEER).value), null);
  t.equal(s.data(BEER).connected, false);
  t.ok(s.data(BUS0).readErrors > errors, 'counted as read errors');
  await s.post('sim/faults/clear');
  t.ok((await until(s, () => q(s.data(BEER).value) === 18, 5000)) < 5000);
});

t.test('bus short: reported by OneWireBus, sensors null; recovers when released', async (t) => {
  const s = await discovered();
  t.teardown(() => s.close());
  const r = await s.post('sim/buses/ds2482-sim-0x18-ch0/fault', { fault: 'short' });
  t.equal(r.status, 200);
  t.equal(r.body.shorted, true);
  await s.run(2500);
  const bus = s.data(BUS0);
  t.match(bus.lastError, /short/i, `lastError: ${bus.lastError}`);
  t.ok(bus.shortErrors > 0, 'shorts counted');
  t.equal(q(s.data(BEER).value), null);
  t.equal(q(s.data(AIR).value), null);
  t.equal(s.data(BEER).connected, false);
  t.equal(s.data('DS2408 0000000000d1').connected, true, 'the other channel of the bridge keeps working');
  await s.post('sim/buses/ds2482-sim-0x18-ch0/fault', { fault: 'clear' });
  t.ok(
    (await until(s, () => q(s.data(BEER).value) === 18 && q(s.data(AIR).value) === 19, 5000)) < 5000,
    'back after the short',
  );
});

t.test('cut cable: every device on the bus goes missing and comes back', async (t) => {
  const s = await discovered();
  t.teardown(() => s.close());
  await s.post('sim/buses/ds2482-sim-0x18-ch0/fault', { fault: 'cut' });
  await s.run(2500);
  t.equal(q(s.data(BEER).value), null);
  t.equal(q(s.data(AIR).value), null);
  await s.post('sim/faults/clear');
  t.ok((await until(s, () => q(s.data(AIR).value) === 19, 5000)) < 5000);
});
