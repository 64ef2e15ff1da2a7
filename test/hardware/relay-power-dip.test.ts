// A relay board whose power dips (a loose supply, a brown-out) drops every relay; the driver
// finds the board back in its power-on state. A compressor must not be started again at once: a
// restart against the pressure left from its run is what its minimum off time is there to
// prevent, and the compressor did go off. The outputs that were on and were lost count as
// switched off at the time the loss was found, for the constraints of the actuator on each;
// an output without constraints (a pump) comes back at once. The same on a 1-Wire DS2408 and
// on the I2C expanders (MCP23017, PCF8574), each through its real driver; and for every relay,
// GPIO lines too, when control is disabled and enabled again.
import t, { type Test } from 'tap';
import { BOARDS, type Board, boardApp, emulated, type SimAppOf, seconds } from './relay-boards.js';

/** GPIO relays: no power-on reset of their own, but a safe state when control is disabled. */
const GPIO_BOARD: Board = {
  sim: { gpio: [1, 2].map((n) => ({ name: `relay ${n}`, line: 20 + n, direction: 'out', activeLow: true })) },
  block: { id: 'GpioPins' },
  loadOn: (gpio, channel) => gpio.physical(20 + channel) === 0,
  find: () => {
    throw new Error('GPIO lines have no power-on reset here');
  },
};

/** Compressor (minOff 300 s) on channel 1 and pump on channel 2, both on past the minOff since the start. */
async function running(t: Test, b: Board): Promise<{ app: SimAppOf; model: unknown }> {
  const { app, made, create } = await boardApp(b);
  t.teardown(() => app.close());
  if (made !== null) t.equal(made, 201, 'board block');
  t.equal((await create('Compressor', 1, { minOff: { duration: seconds(300), enabled: true } })).status, 201);
  t.equal((await create('Pump', 2, {})).status, 201);
  await app.run(400_000, 250);
  const model = b === GPIO_BOARD ? app.app.hardware.sim!.gpio : emulated(app, b);
  t.ok(b.loadOn(model, 1) && b.loadOn(model, 2), 'compressor and pump on');
  return { app, model };
}

/** After the loss at `from`: the compressor off for its minOff, the pump back at once. */
async function waitsMinOff(t: Test, app: SimAppOf, b: Board, model: unknown, from: number): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < 12; i++) {
    await app.run(250, 250);
    seen.push(`${+b.loadOn(model, 1)}${+b.loadOn(model, 2)}`);
  }
  t.notOk(
    seen.some((o) => o[0] === '1'),
    `the compressor stays off (compressor, pump: ${seen.join(' ')})`,
  );
  t.ok(b.loadOn(model, 2), 'the pump is back on');
  t.equal(app.data('Compressor').desiredState, 'STATE_ACTIVE', 'the compressor is still wanted on');
  t.equal(app.data('Compressor').state, 'STATE_INACTIVE', 'and reads back off');
  t.ok(app.data('Compressor').constraints.minOff.limiting, 'its minimum off time says why');
  await app.run(from + 290_000 - app.clock.now(), 1000);
  t.notOk(b.loadOn(model, 1), 'still off 290 s after the loss');
  await app.run(15_000, 250);
  t.ok(b.loadOn(model, 1), 'on again once 300 s have passed');
  t.ok(b.loadOn(model, 2), 'the pump stayed on');
}

for (const [name, b] of Object.entries(BOARDS)) {
  t.test(`${name}: after a power dip the compressor waits its minimum off time; a pump does not`, async (t) => {
    const { app, model } = await running(t, b);
    b.find(app).powerOnReset();
    await waitsMinOff(t, app, b, model, app.clock.now());
  });
}

// Control disabled puts every output in its safe state; enabled again, a compressor that was
// on had been off since then, and its minimum off time counts from there as after a dip. (On
// a DS2408, relays also stayed off for good after more than 10 s disabled.)
for (const [name, b] of Object.entries({ ...BOARDS, 'GPIO lines': GPIO_BOARD })) {
  t.test(`${name}: control disabled and enabled again, the compressor waits its minimum off time`, async (t) => {
    const { app, model } = await running(t, b);
    const enabled = async (on: boolean) =>
      (await app.app.http.inject({ method: 'PUT', url: '/edge-one/settings/enabled', payload: { enabled: on } }))
        .statusCode;
    t.equal(await enabled(false), 200);
    const off = app.clock.now();
    await app.run(10_000, 250);
    t.notOk(b.loadOn(model, 1) || b.loadOn(model, 2), 'disabled: both off');
    t.equal(await enabled(true), 200);
    await waitsMinOff(t, app, b, model, off);
  });
}
