// A relay board whose power dips (a loose supply, a brown-out) drops every relay; the driver
// finds the board back in its power-on state. A compressor must not be started again at once: a
// restart against the pressure left from its run is what its minimum off time is there to
// prevent, and the compressor did go off. The outputs that were on and were lost count as
// switched off at the time the loss was found, for the constraints of the actuator on each;
// an output without constraints (a pump) comes back at once. The same on a 1-Wire DS2408 and
// on the I2C expanders (MCP23017, PCF8574), each through its real driver.
import t from 'tap';
import { simApp } from './sim-app.js';

const s = (seconds: number) => ({ __objtype: 'Quantity', unit: 's', value: seconds });

interface Board {
  /** The sim config with the board, named `relays`. */
  sim: Record<string, unknown>;
  /** The board's block: created by discovery (null) or by this body. */
  block: { id: string; type?: string; data?: Record<string, unknown> };
  /** Whether the load on a channel is on, from the emulated board's pins. */
  loadOn(board: any, channel: number): boolean;
  find(app: Awaited<ReturnType<typeof simApp>>): { powerOnReset(): void };
}

const BOARDS: Record<string, Board> = {
  'DS2408 (1-Wire)': {
    sim: {
      ds2482: [
        {
          address: 24,
          variant: 'ds2482-100',
          channels: [[{ name: 'relays', type: 'DS2408', address: '29-0000000000d1' }]],
        },
      ],
    },
    block: { id: 'DS2408 0000000000d1' },
    loadOn: (board, channel) => (board.activeOutputs() & (1 << (channel - 1))) !== 0,
    find: (app) => app.app.hardware.sim!.devices().find((d) => d.spec.name === 'relays')!.model as never,
  },
  'MCP23017 (I2C), active low': {
    sim: { i2cIo: [{ name: 'relays', type: 'MCP23017', address: '0x20', activeLow: true }] },
    block: { id: 'Relays', type: 'MCP23017', data: { bus: 'sim', address: 0x20, activeLow: true } },
    loadOn: (board, channel) => board.loadOn(channel, true),
    find: (app) => app.app.hardware.sim!.i2cIo.find((e) => e.spec.name === 'relays')!.chip as never,
  },
  'PCF8574 (I2C), active low': {
    sim: { i2cIo: [{ name: 'relays', type: 'PCF8574', address: '0x20', activeLow: true }] },
    block: { id: 'Relays', type: 'PCF8574', data: { bus: 'sim', address: 0x20, activeLow: true } },
    loadOn: (board, channel) => board.loadOn(channel, true),
    find: (app) => app.app.hardware.sim!.i2cIo.find((e) => e.spec.name === 'relays')!.chip as never,
  },
};

for (const [name, b] of Object.entries(BOARDS)) {
  t.test(`${name}: after a power dip the compressor waits its minimum off time; a pump does not`, async (t) => {
    const app = await simApp({ sim: { plant: { ambient: 20, initial: { beer: 20, air: 20 } }, ...b.sim } });
    t.teardown(() => app.close());
    await app.post('blocks/discover');
    if (b.block.type) t.equal((await app.post('blocks/create', b.block)).status, 201, 'board block');
    await app.run(2000);
    const board = b.find(app);
    const create = (id: string, channel: number, constraints: Record<string, unknown>) =>
      app.post('blocks/create', {
        id,
        type: 'DigitalActuator',
        data: { 'hwDevice<>': b.block.id, channel, storedState: 'STATE_ACTIVE', constraints },
      });
    t.equal((await create('Compressor', 1, { minOff: { duration: s(300), enabled: true } })).status, 201);
    t.equal((await create('Pump', 2, {})).status, 201);
    await app.run(400_000, 250); // past the minimum off time counted from the start
    t.ok(b.loadOn(board, 1) && b.loadOn(board, 2), 'compressor and pump on');

    board.powerOnReset();
    const dip = app.clock.now();
    const seen: string[] = [];
    for (let i = 0; i < 20; i++) {
      await app.run(250, 250);
      seen.push(`${+b.loadOn(board, 1)}${+b.loadOn(board, 2)}`);
    }
    t.notOk(
      seen.some((o) => o[0] === '1'),
      `the compressor stays off after the dip (compressor, pump: ${seen.join(' ')})`,
    );
    t.ok(b.loadOn(board, 2), 'the pump is back on');
    t.equal(app.data('Compressor').desiredState, 'STATE_ACTIVE', 'the compressor is still wanted on');
    t.equal(app.data('Compressor').state, 'STATE_INACTIVE', 'and reads back off');
    t.ok(app.data('Compressor').constraints.minOff.limiting, 'its minimum off time says why');

    await app.run(dip + 290_000 - app.clock.now(), 1000);
    t.notOk(b.loadOn(board, 1), 'still off 290 s after the dip');
    await app.run(15_000, 250);
    t.ok(b.loadOn(board, 1), 'on again once 300 s have passed since the dip');
    t.ok(b.loadOn(board, 2), 'the pump stayed on');
  });
}

