import t from 'tap';
import { link, setup, type Setup } from './setup.js';

const s = (seconds: number) => ({ __objtype: 'Quantity', unit: 's', value: seconds });
const ACTIVE = 'STATE_ACTIVE';
const INACTIVE = 'STATE_INACTIVE';

function actuator(su: Setup, id: string, channel: number, constraints: Record<string, unknown>) {
  su.create(id, 'DigitalActuator', { hwDevice: link('pins'), channel, constraints });
}
const set = (su: Setup, id: string, state: string) => su.patch(id, 'DigitalActuator', { storedState: state });

/** Run until `cond` holds; returns the time (ms) it took, or Infinity. */
async function until(su: Setup, cond: () => boolean, maxMs: number, stepMs = 10): Promise<number> {
  const start = su.clock.now();
  while (su.clock.now() - start < maxMs) {
    if (cond()) return su.clock.now() - start;
    await su.run(stepMs, stepMs);
  }
  return cond() ? su.clock.now() - start : Infinity;
}

t.test('constraints keep a fixed order, and limiting/remaining are read-only', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  su.create('mutex', 'Mutex', {});
  actuator(su, 'a', 1, {
    mutexed: { mutexId: link('mutex'), extraHoldTime: s(0), enabled: true, hasLock: true, limiting: true },
    delayedOff: { duration: s(1), enabled: false },
    minOn: { duration: s(2), enabled: true, remaining: s(99) },
    delayedOn: { duration: s(3), enabled: false },
    minOff: { duration: s(4), enabled: false, limiting: true },
  });
  const json = su.runtime.read({ id: 'a' }).json().data as { constraints: Record<string, Record<string, unknown>> };
  t.same(Object.keys(json.constraints), ['minOff', 'minOn', 'delayedOn', 'delayedOff', 'mutexed']);
  t.same(Object.keys(json.constraints.minOn!), ['duration', 'enabled', 'limiting', 'remaining']);
  t.same(Object.keys(json.constraints.mutexed!), [
    'mutexId',
    'extraHoldTime',
    'hasLock',
    'enabled',
    'limiting',
    'remaining',
  ]);
  t.equal(json.constraints.minOff!.limiting, false, 'limiting in the input is ignored');
  t.same(
    json.constraints.minOn!.remaining,
    { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'second', value: 0, readonly: true },
    'remaining in the input is ignored',
  );
  t.equal(json.constraints.mutexed!.hasLock, false, 'hasLock in the input is ignored');
  const stored = su.runtime.read({ id: 'a' }, 'stored').json().data as {
    constraints: Record<string, Record<string, unknown>>;
  };
  t.notOk('remaining' in stored.constraints.minOn!, 'remaining is not stored');
  t.notOk('limiting' in stored.constraints.minOn!, 'limiting is not stored');
  t.end();
});

t.test('minOff counts from boot; the actuator wakes itself when the constraint expires', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  actuator(su, 'a', 1, { minOff: { duration: s(5), enabled: true } });
  await su.run(3000, 100);
  set(su, 'a', ACTIVE);
  const c = () => su.data('a').constraints.minOff;
  t.equal(su.data('a').state, INACTIVE, 'blocked: still off');
  t.equal(c().limiting, true);
  t.ok(Math.abs(c().remaining - 2) < 0.01, `remaining ${c().remaining} s`);
  t.equal(su.data('a').desiredState, ACTIVE, 'desired is on');
  // Scheduled for min(remaining, 1 s), then exactly at expiry.
  t.equal(su.block('a').nextUpdate - su.clock.now(), 1000);
  await su.run(1100, 100);
  t.ok(Math.abs(su.block('a').nextUpdate - su.clock.now() - 900) <= 1, 'next update when minOff runs out');
  const waited = await until(su, () => su.pins('pins')[0] === true, 2000, 5);
  t.ok(waited <= 905, `switched on ${waited} ms later, when minOff ran out`);
  t.equal(c().limiting, false);
  t.equal(c().remaining, 0);
  t.end();
});

