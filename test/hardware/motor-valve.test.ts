// MotorValve on an emulated DS2408 valve board (drivers/sim/motor-valve.ts): the block drives
// the H-bridge latches through the real 1-Wire stack and reads the end switches back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { parseSimConfig } from '../../drivers/sim/sim-config.js';
import { simApp, type SimApp } from './sim-app.js';

const SIM = {
  plant: { ambient: 20, initial: { beer: 20, air: 20 } },
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
            valves: { '1': { travelSeconds: 6 }, '5': { travelSeconds: 10 } },
          },
        ],
      ],
    },
  ],
};
const BOARD = 'DS2408 0000000000d2';

async function board(): Promise<SimApp> {
  const s = await simApp({ sim: SIM });
  await s.post('blocks/discover');
  await s.run(2000);
  await s.post('blocks/patch', { id: BOARD, type: 'DS2408', data: { connectMode: 'CONNECT_VALVE' } });
  return s;
}

const valve = (id: string, channel: number, state: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'MotorValve',
  data: { 'hwDevice<>': BOARD, channel, storedState: state, ...extra },
});

t.test('MotorValve opens and closes the valve and reads its end switches back', async (t) => {
  const s = await board();
  t.teardown(() => s.close());
  const sim = s.app.hardware.sim!;
  const model = (start: number) => sim.valves().find((v) => v.valve.start === start)!;
  t.same(
    s.data(BOARD).channels.map((c: { id: number }) => c.id),
    [1, 5],
    'valve mode: start channels 1 and 5',
  );
  t.equal((await s.post('blocks/create', valve('Valve B', 1, 'STATE_INACTIVE'))).status, 201);
  await s.run(3000);
  t.equal(s.data('Valve B').valveState, 'VALVE_CLOSED', 'closed: the closed switch reads active');
  t.equal(s.data('Valve B').state, 'STATE_INACTIVE');
  t.equal(model(1).device.activeOutputs() & 0xf, 0b0100, 'closing drive held: +2 latch on');

  await s.post('blocks/patch', { id: 'Valve B', type: 'MotorValve', data: { storedState: 'STATE_ACTIVE' } });
  await s.run(2000);
  t.equal(s.data('Valve B').valveState, 'VALVE_OPENING');
  t.equal(s.data('Valve B').state, 'STATE_UNKNOWN', 'moving: neither open nor closed');
  t.ok(
    model(1).valve.position > 0.2 && model(1).valve.position < 0.6,
    `part open (${model(1).valve.position.toFixed(2)})`,
  );
  t.equal(model(1).device.activeOutputs() & 0xf, 0b1000, 'opening drive: +3 latch on, +2 off');
  await s.run(6000);
  t.equal(model(1).valve.position, 1);
  t.equal(s.data('Valve B').valveState, 'VALVE_OPEN');
  t.equal(s.data('Valve B').state, 'STATE_ACTIVE');
  t.equal(model(1).device.activeOutputs() & 0xf, 0b1000, 'the drive stays on at the end stop');

  // The second valve, with a delayedOn constraint; the first one is untouched by it.
  await s.post(
    'blocks/create',
    valve('Valve A', 5, 'STATE_ACTIVE', {
      constraints: { delayedOn: { duration: { __objtype: 'Quantity', value: 5, unit: 's' }, enabled: true } },
    }),
  );
  await s.run(3000);
  t.equal(model(5).valve.position, 0, 'delayedOn holds the valve closed');
  t.equal(s.data('Valve A').constraints.delayedOn.limiting, true);
  await s.run(14_000);
  t.equal(s.data('Valve A').valveState, 'VALVE_OPEN', 'then it opens (10 s stroke)');
  t.equal(s.data('Valve B').valveState, 'VALVE_OPEN');

  await s.post('blocks/patch', { id: 'Valve B', type: 'MotorValve', data: { storedState: 'STATE_INACTIVE' } });
  await s.run(2000);
  t.equal(s.data('Valve B').valveState, 'VALVE_CLOSING');
  await s.run(6000);
  t.equal(s.data('Valve B').valveState, 'VALVE_CLOSED');
  t.equal(model(1).valve.position, 0);
});

t.test('MotorValve needs a start channel of a DS2408 in valve mode', async (t) => {
  const s = await simApp({ sim: SIM });
  t.teardown(() => s.close());
  await s.post('blocks/discover');
  await s.run(2000);
  await s.post('blocks/create', valve('Valve', 1, 'STATE_ACTIVE'));
  await s.run(2000);
  t.equal(s.data('Valve').valveState, 'VALVE_OPENING', 'actuator mode still has channel 1');
  await s.post('blocks/patch', { id: 'Valve', type: 'MotorValve', data: { channel: 3 } });
  await s.post('blocks/patch', { id: BOARD, type: 'DS2408', data: { connectMode: 'CONNECT_VALVE' } });
  await s.run(2000);
  t.equal(s.data('Valve').valveState, null, 'channel 3 is no valve start channel: nothing driven');
  t.equal(s.data('Valve').state, null);
  const bad = await s.post('blocks/create', {
    id: 'x',
    type: 'MotorValve',
    data: { 'hwDevice<>': 'Valve', channel: 1 },
  });
  t.equal(bad.status, 422, 'the link must be a DS2408');
});

