// A failed batch changes nothing on the hardware either: a delete hook (an actuator switching its
// output off, letting go of its mutex) or a write hook (an IO chip's block moved to another
// address lets go of the old chip) acts only once the batch is committed, in the batch's order,
// on the blocks as they were at its item. A successful batch still switches a deleted actuator's
// output off, whether its IO block goes in the same batch before or after it (each order, on
// each chip). A block whose
// creation a failed batch undoes never ran: taking it back lets go of nothing. A backup load that
// cannot be stored is undone the same way, with no output touched. In the app on the
// emulated chips (a DS2408 behind a DS2482, an MCP23017 relay board), through the real drivers,
// with a manual clock; and through REST.
import t, { type Test } from 'tap';
import { type SimApp } from '../hardware/sim-app.js';
import { DS2408, MCP, relayRig } from './relay-chips.js';
import { link, setup } from './setup.js';

const seconds = (value: number) => ({ __objtype: 'Quantity', unit: 's', value });

/**
 * The relay rig (relay-chips.ts), each actuator held off for 10 minutes by any switch off its
 * history sees; its batches go to the runtime or through REST.
 */
async function rig(t: Test, opts: { via: 'runtime' | 'rest' } = { via: 'runtime' }): Promise<Rig> {
  const minOff = { minOff: { duration: seconds(600), enabled: true } };
  const { s, latch, relay, offSeen, run } = await relayRig(t, {
    settle: async (s) => {
      await s.run(2000);
      for (const id of ['Heater', 'Cooler'])
        t.equal(
          (await s.post('blocks/patch', { id, type: 'DigitalActuator', data: { constraints: minOff } })).status,
          200,
        );
      await s.run(2000);
    },
  });
  t.equal(s.data(DS2408).connected, true);
  t.equal(s.data(MCP).connected, true);
  return {
    s,
    latch,
    relay,
    offSeen,
    run,
    batch: async (op: string, items: unknown[]) => {
      if (opts.via === 'rest') return (await s.post(`blocks/batch/${op}`, items)).status;
      try {
        if (op === 'delete') s.app.runtime.deleteMany(items);
        else s.app.runtime.batch(op as 'patch', items);
        return 200;
      } catch {
        return 422;
      }
    },
  };
}

interface Rig {
  s: SimApp;
  latch(): number;
  relay(): boolean;
  offSeen: { heater: number; cooler: number };
  run(ms: number): Promise<void>;
  batch(op: string, items: unknown[]): Promise<number>;
}

t.test(
  'a failed delete batch leaves the outputs of the actuators it named on: never off, not even for a poll',
  async (t) => {
    const r = await rig(t);
    t.not(await r.batch('delete', [{ id: 'Heater' }, { id: 'Cooler' }, { id: 'no such block' }]), 200, 'refused');
    await r.run(5000);
    t.same(r.offSeen, { heater: 0, cooler: 0 }, 'neither output went off');
    t.equal(r.s.data('Heater').state, 'STATE_ACTIVE');
    t.equal(r.s.data('Cooler').state, 'STATE_ACTIVE');
    t.equal(r.s.data(DS2408).channels[0].claimedBy.id, 'Heater', 'the channel is still claimed');
  },
);

t.test('a failed batch that moved IO chips to other addresses leaves the chips claimed, read and driven', async (t) => {
  const r = await rig(t);
  const ds2408 = r.s.data(DS2408).address;
  const status = await r.batch('patch', [
    { id: DS2408, type: 'DS2408', data: { address: '29000000000000d2'.padEnd(16, '0') } },
    { id: MCP, type: 'MCP23017', data: { address: 0x21 } },
    { id: 'Heater', type: 'DigitalActuator', data: { storedState: 'STATE_SOMETIMES' } },
  ]);
  t.not(status, 200, 'refused');
  t.equal(r.s.data(DS2408).address, ds2408, 'the DS2408 has its address back');
  t.equal(r.s.data(MCP).address, 0x20, 'the MCP23017 has its address back');
  await r.run(5000);
  t.same(r.offSeen, { heater: 0, cooler: 0 }, 'neither chip was let go: no output went off');
  t.equal(r.s.data(DS2408).connected, true);
  t.equal(r.s.data(MCP).connected, true);
  const devices = (await r.s.get('system/status')).body.hardware.i2c.devices as Array<{ address: string }>;
  t.same(
    devices.map((d) => d.address),
    ['0x20'],
    'the hub polls the chip at 0x20 and nothing at 0x21',
  );
});

t.test('a successful batch that moves an IO chip to another address lets go of the old chip', async (t) => {
  const r = await rig(t);
  t.equal(await r.batch('patch', [{ id: MCP, type: 'MCP23017', data: { address: 0x21 } }]), 200);
  await r.run(1000);
  t.notOk(r.relay(), 'the chip at 0x20 was let go: its relay is off');
  t.equal(r.s.data(MCP).connected, false, 'nothing answers at 0x21');
  t.equal(await r.batch('patch', [{ id: MCP, type: 'MCP23017', data: { address: 0x20 } }]), 200);
  // The hub checks the chip at 0x20 is the block's again before it writes its outputs.
  for (let i = 0; i < 10 && !r.relay(); i++) await r.run(1000);
  t.ok(r.relay(), 'moved back: the relay is on again');
});