t.test('minOn keeps the output on; delayedOn and delayedOff need a continuous request', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  actuator(su, 'a', 1, {
    minOn: { duration: s(10), enabled: true },
    delayedOn: { duration: s(2), enabled: true },
    delayedOff: { duration: s(3), enabled: true },
  });
  set(su, 'a', ACTIVE);
  await su.run(1000, 100);
  set(su, 'a', INACTIVE);
  await su.run(1000, 100);
  set(su, 'a', ACTIVE);
  t.equal(su.data('a').constraints.delayedOn.limiting, true, 'the delay restarted when the request went away');
  const on = await until(su, () => su.pins('pins')[0] === true, 5000);
  t.ok(on >= 1990 && on <= 2010, `on after the 2 s delay (${on} ms)`);
  await su.run(1000, 100);
  set(su, 'a', INACTIVE);
  const d = su.data('a').constraints;
  t.equal(d.minOn.limiting, true, 'minOn comes first in the order');
  t.ok(Math.abs(d.minOn.remaining - 9) < 0.02, `minOn remaining ${d.minOn.remaining}`);
  t.equal(d.delayedOff.limiting, false);
  const off = await until(su, () => su.pins('pins')[0] === false, 15000);
  t.ok(off >= 8990 && off <= 9010, `off when minOn ran out (${off} ms): delayedOff already satisfied`);
  t.end();
});

t.test('mutex: one actuator at a time, the holder keeps the lock for its hold time', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  su.create('mutex', 'Mutex', {});
  const mutexed = (hold: number) => ({ mutexed: { mutexId: link('mutex'), extraHoldTime: s(hold), enabled: true } });
  actuator(su, 'heat', 1, mutexed(60));
  actuator(su, 'cool', 2, mutexed(300));
  set(su, 'cool', ACTIVE);
  await su.run(1000, 100);
  t.equal(su.pins('pins')[1], true, 'cooler on');
  t.equal(su.data('cool').constraints.mutexed.hasLock, true);
  set(su, 'heat', ACTIVE);
  await su.run(1000, 100);
  t.equal(su.pins('pins')[0], false, 'heater blocked while the cooler is on');
  const m = su.data('heat').constraints.mutexed;
  t.equal(m.limiting, true);
  t.ok(Math.abs(m.remaining - 300.001) < 0.01, `waits for the holder's hold time (${m.remaining} s)`);
  t.equal(su.data('mutex').waitRemaining, 300);
  set(su, 'cool', INACTIVE);
  await su.run(1000, 100);
  t.equal(su.pins('pins')[1], false, 'cooler off');
  t.equal(su.pins('pins')[0], false, 'heater still blocked: hold time');
  t.equal(su.data('cool').constraints.mutexed.hasLock, true, 'cooler keeps the lock during its hold');
  let bothOn = false;
  const waited = await until(
    su,
    () => {
      if (su.pins('pins')[0] && su.pins('pins')[1]) bothOn = true;
      return su.pins('pins')[0] === true;
    },
    400_000,
    100,
  );
  t.ok(waited >= 298_900 && waited <= 299_200, `heater on once the cooler's 300 s hold passed (${waited} ms after)`);
  t.notOk(bothOn);
  t.equal(su.data('heat').constraints.mutexed.hasLock, true);
  t.equal(su.data('cool').constraints.mutexed.hasLock, false);
  // The cooler now waits for the heater's (shorter) hold time.
  set(su, 'cool', ACTIVE);
  await su.run(500, 100);
  t.equal(su.pins('pins')[1], false);
  set(su, 'heat', INACTIVE);
  const coolWait = await until(su, () => su.pins('pins')[1] === true, 100_000, 100);
  t.ok(coolWait >= 59_900 && coolWait <= 60_200, `cooler on after the heater's 60 s hold (${coolWait} ms)`);
  t.end();
});

t.test('mutex without hold time: the holder keeps the token for as long as it is on', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  su.create('mutex', 'Mutex', {});
  const mutexed = { mutexed: { mutexId: link('mutex'), extraHoldTime: s(0), enabled: true } };
  actuator(su, 'a', 1, mutexed);
  actuator(su, 'b', 2, mutexed);
  set(su, 'a', ACTIVE);
  set(su, 'b', ACTIVE);
  let both = 0;
  await su.run(60_000, 100, [() => void (su.pins('pins')[0] && su.pins('pins')[1] && both++)]);
  t.equal(su.pins('pins')[0], true);
  t.equal(su.pins('pins')[1], false, 'b waits while a is on');
  t.equal(both, 0);
  set(su, 'a', INACTIVE);
  await su.run(1100, 100, [() => void (su.pins('pins')[0] && su.pins('pins')[1] && both++)]);
  t.equal(su.pins('pins')[1], true, 'b gets the token as soon as a is off');
  t.equal(both, 0, 'never both on');
  t.end();
});

