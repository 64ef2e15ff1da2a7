// The power dips of relay-power-dip.test.ts, in the two ways a real one comes: the board is off
// the bus for a few seconds (its reads fail) before it is back in its power-on state, and another
// channel of the board changes between the dip and the next poll (a heater's PWM toggling). In
// both the compressor that was on must wait its minimum off time, as after a dip found at once.
import t from 'tap';
import {
  BOARDS,
  type Board,
  boardApp,
  emulated as emulatedBoard,
  i2cChip,
  seconds as s,
  type SimAppOf,
} from './relay-boards.js';
import { simApp } from './sim-app.js';

async function setUp(b: Board) {
  const { app, create } = await boardApp(b);
  await create('Compressor', 1, { minOff: { duration: s(300), enabled: true } });
  await create('Pump', 2, {});
  await create('Heater', 3, {}, 'STATE_INACTIVE');
  await app.run(400_000, 250);
  return app;
}

/** Compressor (channel 1) over `steps` quarter seconds, as 0/1. */
async function watch(app: SimAppOf, b: Board, board: unknown, steps: number) {
  const seen: string[] = [];
  for (let i = 0; i < steps; i++) {
    await app.run(250, 250);
    seen.push(String(+b.loadOn(board, 1)));
  }
  return seen.join('');
}

for (const [name, b] of Object.entries(BOARDS)) {
  t.test(`${name}: off the bus for a few seconds, back in its power-on state`, async (t) => {
    const app = await setUp(b);
    t.teardown(() => app.close());
    const chip = b.find(app);
    const model = emulated(app, name);
    t.ok(b.loadOn(model, 1) && b.loadOn(model, 2), 'compressor and pump on');
    chip.off();
    await app.run(3000, 250);
    chip.on();
    const seen = await watch(app, b, model, 20);
    t.notOk(seen.includes('1'), `the compressor stays off (${seen})`);
    t.ok(b.loadOn(model, 2), 'the pump is back on');
    t.ok(app.data('Compressor').constraints.minOff.limiting, 'its minimum off time says why');
  });

  t.test(`${name}: another channel changes between the dip and the next poll`, async (t) => {
    const app = await setUp(b);
    t.teardown(() => app.close());
    const chip = b.find(app);
    const model = emulated(app, name);
    t.ok(b.loadOn(model, 1), 'compressor on');
    chip.powerOnReset();
    t.equal(
      (await app.post('blocks/patch', { id: 'Heater', type: 'DigitalActuator', data: { storedState: 'STATE_ACTIVE' } }))
        .status,
      200,
      'heater switched on',
    );
    const seen = await watch(app, b, model, 20);
    t.notOk(seen.includes('1'), `the compressor stays off (${seen})`);
    t.ok(b.loadOn(model, 3), 'the heater is on');
    t.ok(app.data('Compressor').constraints.minOff.limiting, 'its minimum off time says why');
  });
}

function emulated(app: SimAppOf, name: string): unknown {
  return name in BOARDS ? emulatedBoard(app, BOARDS[name]!) : app.app.hardware.sim!.i2cIo[0]!.chip;
}

for (const [name, b] of Object.entries(BOARDS)) {
  // From +600 ms the pump asks again between two resets before the compressor has heard of them.
  for (const phase of [0, 600])
    t.test(
      `${name}: a supply that bounces (resets 300 ms apart, from +${phase} ms) keeps the compressor off`,
      async (t) => {
        const { app, create } = await boardApp(b);
        t.teardown(() => app.close());
        await create('Compressor', 1, { minOff: { duration: s(300), enabled: true } });
        await app.run(500, 100); // the pump updates half a second after the compressor
        await create('Pump', 2, {});
        await app.run(400_000 + phase, 100);
        const chip = b.find(app);
        const model = emulated(app, name);
        t.ok(b.loadOn(model, 1) && b.loadOn(model, 2), 'compressor and pump on');
        const seen: string[] = [];
        for (let i = 0; i < 40; i++) {
          if (i % 3 === 0 && i < 12) chip.powerOnReset();
          await app.run(100, 100);
          seen.push(String(+b.loadOn(model, 1)));
        }
        seen.push(await watch(app, b, model, 20));
        t.notOk(seen.join('').includes('1'), `the compressor stays off (${seen.join('')})`);
        t.ok(b.loadOn(model, 2), 'the pump is back on');
        t.ok(app.data('Compressor').constraints.minOff.limiting, 'its minimum off time says why');
      },
    );
}

t.test(
  'PCF8574, active high: a reset turns every output on; those that were off go off at the next poll',
  async (t) => {
    const app = await simApp({
      sim: {
        plant: { ambient: 20, initial: { beer: 20, air: 20 } },
        i2cIo: [{ name: 'relays', type: 'PCF8574', address: '0x20', activeLow: false }],
      },
    });
    t.teardown(() => app.close());
    const made = await app.post('blocks/create', {
      id: 'Relays',
      type: 'PCF8574',
      data: { bus: 'sim', address: 0x20, activeLow: false },
    });
    t.equal(made.status, 201);
    // Made by hand: discovery proposes no second block for its chip.
    await app.post('blocks/discover');
    await app.run(2000);
    const create = (id: string, channel: number, storedState: string, constraints: Record<string, unknown>) =>
      app.post('blocks/create', {
        id,
        type: 'DigitalActuator',
        data: { 'hwDevice<>': 'Relays', channel, storedState, constraints },
      });
    await create('Compressor', 1, 'STATE_INACTIVE', { minOff: { duration: s(300), enabled: true } });
    await create('Pump', 2, 'STATE_ACTIVE', {});
    await create('Fan', 3, 'STATE_INACTIVE', {});
    await app.run(5000, 250);
    // The fan moves to channel 4: channel 3 is left off, and nobody writes it again.
    t.equal((await app.post('blocks/patch', { id: 'Fan', type: 'DigitalActuator', data: { channel: 4 } })).status, 200);
    await app.run(5000, 250);
    const chip = i2cChip(app);
    const model = emulated(app, 'PCF8574') as { loadOn(channel: number, activeLow: boolean): boolean };
    const loads = () => [1, 2, 3, 4].map((c) => +model.loadOn(c, false)).join('');
    t.equal(loads(), '0100', 'only the pump on');
    chip.powerOnReset();
    const seen: string[] = [];
    for (let i = 0; i < 12; i++) {
      await app.run(250, 250);
      seen.push(loads());
    }
    t.notOk(
      seen.some((l) => l[0] === '1' || l[2] === '1' || l[3] === '1'),
      `the outputs that were off are off from the next poll on (loads 1-4: ${seen.join(' ')})`,
    );
    t.ok(model.loadOn(2, false), 'the pump is on');
  },
);
