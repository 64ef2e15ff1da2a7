// A heater that holds a Mutex while on, beside a cooler waiting for it, and then drives no channel
// any more (its channel set to none, or to one another block holds): its output is switched off,
// so it lets the mutex go after its hold time, as a switch-off does, and the cooler starts. A
// board that only stops answering is different: its relay may still be on, so the heater keeps
// the mutex and the cooler keeps waiting. On the emulated DS2408 modules, real drivers.
import t, { type Test } from 'tap';
import type { SimDs2408 } from '../../drivers/sim/onewire-ds2408.js';
import { simApp, type SimApp } from './sim-app.js';
import { oneWireSim } from './relay-boards.js';

const link = (id: string) => ({ __objtype: 'Link', id });
const HOLD_S = 20;
const HEAT_BOARD = 'DS2408 0000000000d1';
const COOL_BOARD = 'DS2408 0000000000d2';
const SIM = oneWireSim([
  { name: 'relays', type: 'DS2408', address: '29-0000000000d1' },
  { name: 'relays2', type: 'DS2408', address: '29-0000000000d2' },
]);

const model = (s: SimApp, name: string) =>
  s.app.hardware.sim!.devices().find((d) => d.spec.name === name)!.model as unknown as SimDs2408;

async function actuator(s: SimApp, id: string, board: string, channel: number, mutexed: boolean) {
  const constraints = mutexed
    ? {
        mutexed: {
          mutexId: link('Mutex'),
          extraHoldTime: { __objtype: 'Quantity', unit: 's', value: HOLD_S },
          enabled: true,
        },
      }
    : {};
  const res = await s.post('blocks/create', {
    id,
    type: 'DigitalActuator',
    data: { hwDevice: link(board), channel, storedState: 'STATE_ACTIVE', constraints },
  });
  if (res.status !== 201) throw new Error(`${id}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** The heater on and holding the mutex, the cooler (on the other board) waiting for it. */
async function heaterHolding(t: Test): Promise<SimApp> {
  const s = await simApp({ sim: SIM });
  t.teardown(() => s.close());
  await s.post('blocks/discover');
  await s.post('blocks/create', { id: 'Mutex', type: 'Mutex', data: {} });
  await actuator(s, 'Heat', HEAT_BOARD, 1, true);
  await s.run(3000);
  await actuator(s, 'Cool', COOL_BOARD, 2, true);
  await s.run(3000);
  t.equal(s.data('Heat').state, 'STATE_ACTIVE', 'the heater is on');
  t.equal(s.data('Cool').constraints.mutexed.limiting, true, 'the cooler waits for the mutex');
  t.equal(model(s, 'relays2').activeOutputs() & 2, 0, "the cooler's relay is off");
  return s;
}

const coolOn = (s: SimApp) => (model(s, 'relays2').activeOutputs() & 2) !== 0;

/** Runs in 1 s steps until the cooler's relay is on; the seconds it took, or null within `limitS`. */
async function untilCoolOn(s: SimApp, limitS: number): Promise<number | null> {
  for (let at = 1; at <= limitS; at++) {
    await s.run(1000);
    if (coolOn(s)) return at;
  }
  return null;
}

for (const [name, patch] of [
  ['its channel set to none', { channel: 0 }],
  ['its channel set to one another block holds', { channel: 3 }],
] as const) {
  t.test(
    `a heater holding the mutex that drives no channel any more (${name}) lets it go after its hold`,
    async (t) => {
      const s = await heaterHolding(t);
      if (patch.channel === 3) {
        await actuator(s, 'Spare', HEAT_BOARD, 3, false);
        await s.run(2000);
      }
      const res = await s.post('blocks/patch', { id: 'Heat', type: 'DigitalActuator', data: patch });
      t.equal(res.status, 200, JSON.stringify(res.body));
      await s.run(1000);
      t.equal(model(s, 'relays').activeOutputs() & 1, 0, "the heater's relay is switched off");
      t.equal(s.data('Heat').state, null, 'the heater reads no state');
      const took = await untilCoolOn(s, HOLD_S + 10);
      t.not(took, null, 'the cooler starts');
      t.ok(took !== null && took >= HOLD_S - 1, `after the heater's hold time (${took} s)`);
      t.equal(s.data('Cool').state, 'STATE_ACTIVE');
      t.equal(s.data('Heat').constraints.mutexed.hasLock, false, 'the heater holds the mutex no more');
      // Given its channel back, the heater waits for the cooler's mutex like any other.
      await s.post('blocks/patch', {
        id: 'Heat',
        type: 'DigitalActuator',
        data: { channel: patch.channel === 3 ? 4 : 1 },
      });
      await s.run(5000);
      t.equal(s.data('Heat').state, 'STATE_INACTIVE', 'its channel back, the heater stays off');
      t.equal(s.data('Heat').constraints.mutexed.limiting, true, 'and waits for the mutex');
      t.ok(coolOn(s), 'the cooler stays on');
    },
  );
}

t.test('a heater holding the mutex whose board stops answering keeps it: its relay may be on', async (t) => {
  const s = await heaterHolding(t);
  await s.post('sim/devices/relays/unplug');
  await s.run(3000);
  t.equal(s.data('Heat').state, null, 'the heater reads no state');
  t.equal(await untilCoolOn(s, HOLD_S + 10), null, 'the cooler keeps waiting');
  t.equal(s.data('Heat').constraints.mutexed.hasLock, true, 'the heater keeps the mutex');
});
