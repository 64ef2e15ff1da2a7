// A relay board whose power dips (a loose supply, a brown-out) drops every relay; the driver
// finds the board back in its power-on state. A compressor must not be started again at once: a
// restart against the pressure left from its run is what its minimum off time is there to
// prevent, and the compressor did go off. The outputs that were on and were lost count as
// switched off at the time the loss was found, for the constraints of the actuator on each;
// an output without constraints (a pump) comes back at once.
import t from 'tap';
import { simApp } from './sim-app.js';

const SIM = {
  plant: { ambient: 20, initial: { beer: 20, air: 20 } },
  ds2482: [
    {
      address: 24,
      variant: 'ds2482-100',
      channels: [[{ name: 'relays', type: 'DS2408', address: '29-0000000000d1' }]],
    },
  ],
};
const RELAYS = 'DS2408 0000000000d1';
const s = (seconds: number) => ({ __objtype: 'Quantity', unit: 's', value: seconds });

t.test('after a relay board power dip the compressor waits its minimum off time; a pump does not', async (t) => {
  const app = await simApp({ sim: SIM });
  t.teardown(() => app.close());
  await app.post('blocks/discover');
  await app.run(2000);
  const sim = app.app.hardware.sim!;
  const board = sim.devices().find((d) => d.spec.name === 'relays')!.model as unknown as {
    activeOutputs(): number;
    powerOnReset(): void;
  };
  const create = (id: string, channel: number, constraints: Record<string, unknown>) =>
    app.post('blocks/create', {
      id,
      type: 'DigitalActuator',
      data: { 'hwDevice<>': RELAYS, channel, storedState: 'STATE_ACTIVE', constraints },
    });
  t.equal((await create('Compressor', 1, { minOff: { duration: s(300), enabled: true } })).status, 201);
  t.equal((await create('Pump', 2, {})).status, 201);
  await app.run(400_000, 250); // past the minimum off time counted from the start
  t.equal(board.activeOutputs(), 0b11, 'compressor and pump on');

  board.powerOnReset();
  const dip = app.clock.now();
  const seen: number[] = [];
  for (let i = 0; i < 20; i++) {
    await app.run(250, 250);
    seen.push(board.activeOutputs());
  }
  t.notOk(
    seen.some((o) => o & 0b1),
    `the compressor stays off after the dip (outputs seen: ${seen.map((o) => o.toString(2)).join(' ')})`,
  );
  t.equal(seen.at(-1)! & 0b10, 0b10, 'the pump is back on');
  t.equal(app.data('Compressor').desiredState, 'STATE_ACTIVE', 'the compressor is still wanted on');
  t.equal(app.data('Compressor').state, 'STATE_INACTIVE', 'and reads back off');
  t.ok(app.data('Compressor').constraints.minOff.limiting, 'its minimum off time says why');

  await app.run(dip + 290_000 - app.clock.now(), 1000);
  t.equal(board.activeOutputs() & 0b1, 0, 'still off 290 s after the dip');
  await app.run(15_000, 250);
  t.equal(board.activeOutputs() & 0b1, 0b1, 'on again once 300 s have passed since the dip');
});
