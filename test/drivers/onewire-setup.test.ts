import t from 'tap';
import { probeDs2482Buses } from '../../drivers/onewire/ds2482.js';
import { BusPoller } from '../../drivers/onewire/poller.js';
import { buildOneWireSim } from '../../drivers/sim/onewire-setup.js';
import { SimDs18b20, SimDs2408 } from '../../drivers/sim/onewire-wire.js';
import { ManualClock } from './onewire-fixtures.js';

t.test('a complete emulated setup: declarative devices, probed bridges, one poller per channel', async (t) => {
  const clock = new ManualClock();
  const sim = buildOneWireSim({
    now: clock.now,
    bridges: [
      {
        address: 0x18,
        variant: 'ds2482-800',
        channels: [
          [
            { type: 'ds18b20', serial: 1, temperature: 19, name: 'beer' },
            { type: 'ds18b20', serial: 2, temperature: 17, name: 'fridge' },
          ],
          [{ type: 'ds2408', serial: 3, name: 'relays' }],
        ],
      },
    ],
  });
  const buses = await probeDs2482Buses(sim.i2c);
  t.equal(buses.length, 8);
  const pollers = buses.map((b) => new BusPoller(b));
  const found = await Promise.all(pollers.map((p) => p.search()));
  t.same(
    found.map((f) => f.length),
    [2, 1, 0, 0, 0, 0, 0, 0],
  );
  const beer = sim.named.get('beer') as SimDs18b20;
  const relays = sim.named.get('relays') as SimDs2408;
  pollers[0]!.watchTemperature(beer.address);
  pollers[1]!.watchIo(relays.address, 'DS2408');
  pollers[1]!.setLatches(relays.address, 0b01);
  for (let i = 0; i <= 8; i++) {
    await Promise.all(pollers.map((p) => p.service(clock.t)));
    clock.advance(100);
  }
  t.equal(pollers[0]!.temperature(beer.address, clock.t), 19);
  t.equal(relays.activeOutputs(), 0b01, 'the plant reads heater state from the latch');
  beer.setTemperature(19.5); // the plant warms the beer
  for (let i = 0; i < 10; i++) {
    await Promise.all(pollers.map((p) => p.service(clock.t)));
    clock.advance(100);
  }
  t.equal(pollers[0]!.temperature(beer.address, clock.t), 19.5);
  t.equal(sim.find(relays.address), relays);
});

t.test('a DS2480B in the spec', async (t) => {
  const sim = buildOneWireSim({ ds2480b: [{ type: 'ds2413', serial: 9 }] });
  t.ok(sim.ds2480b);
  t.equal(sim.ds2480b!.segment.devices.length, 1);
  t.equal(sim.chips.length, 0);
});
