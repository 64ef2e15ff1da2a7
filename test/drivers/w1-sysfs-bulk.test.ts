// The kernel w1 sysfs bus's conversions on an emulated tree (w1-sysfs-rig.ts): therm_bulk_read when it
// can be written, when it cannot or goes away, and several sensors read in turn without it.
import t from 'tap';
import { existsSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BusPoller } from '../../drivers/onewire/poller.js';
import { W1SysfsBus } from '../../drivers/onewire/w1-sysfs.js';
import { OneWireSegment, SimDs18b20 } from '../../drivers/sim/onewire-wire.js';
import { W1Tree } from '../../drivers/sim/w1-tree.js';
import { rig } from './w1-sysfs-rig.js';

t.test('bulk conversion through therm_bulk_read when writable', async (t) => {
  const { tree, bus1, bus2 } = rig();
  t.teardown(() => tree.close());
  await bus1.convertAll();
  t.equal(bus1.bulkTriggers, 1);
  tree.refresh();
  t.equal(tree.stats.bulkTriggers, 1, 'the emulated kernel saw the trigger');
  t.equal(readFileSync(join(tree.root, 'w1_bus_master1', 'therm_bulk_read'), 'utf8'), '0\n', 'back to idle');
  await bus2.convertAll();
  t.equal(bus2.bulkTriggers, 0, 'no DS18B20 on master 2: no therm_bulk_read, per-device reads');

  const ro = rig({ bulkRead: 'readonly' });
  t.teardown(() => ro.tree.close());
  await ro.bus1.convertAll();
  await ro.bus1.convertAll();
  t.equal(ro.bus1.bulkTriggers, 0, 'read-only attribute is not written');
  t.equal(await ro.bus1.readTemperature(ro.a.address), 21.5, 'per-device read works');
  const none = rig({ bulkRead: 'absent' });
  t.teardown(() => none.tree.close());
  await none.bus1.convertAll();
  t.equal(none.bus1.bulkTriggers, 0);
});

t.test('therm_bulk_read is looked at once, and again only after it went away', async (t) => {
  const { tree, bus1 } = rig();
  t.teardown(() => tree.close());
  const file = join(tree.root, 'w1_bus_master1', 'therm_bulk_read');
  await bus1.convertAll();
  t.equal(bus1.bulkTriggers, 1);
  rmSync(file);
  await bus1.convertAll();
  t.equal(bus1.bulkTriggers, 1, 'gone: no trigger, and no error');
  t.notOk(existsSync(file), 'and not made again as a plain file');
  writeFileSync(file, '0\n', { mode: 0o444 });
  await bus1.convertAll();
  t.equal(bus1.bulkTriggers, 1, 'back, but read-only: looked at again, not written');
  const ok = rig();
  t.teardown(() => ok.tree.close());
  await ok.bus1.convertAll();
  await ok.bus1.convertAll();
  t.equal(ok.bus1.bulkTriggers, 2, 'present and writable: a trigger every cycle');
});

t.test(
  'without therm_bulk_read each kernel read converts (750 ms): several sensors still read all the time',
  async (t) => {
    // The service cannot write therm_bulk_read without a udev rule, so on a Pi each read of
    // `temperature` blocks in the kernel for its own conversion. The reads of one round then take
    // 750 ms a sensor; a reading must not go stale while the others' reads run.
    const seg = new OneWireSegment();
    const sensors = [1n, 2n, 3n, 4n].map((n) => seg.attach(new SimDs18b20({ serial: n, temperature: 18 + Number(n) })));
    const tree = new W1Tree({ masters: [seg], bulkRead: 'absent' });
    t.teardown(() => tree.close());
    let clock = 1000;
    /** The kernel's time: its read of a sensor returns after that sensor's conversion. */
    class KernelConverting extends W1SysfsBus {
      override async readTemperature(address: string): Promise<number> {
        try {
          return await super.readTemperature(address);
        } finally {
          clock += 750;
          look();
        }
      }
    }
    const poller = new BusPoller(new KernelConverting({ root: tree.root }), { clock: () => clock });
    for (const s of sensors) poller.watchTemperature(s.address);
    const nulls = new Map<string, number[]>(sensors.map((s) => [s.address, []]));
    const look = () => {
      for (const s of sensors) if (poller.temperature(s.address, clock) === null) nulls.get(s.address)!.push(clock);
    };
    const until = async (end: number) => {
      while (clock < end) {
        await poller.service(clock);
        look();
        clock += 100;
      }
    };
    await until(6000);
    nulls.forEach((at) => at.splice(0));
    await until(40_000);
    for (const s of sensors) t.same(nulls.get(s.address), [], `${s.address} reads every time it is looked at`);
    t.equal(poller.temperature(sensors[3]!.address, clock), 22);

    sensors[1]!.unplug();
    tree.refresh();
    const gone = clock;
    await until(gone + 10_000);
    const sinceGone = nulls.get(sensors[1]!.address)!;
    t.ok(
      sinceGone.length > 0 && sinceGone[0]! - gone <= 2000 + 4 * 750,
      `an unplugged one reads null within a round of reads and 2 s (${sinceGone[0]! - gone} ms)`,
    );
    t.same(nulls.get(sensors[3]!.address), [], 'the others still read');
  },
);