// Control disabled puts every output in its safe state; enabled again, a compressor that was
// on had been off since then, and its minimum off time counts from there as after a dip.
const GPIO_BOARD: Board = {
  sim: { gpio: [1, 2].map((n) => ({ name: `relay ${n}`, line: 20 + n, direction: 'out', activeLow: true })) },
  block: { id: 'GpioPins' },
  loadOn: (gpio, channel) => gpio.physical(20 + channel) === 0,
  find: (app) => app.app.hardware.sim!.gpio as never,
};

for (const [name, b] of Object.entries({ ...BOARDS, 'GPIO lines': GPIO_BOARD })) {
  t.test(`${name}: control disabled and enabled again, the compressor waits its minimum off time`, async (t) => {
    const app = await simApp({ sim: { plant: { ambient: 20, initial: { beer: 20, air: 20 } }, ...b.sim } });
    t.teardown(() => app.close());
    await app.post('blocks/discover');
    if (b.block.type) t.equal((await app.post('blocks/create', b.block)).status, 201, 'board block');
    await app.run(2000);
    const board = b.find(app);
    const create = (id: string, channel: number, constraints: Record<string, unknown>) =>
      app.post('blocks/create', {
        id,
        type: 'DigitalActuator',
        data: { 'hwDevice<>': b.block.id, channel, storedState: 'STATE_ACTIVE', constraints },
      });
    t.equal((await create('Compressor', 1, { minOff: { duration: s(300), enabled: true } })).status, 201);
    t.equal((await create('Pump', 2, {})).status, 201);
    await app.run(400_000, 250);
    t.ok(b.loadOn(board, 1) && b.loadOn(board, 2), 'compressor and pump on');
    const enabled = async (on: boolean) =>
      (await app.app.http.inject({ method: 'PUT', url: '/edge-one/settings/enabled', payload: { enabled: on } }))
        .statusCode;

    t.equal(await enabled(false), 200);
    const off = app.clock.now();
    await app.run(10_000, 250);
    t.notOk(b.loadOn(board, 1) || b.loadOn(board, 2), 'disabled: both off');
    t.equal(await enabled(true), 200);
    const seen: string[] = [];
    for (let i = 0; i < 12; i++) {
      await app.run(250, 250);
      seen.push(`${+b.loadOn(board, 1)}${+b.loadOn(board, 2)}`);
    }
    t.notOk(
      seen.some((o) => o[0] === '1'),
      `the compressor stays off (compressor, pump: ${seen.join(' ')})`,
    );
    t.ok(b.loadOn(board, 2), 'the pump is back on');
    t.ok(app.data('Compressor').constraints.minOff.limiting, 'its minimum off time says why');
    await app.run(off + 290_000 - app.clock.now(), 1000);
    t.notOk(b.loadOn(board, 1), 'still off 290 s after control was disabled');
    await app.run(15_000, 250);
    t.ok(b.loadOn(board, 1), 'on again once 300 s have passed');
  });
}
