// What deleting or moving a chip block, or a MotorValve, does to the hardware, in the app on the
// emulated chips (a DS2408 behind a DS2482, an MCP23017 relay board, a DS2408 valve board), through
// the real drivers, with a manual clock. A deleted valve stops its motor (both drive latches off),
// with its board deleted in the same batch before or after it; so does one moved to another start
// channel or unlinked, for the motor it drove. A block moved away from its chip
// and back in one batch leaves the chip's outputs as they were, never off for a poll; two boards
// swapping addresses hand each chip to the other's actuators before the next poll. One block
// per I2C chip: a second block on a bus and address another block has is refused, naming it; a
// backup (or an older store) that already holds two loads both, and deleting one leaves the chip
// to the other; the same for a DS2408, where the unused block never switches the other's outputs
// off. Discovery proposes no block for a chip a block already names. A chip handed to another
// block in one batch is never made safe between (no write leaves a relay off), and two valves
// swapping start channels keep both motors running.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { SimMcp23017 } from '../../drivers/sim/mcp23017-sim.js';
import { simApp } from '../hardware/sim-app.js';
import { DS2408, MCP, relayRig, SIM } from './relay-chips.js';
import { link } from './setup.js';

const BOARD = 'DS2408 0000000000d2';

/** A DS2408 valve board and a MotorValve on start channel 1 opening it, mid-travel. */
async function valveRig(t: Test) {
  const s = await simApp({
    sim: {
      ...SIM,
      ds2482: [
        {
          address: 24,
          variant: 'ds2482-800',
          channels: [
            [
              {
                name: 'valves',
                type: 'DS2408',
                address: '29-0000000000d2',
                valves: { '1': { travelSeconds: 10 }, '5': { travelSeconds: 10 } },
              },
            ],
          ],
        },
      ],
      i2cIo: [],
    },
  });
  t.teardown(() => s.close());
  await s.post('blocks/discover');
  await s.run(2000);
  const mode = await s.post('blocks/patch', { id: BOARD, type: 'DS2408', data: { connectMode: 'CONNECT_VALVE' } });
  t.equal(mode.status, 200);
  const created = await s.post('blocks/create', {
    id: 'Valve',
    type: 'MotorValve',
    data: { 'hwDevice<>': BOARD, channel: 1, storedState: 'STATE_ACTIVE' },
  });
  t.equal(created.status, 201);
  await s.run(3000);
  const model = s.app.hardware.sim!.valves().find((v) => v.valve.start === 1)!;
  t.equal(s.data('Valve').valveState, 'VALVE_OPENING', 'mid-travel');
  t.equal(model.device.activeOutputs() & 0xc, 0b1000, 'opening: the +3 latch drives');
  return { s, model };
}

t.test('deleting a MotorValve whose motor runs stops it: both drive latches off', async (t) => {
  const { s, model } = await valveRig(t);
  t.equal((await s.post('blocks/delete', { id: 'Valve' })).status, 200);
  await s.run(1000);
  const at = model.valve.position;
  await s.run(3000);
  t.equal(model.device.activeOutputs() & 0xc, 0, 'both drive latches are off');
  t.equal(model.valve.position, at, 'the motor stopped: the valve stays where it was');
  t.ok(at > 0 && at < 1, `part open (${at.toFixed(2)})`);
  t.equal(s.data(BOARD).channels[0].claimedBy.id, null, 'its channel is let go');
});

