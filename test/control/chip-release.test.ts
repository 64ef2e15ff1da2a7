// What deleting a MotorValve does to the hardware, in the app on an emulated DS2408 valve board
// behind a DS2482, through the real drivers, with a manual clock: a deleted valve stops its motor
// (both drive latches off), with its board deleted in the same batch before or after it.
import t, { type Test } from 'tap';
import { simApp } from '../hardware/sim-app.js';
import { SIM } from './relay-chips.js';

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
            [{ name: 'valves', type: 'DS2408', address: '29-0000000000d2', valves: { '1': { travelSeconds: 10 } } }],
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
