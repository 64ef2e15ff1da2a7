// The kernel w1 sysfs bus's DS2408 and DS2413 switches on an emulated tree (w1-sysfs-rig.ts): state
// and output, a DS2408 that stops answering, and the failsafe that cannot reach one.
import t from 'tap';
import { closeSync, constants, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { romToKernelName } from '../../drivers/onewire/address.js';
import { BusPoller } from '../../drivers/onewire/poller.js';
import { oneWireOutputsOff } from '../../src/failsafe/onewire.js';
import { rejects } from './onewire-fixtures.js';
import { code, rig } from './w1-sysfs-rig.js';

t.test('DS2408 and DS2413 via state/output', async (t) => {
  const { tree, sw, ab, bus1, bus2 } = rig();
  t.teardown(() => tree.close());
  t.same(await bus1.readDs2408(sw.address), { pins: 0, latches: 0 });
  await bus1.writeDs2408(sw.address, 0x81);
  tree.refresh();
  t.equal(sw.activeOutputs(), 0x81, 'write reached the model');
  t.equal(tree.stats.outputWrites, 1);
  t.same(await bus1.readDs2408(sw.address), { pins: 0x81, latches: 0x81 });
  sw.setExternalLow(0x02);
  tree.refresh();
  t.same(await bus1.readDs2408(sw.address), { pins: 0x83, latches: 0x81 });

  t.same(await bus2.readDs2413(ab.address), { pins: 0, latches: 0 });
  await bus2.writeDs2413(ab.address, 0b10);
  tree.refresh();
  t.equal(ab.activeOutputs(), 0b10);
  t.same(await bus2.readDs2413(ab.address), { pins: 0b10, latches: 0b10 });
  ab.corruptNextReads(1);
  tree.refresh();
  t.equal(code(await rejects(bus2.readDs2413(ab.address))), 'IO', 'kernel fails the read (empty)');
  ab.unplug();
  tree.refresh();
  t.equal(code(await rejects(bus2.readDs2413(ab.address))), 'NO_PRESENCE');
});

t.test(
  'a refresh between the driver opening `output` (truncated) and writing it does not lose the write',
  async (t) => {
    // A write to a sysfs attribute reaches the kernel as one store: opening with O_TRUNC does
    // nothing there. In the emulated tree the file is empty for a moment; a refresh that looks
    // then must wait for the byte, not take "nothing" as the write and render the old latches over it.
    const { tree, sw, ab } = rig();
    t.teardown(() => tree.close());
    for (const [device, dir, byte, want] of [
      [sw, join(tree.root, romToKernelName(sw.address)), 0x7e, 0x81],
      [ab, join(tree.root, 'w1_bus_master2', romToKernelName(ab.address)), 0xfd, 0b10],
    ] as const) {
      const fd = openSync(join(dir, 'output'), constants.O_WRONLY | constants.O_TRUNC);
      tree.refresh();
      writeSync(fd, Buffer.from([byte]));
      closeSync(fd);
      tree.refresh();
      t.equal(device.activeOutputs(), want, `${device.address}: the write reached the device`);
      t.equal(readFileSync(join(dir, 'output'))[0], byte, 'and output reads it back');
    }
  },
);

t.test(
  'a DS2408 that stops answering while the other devices on its master answer is no answer, not "every output off"',
  async (t) => {
    // The kernel reads a DS2408 register as one byte without a CRC: another device gives the
    // presence pulse, and a chip that does not drive the bus reads as its pull-up, 0xFF, which
    // is also what a chip with every output off and no input pulled low reads in state and output.
    const { tree, sw, bus1 } = rig({ slaveTtl: 10 });
    t.teardown(() => tree.close());
    const dir = join(tree.root, romToKernelName(sw.address));
    t.same(await bus1.readDs2408(sw.address), { pins: 0, latches: 0 }, 'present, every output off');
    const poller = new BusPoller(bus1);
    poller.watchIo(sw.address, 'DS2408');
    poller.setLatches(sw.address, 0);
    await poller.service(0);
    t.equal(poller.io(sw.address)!.connected, true);

    sw.unplug();
    tree.refresh();
    t.ok(existsSync(dir), 'the kernel still lists it');
    t.same(
      [...readFileSync(join(dir, 'state')), ...readFileSync(join(dir, 'output'))],
      [0xff, 0xff],
      'reads the idle bus',
    );
    t.equal(code(await rejects(bus1.readDs2408(sw.address))), 'NO_PRESENCE', 'no answer');
    await poller.service(1000);
    t.equal(poller.io(sw.address)!.connected, false, 'the poller sees it gone');

    sw.plug();
    tree.refresh();
    await poller.service(2000);
    t.equal(poller.io(sw.address)!.connected, true, 'and back');
  },
);

t.test('the failsafe does not report a DS2408 it cannot reach as switched off', async (t) => {
  const { tree, sw } = rig({ slaveTtl: 10 });
  t.teardown(() => tree.close());
  sw.channelWrite(0x00);
  tree.refresh();
  sw.unplug();
  tree.refresh();
  const said: string[] = [];
  const problems: string[] = [];
  const failed = await oneWireOutputsOff(
    { w1Root: tree.root, i2cBuses: ['/dev/i2c-250'], serialPorts: [] },
    { say: (l) => said.push(l), problem: (l) => problems.push(l) },
    5000,
  );
  t.equal(failed, 1, `one failure (${problems.join('; ')})`);
  t.match(problems, [new RegExp(`DS2408 ${sw.address} .*NOT made safe`)]);
  t.notMatch(said.join('\n'), new RegExp(`DS2408 ${sw.address}.*all outputs off`));
});