t.test('a running MotorValve moved to the other start channel, then unlinked, stops the motor it drove', async (t) => {
  const { s, model } = await valveRig(t);
  const other = s.app.hardware.sim!.valves().find((v) => v.valve.start === 5)!;
  t.equal((await s.post('blocks/patch', { id: 'Valve', type: 'MotorValve', data: { channel: 5 } })).status, 200);
  await s.run(1000);
  const at = model.valve.position;
  await s.run(3000);
  t.equal(model.device.activeOutputs() & 0xc, 0, 'the bridge of start channel 1 is released');
  t.equal(model.valve.position, at, 'that valve stopped where it was');
  t.ok(other.valve.position > 0, 'the valve at start channel 5 opens now');
  t.equal(
    (await s.post('blocks/patch', { id: 'Valve', type: 'MotorValve', data: { 'hwDevice<>': null } })).status,
    200,
  );
  await s.run(1000);
  const there = other.valve.position;
  await s.run(3000);
  t.equal(other.device.activeOutputs() & 0xc0, 0, 'unlinked: the bridge of start channel 5 is released');
  t.equal(other.valve.position, there, 'and that valve stopped');
  t.ok(there > 0 && there < 1, `part open (${there.toFixed(2)})`);
});

for (const order of [
  ['Valve', BOARD],
  [BOARD, 'Valve'],
])
  t.test(
    `a delete batch of a running MotorValve and its board (${order.join(', then ')}) stops the motor`,
    async (t) => {
      const { s, model } = await valveRig(t);
      t.equal(
        (
          await s.post(
            'blocks/batch/delete',
            order.map((id) => ({ id })),
          )
        ).status,
        200,
      );
      await s.run(1000);
      const at = model.valve.position;
      await s.run(3000);
      t.equal(model.device.activeOutputs() & 0xc, 0, 'both drive latches are off');
      t.equal(model.valve.position, at, 'the motor stopped');
    },
  );

t.test('a chip block moved away and back in one batch leaves its outputs on, not off for a poll', async (t) => {
  const r = await relayRig(t);
  const ds2408 = r.s.data(DS2408).address;
  const other = '29000000000000d2';
  const status = await r.s.post('blocks/batch/patch', [
    { id: MCP, type: 'MCP23017', data: { address: 0x21 } },
    { id: DS2408, type: 'DS2408', data: { address: other } },
    { id: MCP, type: 'MCP23017', data: { address: 0x20 } },
    { id: DS2408, type: 'DS2408', data: { address: ds2408 } },
  ]);
  t.equal(status.status, 200, JSON.stringify(status.body));
  await r.run(5000);
  t.same(r.offSeen, { heater: 0, cooler: 0 }, 'neither output went off');
  t.equal(r.s.data(MCP).connected, true);
  t.equal(r.s.data(DS2408).connected, true);
});

t.test('a second block on the bus and address of an I2C chip another block has is refused, naming it', async (t) => {
  const r = await relayRig(t);
  const twin = await r.s.post('blocks/create', { id: 'Relays', type: 'MCP23017', data: { bus: 'sim', address: 0x20 } });
  t.equal(twin.status, 422);
  t.match(twin.body.message, `is already used by block '${MCP}'`);
  t.notOk(r.s.app.runtime.find('Relays'), 'not created');
  const other = await r.s.post('blocks/create', { id: 'Spare', type: 'PCF8574', data: { bus: 'sim', address: 0x27 } });
  t.equal(other.status, 201, 'another address is free');
  const moved = await r.s.post('blocks/patch', { id: 'Spare', type: 'PCF8574', data: { address: 0x20 } });
  t.equal(moved.status, 422, 'moving onto the chip is refused too, whatever the chip type');
  t.match(moved.body.message, `'${MCP}'`);
  t.equal(
    (await r.s.post('blocks/patch', { id: MCP, type: 'MCP23017', data: { bus: 'sim', address: 0x20 } })).status,
    200,
    'the holder may name its own chip again',
  );
  await r.run(2000);
  t.same(r.offSeen, { heater: 0, cooler: 0 });
});