t.test('a failed create batch lets go of no chip: undoing a block that never ran touches no hardware', async (t) => {
  const r = await rig(t);
  const status = await r.batch('create', [
    { id: 'Same board', type: 'MCP23017', data: { bus: 'sim', address: 0x20, activeLow: true } },
    { id: 'Broken', type: 'DigitalActuator', data: { storedState: 'STATE_SOMETIMES' } },
  ]);
  t.not(status, 200, 'refused');
  t.notOk(r.s.app.runtime.find('Same board'), 'not created');
  await r.run(3000);
  t.equal(r.offSeen.cooler, 0, 'the relay board at 0x20 was not let go');
  t.equal(r.s.data(MCP).connected, true);
});

t.test(
  'a successful delete batch switches the deleted actuators off, with their IO blocks before or after them',
  async (t) => {
    const r = await rig(t);
    t.equal(await r.batch('delete', [{ id: 'Heater' }, { id: DS2408 }]), 200, 'the heater, then its DS2408');
    await r.run(1000);
    t.equal(r.latch(), 0, 'the heater latch is off');
    t.ok(r.relay(), 'the cooler relay, on another chip, stays on');
    t.equal(await r.batch('delete', [{ id: MCP }, { id: 'Cooler' }]), 200, 'the relay board, then the cooler on it');
    await r.run(1000);
    t.notOk(r.relay(), 'the cooler relay is off');
    const devices = (await r.s.get('system/status')).body.hardware.i2c.devices as unknown[];
    t.same(devices, [], 'the relay board was let go');
  },
);

t.test(
  'a successful delete batch switches the deleted actuators off, with their IO blocks in the other order',
  async (t) => {
    const r = await rig(t);
    t.equal(await r.batch('delete', [{ id: DS2408 }, { id: 'Heater' }]), 200, 'the DS2408, then the heater on it');
    await r.run(1000);
    t.equal(r.latch(), 0, 'the heater latch is off');
    t.ok(r.relay(), 'the cooler relay, on another chip, stays on');
    t.equal(await r.batch('delete', [{ id: 'Cooler' }, { id: MCP }]), 200, 'the cooler, then its relay board');
    await r.run(1000);
    t.notOk(r.relay(), 'the cooler relay is off');
    const status = (await r.s.get('system/status')).body.hardware;
    t.same(status.i2c.devices, [], 'the relay board was let go, not asked for again by the cooler switching off');
  },
);

t.test('REST: a failed blocks/batch/delete leaves the relay of the actuator it named on', async (t) => {
  const r = await rig(t, { via: 'rest' });
  t.equal(await r.batch('delete', [{ id: 'Cooler' }, { id: 'no such block' }]), 404);
  await r.run(5000);
  t.equal(r.offSeen.cooler, 0, 'the relay never went off');
  t.equal(r.s.data('Cooler').state, 'STATE_ACTIVE');
  t.equal(await r.batch('delete', [{ id: 'Cooler' }]), 200);
  await r.run(1000);
  t.notOk(r.relay(), 'deleted for real: its relay is off');
});

t.test('a failed delete batch does not hand the mutex to the other side before its hold time', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  su.create('mutex', 'Mutex', {});
  const mutexed = { mutexed: { mutexId: link('mutex'), extraHoldTime: seconds(300), enabled: true } };
  su.create('heat', 'DigitalActuator', { hwDevice: link('pins'), channel: 1, constraints: mutexed });
  su.create('cool', 'DigitalActuator', { hwDevice: link('pins'), channel: 2, constraints: mutexed });
  su.patch('cool', 'DigitalActuator', { storedState: 'STATE_ACTIVE' });
  await su.run(1000);
  su.patch('cool', 'DigitalActuator', { storedState: 'STATE_INACTIVE' });
  su.patch('heat', 'DigitalActuator', { storedState: 'STATE_ACTIVE' });
  await su.run(1000);
  t.same(su.pins('pins').slice(0, 2), [false, false], 'the cooler is off and holds the mutex for 300 s');
  t.throws(() => su.runtime.deleteMany([{ id: 'cool' }, { id: 'no such block' }]));
  // The brewer asks the heater on again: it is still to wait for the cooler's hold time.
  su.patch('heat', 'DigitalActuator', { storedState: 'STATE_ACTIVE' });
  await su.run(5000);
  t.equal(su.pins('pins')[0], false, 'the heater waits out the hold time');
  t.equal(su.data('cool').constraints.mutexed.hasLock, true, 'the cooler still holds the mutex');
});

t.test('a backup load that cannot be stored touches no output and lets go of no chip', async (t) => {
  const r = await rig(t);
  const backup = r.s.app.runtime.backupSave();
  const persistence = r.s.app.runtime.persistence;
  const replaceBlocks = persistence.replaceBlocks;
  persistence.replaceBlocks = () => {
    throw new Error('disk full');
  };
  await t.rejects(r.s.app.runtime.backupLoad(backup), /disk full/);
  persistence.replaceBlocks = replaceBlocks;
  await r.run(3000);
  t.same(r.offSeen, { heater: 0, cooler: 0 }, 'neither output went off');
  t.equal(r.s.data('Cooler').state, 'STATE_ACTIVE');
});