t.test('mutex: a time constraint blocks before the token is taken; a deleted holder frees it', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  su.create('mutex', 'Mutex', {});
  actuator(su, 'a', 1, {
    minOff: { duration: s(60), enabled: true },
    mutexed: { mutexId: link('mutex'), extraHoldTime: s(600), enabled: true },
  });
  actuator(su, 'b', 2, { mutexed: { mutexId: link('mutex'), extraHoldTime: s(600), enabled: true } });
  set(su, 'a', ACTIVE);
  await su.run(1000, 100);
  t.equal(su.data('a').constraints.minOff.limiting, true);
  t.equal(su.data('a').constraints.mutexed.hasLock, false, 'minOff blocks first: the token is not taken');
  set(su, 'b', ACTIVE);
  await su.run(1000, 100);
  t.equal(su.pins('pins')[1], true, 'b gets the free token');
  await su.run(120_000, 500);
  t.equal(su.pins('pins')[0], false, 'a waits for b');
  t.equal(su.data('a').constraints.mutexed.limiting, true);
  su.runtime.delete({ id: 'b' });
  await su.run(2000, 100);
  t.equal(su.pins('pins')[1], false, 'a deleted actuator switches its channel off');
  t.equal(su.pins('pins')[0], true, 'the token of a deleted holder is free again');
  t.end();
});

t.test('a mutex that cannot be resolved blocks switching on', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  su.create('mutex', 'Mutex', {});
  actuator(su, 'a', 1, { mutexed: { mutexId: link('mutex'), extraHoldTime: s(0), enabled: true } });
  su.runtime.delete({ id: 'mutex' });
  set(su, 'a', ACTIVE);
  await su.run(10_000, 100);
  t.equal(su.pins('pins')[0], false, 'stays off without its mutex');
  t.equal(su.data('a').constraints.mutexed.limiting, true);
  t.ok(su.block('a').nextUpdate - su.clock.now() <= 1000, 'retries every second');
  su.create('mutex', 'Mutex', {});
  await su.run(1100, 100);
  t.equal(su.pins('pins')[0], true, 'switches on once the mutex exists again');
  su.patch('a', 'DigitalActuator', { constraints: { mutexed: { enabled: false } } });
  t.equal(su.data('mutex').waitRemaining, 0);
  await su.run(1100, 100);
  t.equal(su.block('mutex').state.holder, null, 'disabling the constraint gives the token back');
  t.end();
});

t.test('mutex deleted and created again: an actuator already on gets the token before one waiting', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  su.create('mutex', 'Mutex', {});
  const mutexed = { mutexed: { mutexId: link('mutex'), extraHoldTime: s(600), enabled: true } };
  // The waiting actuator comes first in the update order.
  actuator(su, 'cool', 2, mutexed);
  actuator(su, 'heat', 1, mutexed);
  set(su, 'heat', ACTIVE);
  await su.run(1000, 100);
  set(su, 'cool', ACTIVE);
  await su.run(1000, 100);
  t.same(su.pins('pins').slice(0, 2), [true, false], 'heater on, cooler waiting');
  su.runtime.delete({ id: 'mutex' });
  await su.run(2000, 100);
  su.create('mutex', 'Mutex', {});
  let both = 0;
  await su.run(10_000, 100, [() => void (su.pins('pins')[0] && su.pins('pins')[1] && both++)]);
  t.equal(both, 0, 'never both on');
  t.same(su.pins('pins').slice(0, 2), [true, false], 'the heater keeps its output, the cooler waits');
  t.equal(su.block('mutex').state.holder, 'heat');
  t.equal(su.data('cool').constraints.mutexed.limiting, true);
  t.end();
});

t.test('invert is applied at the channel, under the constraints', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  actuator(su, 'a', 1, { minOn: { duration: s(30), enabled: true } });
  su.patch('a', 'DigitalActuator', { invert: true });
  await su.run(200, 100);
  t.equal(su.pins('pins')[0], true, 'inactive is a high pin when inverted');
  t.equal(su.data('a').state, INACTIVE);
  set(su, 'a', ACTIVE);
  await su.run(200, 100);
  t.equal(su.pins('pins')[0], false);
  t.equal(su.data('a').state, ACTIVE);
  su.patch('a', 'DigitalActuator', { invert: false, storedState: INACTIVE });
  await su.run(200, 100);
  t.equal(su.pins('pins')[0], true, 'toggling invert does not bypass minOn');
  t.equal(su.data('a').state, ACTIVE);
  t.end();
});