t.test(
  'a backup holding two blocks on one I2C chip loads both; deleting one leaves the chip to the other',
  async (t) => {
    const r = await relayRig(t);
    const backup = r.s.app.runtime.backupSave();
    const nid = Math.max(...backup.blocks.map((b) => b.nid)) + 1;
    // A hand-made block beside the discovered one, with the cooler on it.
    backup.blocks.push({
      id: 'Relays',
      nid,
      type: 'MCP23017',
      serviceId: backup.blocks[0]!.serviceId,
      data: { bus: 'sim', address: 0x20, activeLow: true },
      meta: {},
    } as never);
    const cooler = backup.blocks.find((b) => b.id === 'Cooler')! as unknown as { data: Record<string, unknown> };
    cooler.data.hwDevice = link('Relays');
    const result = await r.s.app.runtime.backupLoad(backup);
    t.same(result.failures, [], 'nothing failed');
    t.equal(r.s.data('Relays').address, 0x20, 'the second block keeps its address');
    t.equal(r.s.data(MCP).address, 0x20);
    await r.run(3000);
    t.ok(r.relay(), 'the cooler relay, through the second block, is on');
    r.offSeen.cooler = 0;
    t.equal((await r.s.post('blocks/delete', { id: MCP })).status, 200, 'the unused block goes');
    await r.run(5000);
    t.equal(r.offSeen.cooler, 0, 'the chip was not let go: the relay never went off');
    t.equal(r.s.data('Relays').connected, true);
    t.equal((await r.s.post('blocks/discover')).body.length ?? 0, 0, 'discovery proposes no second block for the chip');
    t.notOk(r.s.app.runtime.find(MCP), 'no block for 0x20 made again');
  },
);

t.test('a store holding two blocks on one I2C chip loads both at a restart, and both keep the chip', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-twins-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await simApp({ sim: SIM, dataDir });
  await first.post('blocks/discover');
  const backup = first.app.runtime.backupSave();
  const nid = Math.max(...backup.blocks.map((b) => b.nid)) + 1;
  const twin = { bus: 'sim', address: 0x20, activeLow: true };
  backup.blocks.push({
    id: 'Relays',
    nid,
    type: 'MCP23017',
    serviceId: backup.blocks[0]!.serviceId,
    data: twin,
    meta: {},
  } as never);
  t.same((await first.app.runtime.backupLoad(backup)).failures, []);
  await first.close();

  const s = await simApp({ sim: SIM, dataDir });
  t.teardown(() => s.close());
  t.equal(s.data('Relays').address, 0x20, 'the hand-made block is back with its address');
  t.equal(s.data(MCP).address, 0x20, 'and the discovered one');
  const cooler = { hwDevice: link('Relays'), channel: 1, storedState: 'STATE_ACTIVE' };
  t.equal((await s.post('blocks/create', { id: 'Cooler', type: 'DigitalActuator', data: cooler })).status, 201);
  const patched = await s.post('blocks/patch', { id: 'Relays', type: 'MCP23017', data: { activeLow: true } });
  t.equal(patched.status, 200, 'a block on a shared chip can still be changed');
  await s.run(3000);
  const mcp = s.app.hardware.sim!.i2cIo.find((e) => e.spec.name === 'board')!.chip as SimMcp23017;
  const relay = () => (mcp.iodir & 1) === 0 && (mcp.pins() & 1) === 0;
  t.ok(relay(), 'the cooler relay is on');
  t.equal((await s.post('blocks/delete', { id: MCP })).status, 200);
  let off = 0;
  for (let at = 0; at < 3000; at += 10) {
    await s.run(10, 10);
    if (!relay()) off++;
  }
  t.equal(off, 0, 'deleting the other block did not let go of the chip');
});

