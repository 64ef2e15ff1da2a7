// A backup loaded while one of two mutexed outputs is on (the heater) and the other waits for the
// mutex (the cooler): the loaded blocks find the relay board as it is, heater on, and a new Mutex
// whose token is free. The cooler, updated first, took it and switched on beside the heater.
import t from 'tap';
import { startApp } from '../helpers/app.js';

const RELAYS = 'DS2408 00000000d001';
const state = async (post: Awaited<ReturnType<typeof startApp>>['post'], id: string) =>
  (await post('blocks/read', { id })).body.data.state as string | null;

async function waitFor(cond: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return cond();
}

t.test('backup load: a mutexed output waiting for the mutex stays off while the other is on', async (t) => {
  const { post, close } = await startApp({ hardware: 'sim' });
  t.teardown(close);
  await post('blocks/discover');
  const mutexed = (hold: number) => ({
    mutexed: { 'mutexId<>': 'Mutex', extraHoldTime: { __objtype: 'Quantity', unit: 's', value: hold }, enabled: true },
  });
  const actuator = (id: string, channel: number, storedState: string, hold: number) => ({
    id,
    type: 'DigitalActuator',
    data: { 'hwDevice<>': RELAYS, channel, storedState, constraints: mutexed(hold) },
  });
  t.equal((await post('blocks/create', { id: 'Mutex', type: 'Mutex', data: {} })).status, 201);
  // The cooler first: it comes before the heater in the backup and updates before it.
  t.equal((await post('blocks/create', actuator('Cool', 2, 'STATE_INACTIVE', 600))).status, 201);
  t.equal((await post('blocks/create', actuator('Heat', 1, 'STATE_ACTIVE', 600))).status, 201);
  t.ok(await waitFor(async () => (await state(post, 'Heat')) === 'STATE_ACTIVE', 5000), 'heater on');
  await post('blocks/patch', { id: 'Cool', type: 'DigitalActuator', data: { storedState: 'STATE_ACTIVE' } });
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(await state(post, 'Cool'), 'STATE_INACTIVE', 'the cooler waits for the mutex');

  const backup = (await post('blocks/backup/save')).body;
  t.same((await post('blocks/backup/load', backup)).body.failures, []);
  let both = false;
  const end = Date.now() + 3000;
  while (Date.now() < end) {
    if ((await state(post, 'Heat')) === 'STATE_ACTIVE' && (await state(post, 'Cool')) === 'STATE_ACTIVE') both = true;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.notOk(both, 'never both on');
  t.equal(await state(post, 'Heat'), 'STATE_ACTIVE', 'the heater stays on');
  t.equal(await state(post, 'Cool'), 'STATE_INACTIVE', 'the cooler still waits');
  t.equal((await post('blocks/read', { id: 'Heat' })).body.data.constraints.mutexed.hasLock, true);
});
