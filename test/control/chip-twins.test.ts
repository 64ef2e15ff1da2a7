// Two blocks on one IO chip, as a backup (or an older store) holds them and a load keeps them, in
// the app on the emulated MCP23017 and DS2408 through the real drivers: each drives its own
// channels, and one that goes (deleted, or moved to another chip) leaves the outputs only it drove
// off, never the other's.
import t, { type Test } from 'tap';
import type { SimMcp23017 } from '../../drivers/sim/mcp23017-sim.js';
import { DS2408, MCP, relayRig } from './relay-chips.js';
import { link } from './setup.js';

/** The rig with a second block on the MCP23017 (Relays) and the fan on its channel 2, on. */
async function twins(t: Test) {
  const r = await relayRig(t);
  const backup = r.s.app.runtime.backupSave();
  const nid = Math.max(...backup.blocks.map((b) => b.nid)) + 1;
  const serviceId = backup.blocks[0]!.serviceId;
  backup.blocks.push(
    {
      id: 'Relays',
      nid,
      type: 'MCP23017',
      serviceId,
      data: { bus: 'sim', address: 0x20, activeLow: true },
      meta: {},
    },
    {
      id: 'Fan',
      nid: nid + 1,
      type: 'DigitalActuator',
      serviceId,
      data: { hwDevice: link('Relays'), channel: 2, storedState: 'STATE_ACTIVE' },
      meta: {},
    } as never,
  );
  const result = await r.s.app.runtime.backupLoad(backup);
  t.same(result.failures, []);
  await r.run(3000);
  const mcp = r.s.app.hardware.sim!.i2cIo.find((e) => e.spec.name === 'board')!.chip as SimMcp23017;
  // Active low: the relay is on while pin 2 is an output driven low.
  const fanOn = () => (mcp.iodir & 2) === 0 && (mcp.pins() & 2) === 0;
  return { r, mcp, fanOn };
}

t.test(
  'two blocks on one MCP23017 with an actuator on each: both relays are on, neither undoes the other',
  async (t) => {
    const { r, mcp } = await twins(t);
    t.equal(
      mcp.iodir & 3,
      0,
      'channels 1 (the cooler, on the discovered block) and 2 (the fan, on the other) are outputs',
    );
    t.equal(mcp.pins() & 3, 0, 'both relays are on (active low)');
    t.equal(r.offSeen.cooler, 0, 'the cooler relay never went off');
    t.equal(r.s.data(MCP).address, 0x20);
  },
);

t.test(
  'one of two blocks on an MCP23017 deleted, its actuator left on: its relay goes off, the other stays on',
  async (t) => {
    const { r, fanOn } = await twins(t);
    t.ok(fanOn(), 'the fan relay is on');
    r.offSeen.cooler = 0;
    t.equal((await r.s.post('blocks/delete', { id: 'Relays' })).status, 200);
    await r.run(3000);
    t.notOk(fanOn(), 'the fan relay is off: no block drives it');
    t.equal(r.offSeen.cooler, 0, 'the cooler relay, on the other block, never went off');
    t.equal(r.s.data(MCP).connected, true, 'the chip is still the other block’s');
    t.equal((await r.s.post('blocks/delete', { id: 'Fan' })).status, 200, 'its actuator deleted too');
    await r.run(2000);
    t.notOk(fanOn(), 'still off');
    t.equal(r.offSeen.cooler, 0);
  },
);

t.test(
  'one of two blocks on an MCP23017 moved to another address: the relay it left on the old chip goes off',
  async (t) => {
    const { r, fanOn } = await twins(t);
    t.ok(fanOn(), 'the fan relay is on');
    r.offSeen.cooler = 0;
    const moved = await r.s.post('blocks/patch', { id: 'Relays', type: 'MCP23017', data: { address: 0x21 } });
    t.equal(moved.status, 200);
    await r.run(3000);
    t.notOk(fanOn(), 'the fan relay at 0x20 is off: no block drives it there');
    t.equal(r.offSeen.cooler, 0, 'the cooler relay never went off');
  },
);

/** The rig with a second block on the DS2408 (Latches) and the fan on its channel 2, on. */
async function latchTwins(t: Test) {
  const r = await relayRig(t);
  const backup = r.s.app.runtime.backupSave();
  const nid = Math.max(...backup.blocks.map((b) => b.nid)) + 1;
  const board = backup.blocks.find((b) => b.id === DS2408)!;
  backup.blocks.push(
    { ...board, id: 'Latches', nid } as never,
    {
      id: 'Fan',
      nid: nid + 1,
      type: 'DigitalActuator',
      serviceId: board.serviceId,
      data: { hwDevice: link('Latches'), channel: 2, storedState: 'STATE_ACTIVE' },
      meta: {},
    } as never,
  );
  t.same((await r.s.app.runtime.backupLoad(backup)).failures, []);
  await r.run(3000);
  const model = r.s.app.hardware.sim!.devices().find((d) => d.spec.name === 'latches')!.model as unknown as {
    activeOutputs(): number;
  };
  t.equal(model.activeOutputs() & 3, 3, 'the heater (channel 1) and fan (channel 2) latches are on');
  r.offSeen.heater = 0;
  return { r, model };
}

t.test(
  'one of two blocks on a DS2408 deleted with its actuator on: the latch it drove goes off, the other stays on',
  async (t) => {
    const { r, model } = await latchTwins(t);
    t.equal((await r.s.post('blocks/delete', { id: 'Latches' })).status, 200);
    await r.run(3000);
    t.equal(model.activeOutputs() & 2, 0, 'the fan latch is off: no block drives it');
    t.equal(r.offSeen.heater, 0, 'the heater latch, on the other block, never went off');
  },
);

t.test('one of two blocks on a DS2408 moved to another address: the latch it left on goes off', async (t) => {
  const { r, model } = await latchTwins(t);
  const moved = await r.s.post('blocks/patch', {
    id: 'Latches',
    type: 'DS2408',
    data: { address: '29000000000000d3' },
  });
  t.equal(moved.status, 200);
  await r.run(3000);
  t.equal(model.activeOutputs() & 2, 0, 'the fan latch is off: no block drives it there');
  t.equal(r.offSeen.heater, 0, 'the heater latch never went off');
});

t.test('a backup load without the second block: the outputs only it drove go off, the others stay on', async (t) => {
  const { r, fanOn } = await twins(t);
  const backup = r.s.app.runtime.backupSave();
  backup.blocks = backup.blocks.filter((b) => b.id !== 'Relays');
  r.offSeen.cooler = 0;
  const result = await r.s.app.runtime.backupLoad(backup);
  t.same(result.failures, []);
  await r.run(3000);
  t.notOk(fanOn(), 'the fan relay is off: its block is gone');
  t.ok(r.relay(), 'the cooler relay is on');
  t.equal(r.offSeen.cooler, 0, 'and never went off through the load');
});

t.test('a backup load without the second block on a DS2408: the latch only it drove goes off', async (t) => {
  const { r, model } = await latchTwins(t);
  const backup = r.s.app.runtime.backupSave();
  backup.blocks = backup.blocks.filter((b) => b.id !== 'Latches');
  const result = await r.s.app.runtime.backupLoad(backup);
  t.same(result.failures, []);
  await r.run(3000);
  t.equal(model.activeOutputs() & 2, 0, 'the fan latch is off: its block is gone');
  t.ok(r.latch(), 'the heater latch is on');
  t.equal(r.offSeen.heater, 0, 'and never went off through the load');
});