t.test('two relay boards swapping addresses in one batch: the outputs on before and after stay on', async (t) => {
  const other = { name: 'other', type: 'MCP23017', address: '0x21', activeLow: true };
  const s = await simApp({ sim: { ...SIM, i2cIo: [...SIM.i2cIo, other] } });
  t.teardown(() => s.close());
  await s.post('blocks/discover');
  const OTHER = 'MCP23017 0x21';
  for (const id of [MCP, OTHER])
    t.equal((await s.post('blocks/patch', { id, type: 'MCP23017', data: { activeLow: true } })).status, 200);
  for (const [id, board] of [
    ['Cooler', MCP],
    ['Fan', OTHER],
  ] as const) {
    const data = { hwDevice: link(board), channel: 1, storedState: 'STATE_ACTIVE' };
    t.equal((await s.post('blocks/create', { id, type: 'DigitalActuator', data })).status, 201);
  }
  await s.run(4000);
  const chips = ['board', 'other'].map(
    (name) => s.app.hardware.sim!.i2cIo.find((e) => e.spec.name === name)!.chip as SimMcp23017,
  );
  const on = (chip: SimMcp23017) => (chip.iodir & 1) === 0 && (chip.pins() & 1) === 0;
  t.ok(chips.every(on), 'the relays at 0x20 (the cooler) and 0x21 (the fan) are on');
  const swap = await s.post('blocks/batch/patch', [
    { id: MCP, type: 'MCP23017', data: { address: 0x22 } },
    { id: OTHER, type: 'MCP23017', data: { address: 0x20 } },
    { id: MCP, type: 'MCP23017', data: { address: 0x21 } },
  ]);
  t.equal(swap.status, 200, JSON.stringify(swap.body));
  const offSeen = [0, 0];
  for (let at = 0; at < 3000; at += 10) {
    await s.run(10, 10);
    chips.forEach((chip, i) => {
      if (!on(chip)) offSeen[i]!++;
    });
  }
  t.same(offSeen, [0, 0], 'neither relay went off: the fan drives 0x20 now, the cooler 0x21');
  t.equal(s.data(OTHER).address, 0x20);
  t.equal(s.data('Fan').state, 'STATE_ACTIVE');
  t.equal(s.data('Cooler').state, 'STATE_ACTIVE');
});

t.test(
  'a chip handed to another block in one batch is never made safe after it: no write turns a relay on before and after off',
  async (t) => {
    const other = { name: 'other', type: 'MCP23017', address: '0x21', activeLow: true };
    const s = await simApp({ sim: { ...SIM, i2cIo: [...SIM.i2cIo, other] } });
    t.teardown(() => s.close());
    await s.post('blocks/discover');
    const OTHER = 'MCP23017 0x21';
    for (const id of [MCP, OTHER])
      t.equal((await s.post('blocks/patch', { id, type: 'MCP23017', data: { activeLow: true } })).status, 200);
    for (const [id, board] of [
      ['Cooler', MCP],
      ['Fan', OTHER],
    ] as const) {
      const data = { hwDevice: link(board), channel: 1, storedState: 'STATE_ACTIVE' };
      t.equal((await s.post('blocks/create', { id, type: 'DigitalActuator', data })).status, 201);
    }
    await s.run(4000);
    const chips = ['board', 'other'].map(
      (name) => s.app.hardware.sim!.i2cIo.find((e) => e.spec.name === name)!.chip as SimMcp23017,
    );
    const on = (chip: SimMcp23017) => (chip.iodir & 1) === 0 && (chip.pins() & 1) === 0;
    t.ok(chips.every(on), 'both relays are on');
    // Every register write each chip takes from here, and the ones after which its relay is off.
    const offAfter = [0, 0];
    chips.forEach((chip, i) => {
      const write = chip.writeByte.bind(chip);
      chip.writeByte = (command: number, byte: number) => {
        write(command, byte);
        if (!on(chip)) offAfter[i]!++;
      };
    });
    const swap = await s.post('blocks/batch/patch', [
      { id: MCP, type: 'MCP23017', data: { address: 0x22 } },
      { id: OTHER, type: 'MCP23017', data: { address: 0x20 } },
      { id: MCP, type: 'MCP23017', data: { address: 0x21 } },
    ]);
    t.equal(swap.status, 200);
    await s.run(3000);
    t.same(offAfter, [0, 0], 'no write to either chip switched its relay off, even for a moment');
    t.ok(chips.every(on), 'both relays are on: the fan drives 0x20 now, the cooler 0x21');
  },
);

