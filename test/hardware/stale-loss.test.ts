// A relay lost long ago (control disabled and enabled again puts GPIO lines in their safe state,
// and the line keeps that loss's time) must not count against an actuator that finds it on later:
// a backup loaded while the compressor runs makes a new actuator, which finds its relay on. It
// was taken as switched off at the old loss, so its minimum off time switched the running
// compressor off.
import t from 'tap';
import { type Board, boardApp, seconds } from './relay-boards.js';

/** One GPIO relay: no power-on reset of its own, but a safe state when control is disabled. */
const GPIO: Board = {
  sim: { gpio: [{ name: 'relay 1', line: 21, direction: 'out', activeLow: true }] },
  block: { id: 'GpioPins' },
  loadOn: () => false,
  find: () => {
    throw new Error('no power-on reset');
  },
};

t.test('a backup loaded while the compressor runs, long after a loss on its GPIO line: it stays on', async (t) => {
  const { app, create } = await boardApp(GPIO);
  t.teardown(() => app.close());
  const on = () => app.app.hardware.sim!.gpio.physical(21) === 0;
  t.equal((await create('Compressor', 1, {})).status, 201);
  await app.run(2000, 250);
  t.ok(on(), 'the compressor on');
  const enabled = async (v: boolean) =>
    (await app.app.http.inject({ method: 'PUT', url: '/edge-one/settings/enabled', payload: { enabled: v } }))
      .statusCode;
  t.equal(await enabled(false), 200);
  await app.run(2000, 250);
  t.notOk(on(), 'disabled: off');
  t.equal(await enabled(true), 200);
  await app.run(2000, 250);
  t.ok(on(), 'enabled again (no minimum off time yet): on');
  // Now a minimum off time, which the compressor's own history meets: it keeps running.
  const patch = await app.post('blocks/patch', {
    id: 'Compressor',
    type: 'DigitalActuator',
    data: { constraints: { minOff: { duration: seconds(300), enabled: true } } },
  });
  t.equal(patch.status, 200);
  await app.run(2000, 250);
  t.ok(on(), 'still on with a minimum off time');

  const backup = (await app.post('blocks/backup/save')).body;
  t.same((await app.post('blocks/backup/load', backup)).body.failures, []);
  const seen: boolean[] = [];
  for (let i = 0; i < 20; i++) {
    await app.run(250, 250);
    seen.push(on());
  }
  t.ok(seen.every(Boolean), `the compressor found on stays on (${seen.map((o) => +o).join('')})`);
  t.equal(app.data('Compressor').state, 'STATE_ACTIVE', 'and reads on');
});
