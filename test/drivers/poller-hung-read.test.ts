// A read round that does not end (a kernel w1 read that blocks, a bus that hangs) must not keep
// every sensor's last value fresh: the allowance a slow round adds to staleness is capped at what
// a round of reads may take, so control does not run on a frozen temperature without an alert.
import t from 'tap';
import { makeRom } from '../../drivers/onewire/address.js';
import { BusPoller } from '../../drivers/onewire/poller.js';
import type { OneWireBus } from '../../drivers/onewire/types.js';

t.test('a read that never returns does not keep the other sensors fresh for ever', async (t) => {
  const a = makeRom(0x28, 1);
  const b = makeRom(0x28, 2);
  let hang = false;
  const bus = {
    name: 'fake',
    kind: 'w1',
    search: async () => [a, b],
    convertAll: async () => {},
    readTemperature: (address: string) => {
      if (address === b && hang) return new Promise<number>(() => {}); // never answers
      return Promise.resolve(address === a ? 20 : 21);
    },
  } as unknown as OneWireBus;
  let clock = 0;
  const poller = new BusPoller(bus, { clock: () => clock });
  poller.watchTemperature(a);
  poller.watchTemperature(b);
  // A few normal rounds.
  for (; clock < 5000; clock += 50) await poller.service(clock);
  t.equal(poller.temperature(a, clock), 20, 'reads normally');
  hang = true;
  // The next round: a is read, then b's read blocks for ever.
  for (; clock < 7000; clock += 50) await Promise.race([poller.service(clock), new Promise((r) => setImmediate(r))]);
  const lastGood = poller.sensor(a)!.validAt!;
  clock = lastGood + 60_000;
  t.equal(
    poller.temperature(a, clock),
    null,
    `a value read ${(clock - lastGood) / 1000} s ago is stale (staleMs 2000)`,
  );
  clock = lastGood + 3_600_000;
  t.equal(poller.temperature(a, clock), null, 'and an hour later');
});