t.test('sim config: valves only on a DS2408, at start channel 1 or 5', async (t) => {
  const dev = (extra: Record<string, unknown>) => ({
    ds2482: [{ address: 24, variant: 'ds2482-100', channels: [[{ name: 'v', type: 'DS2408', ...extra }]] }],
  });
  t.same(parseSimConfig(dev({ valves: { '5': {} } })).ds2482[0]!.channels[0]![0]!.valves, [
    { start: 5, travelSeconds: 6 },
  ]);
  t.throws(() => parseSimConfig(dev({ valves: { '3': {} } })), {
    name: 'SimConfigError',
    message: /valve starts at channel 1 or 5/,
  });
  t.throws(() => parseSimConfig(dev({ valves: { '1': { travelSeconds: 0 } } })), {
    name: 'SimConfigError',
    message: /travelSeconds/,
  });
  t.throws(() => parseSimConfig(dev({ type: 'DS2413', valves: { '1': {} } })), {
    name: 'SimConfigError',
    message: /only for a DS2408/,
  });
});

t.test('after a restart an open valve with a delayedOn constraint stays open: it never drives closed', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-valve-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const delayedOn = { duration: { __objtype: 'Quantity', value: 5, unit: 's' }, enabled: true };
  const first = await simApp({ sim: SIM, dataDir });
  await first.post('blocks/discover');
  await first.run(2000);
  await first.post('blocks/patch', { id: BOARD, type: 'DS2408', data: { connectMode: 'CONNECT_VALVE' } });
  t.equal(
    (await first.post('blocks/create', valve('Valve B', 1, 'STATE_ACTIVE', { constraints: { delayedOn } }))).status,
    201,
  );
  await first.run(15_000);
  t.equal(first.data('Valve B').valveState, 'VALVE_OPEN', 'open before the restart');
  await first.close();

  const s = await simApp({ sim: SIM, dataDir });
  t.teardown(() => s.close());
  const model = s.app.hardware.sim!.valves().find((v) => v.valve.start === 1)!;
  // The emulation starts closed; the valve on the machine stayed open while the service was down.
  model.valve.position = 1;
  let closingSeen = 0;
  for (let at = 0; at < 10_000; at += 100) {
    await s.run(100);
    if (model.valve.direction(model.device.activeOutputs()) < 0) closingSeen++;
  }
  t.equal(closingSeen, 0, 'the closing drive never came on');
  t.equal(model.valve.position, 1, 'still fully open');
  t.equal(s.data('Valve B').valveState, 'VALVE_OPEN');
});

// A valve that has held its position for long, told to move just before a stop (or while control
// is off: no update ran since): after the restart it moves at once, as it would have running.
// Its minOn (open) or minOff (closed) counts from when it got there, not from the start.
async function firstMoveAfterRestart(t: Test, from: 'STATE_ACTIVE' | 'STATE_INACTIVE'): Promise<number> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-valve-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const duration = { __objtype: 'Quantity', value: 5, unit: 's' };
  const constraints = { minOn: { duration, enabled: true }, minOff: { duration, enabled: true } };
  const first = await simApp({ sim: SIM, dataDir });
  await first.post('blocks/discover');
  await first.run(2000);
  await first.post('blocks/patch', { id: BOARD, type: 'DS2408', data: { connectMode: 'CONNECT_VALVE' } });
  t.equal((await first.post('blocks/create', valve('Valve B', 1, from, { constraints }))).status, 201);
  await first.run(15_000);
  const held = from === 'STATE_ACTIVE' ? 'VALVE_OPEN' : 'VALVE_CLOSED';
  t.equal(first.data('Valve B').valveState, held, 'held for 15 s, longer than minOn and minOff');
  first.app.runtime.paused = true;
  const to = from === 'STATE_ACTIVE' ? 'STATE_INACTIVE' : 'STATE_ACTIVE';
  await first.post('blocks/patch', { id: 'Valve B', type: 'MotorValve', data: { storedState: to } });
  await first.close();

  const s = await simApp({ sim: SIM, dataDir });
  t.teardown(() => s.close());
  const model = s.app.hardware.sim!.valves().find((v) => v.valve.start === 1)!;
  // The emulation starts closed; the valve on the machine stayed where it was.
  model.valve.position = from === 'STATE_ACTIVE' ? 1 : 0;
  const toward = from === 'STATE_ACTIVE' ? -1 : 1;
  for (let at = 0; at < 10_000; at += 100) {
    await s.run(100);
    if (model.valve.direction(model.device.activeOutputs()) === toward) return at;
  }
  return -1;
}

t.test('after a restart an open valve told to close before the stop closes at once: minOn is long met', async (t) => {
  const at = await firstMoveAfterRestart(t, 'STATE_ACTIVE');
  t.ok(at >= 0 && at < 2000, `the closing drive came on within 2 s of the start (at ${at} ms)`);
});

t.test('after a restart a closed valve told to open before the stop opens at once: minOff is long met', async (t) => {
  const at = await firstMoveAfterRestart(t, 'STATE_INACTIVE');
  t.ok(at >= 0 && at < 2000, `the opening drive came on within 2 s of the start (at ${at} ms)`);
});