t.test('a chip handed to a block none of whose actuators drives an output: that output goes off', async (t) => {
  const other = { name: 'other', type: 'MCP23017', address: '0x21', activeLow: true };
  const s = await simApp({ sim: { ...SIM, i2cIo: [...SIM.i2cIo, other] } });
  t.teardown(() => s.close());
  await s.post('blocks/discover');
  const OTHER = 'MCP23017 0x21';
  for (const id of [MCP, OTHER])
    t.equal((await s.post('blocks/patch', { id, type: 'MCP23017', data: { activeLow: true } })).status, 200);
  const data = { hwDevice: link(MCP), channel: 1, storedState: 'STATE_ACTIVE' };
  t.equal((await s.post('blocks/create', { id: 'Cooler', type: 'DigitalActuator', data })).status, 201);
  await s.run(4000);
  const chip = (name: string) => s.app.hardware.sim!.i2cIo.find((e) => e.spec.name === name)!.chip as SimMcp23017;
  const on = (c: SimMcp23017) => (c.iodir & 1) === 0 && (c.pins() & 1) === 0;
  t.ok(on(chip('board')), 'the cooler relay at 0x20 is on');
  const swap = await s.post('blocks/batch/patch', [
    { id: MCP, type: 'MCP23017', data: { address: 0x22 } },
    { id: OTHER, type: 'MCP23017', data: { address: 0x20 } },
    { id: MCP, type: 'MCP23017', data: { address: 0x21 } },
  ]);
  t.equal(swap.status, 200);
  await s.run(3000);
  t.notOk(on(chip('board')), '0x20 went to a block with no actuator: its relay is off');
  t.ok(on(chip('other')), 'the cooler drives 0x21 now');
});

t.test('two running MotorValves swapping start channels in one batch: neither motor stops', async (t) => {
  const { s, model } = await valveRig(t);
  const other = s.app.hardware.sim!.valves().find((v) => v.valve.start === 5)!;
  const created = await s.post('blocks/create', {
    id: 'Valve 2',
    type: 'MotorValve',
    data: { 'hwDevice<>': BOARD, channel: 5, storedState: 'STATE_ACTIVE' },
  });
  t.equal(created.status, 201);
  await s.run(1000);
  t.equal(other.valve.direction(other.device.activeOutputs()), 1, 'the valve at start channel 5 opens');
  const swap = await s.post('blocks/batch/patch', [
    { id: 'Valve', type: 'MotorValve', data: { channel: 5 } },
    { id: 'Valve 2', type: 'MotorValve', data: { channel: 1 } },
  ]);
  t.equal(swap.status, 200, JSON.stringify(swap.body?.message));
  const stopped = [0, 0];
  for (let at = 0; at < 3000; at += 10) {
    await s.run(10, 10);
    [model, other].forEach((m, i) => {
      if (m.valve.position < 1 && m.valve.direction(m.device.activeOutputs()) !== 1) stopped[i]!++;
    });
  }
  t.same(stopped, [0, 0], 'both motors kept opening: each valve drives the other bridge now');
  t.equal(s.data('Valve').channel, 5);
  t.equal(s.data('Valve 2').channel, 1);
});

t.test(
  'a backup holding two blocks on one DS2408 loads both; the unused one never switches the heater off',
  async (t) => {
    const r = await relayRig(t);
    const backup = r.s.app.runtime.backupSave();
    const nid = Math.max(...backup.blocks.map((b) => b.nid)) + 1;
    const board = backup.blocks.find((b) => b.id === DS2408)!;
    backup.blocks.push({ ...board, id: 'Latches', nid } as never);
    const result = await r.s.app.runtime.backupLoad(backup);
    t.same(result.failures, [], 'nothing failed');
    t.match(result.warnings, [/1-Wire module 29\w+ is named by block 'DS2408 0000000000d1' too/]);
    t.equal(r.s.data('Latches').address, r.s.data(DS2408).address, 'the second block keeps the address');
    await r.run(3000);
    t.equal(r.offSeen.heater, 0, 'the heater latch stayed on through the load');
    r.offSeen.heater = 0;
    t.equal((await r.s.post('blocks/delete', { id: 'Latches' })).status, 200, 'the unused block goes');
    await r.run(3000);
    t.equal(r.offSeen.heater, 0, 'the module was not let go: the heater never went off');
  },
);
