// Issue 44 item 3, in process on the emulated hardware: a sensor is "pending" (its null no fault
// yet) only until its hardware has been read once since it was asked for, good or not: I2C
// sensors until their first poll, an external sensor for its timeout without a write, a combi
// while all its sensors are; a chip that does not answer is no longer pending after its first try.
import t from 'tap';
import { readingPending } from '../../src/runtime/types.js';
import { simApp } from '../hardware/sim-app.js';

const BENCH = {
  i2cSensors: [
    { name: 'ferm', type: 'SHT4X', address: '0x44', temperature: 12, humidity: 70 },
    { name: 'dead', type: 'SHT4X', address: '0x45', temperature: 13 },
  ],
};

t.test('pending until the first reading (or the first failed try)', async (t) => {
  const s = await simApp({ sim: BENCH });
  t.teardown(() => s.close());
  const sim = s.app.hardware.sim!;
  sim.i2cSensors.find((e) => e.spec.name === 'dead')!.model.faults.nack = true;
  const link = (id: string) => ({ __objtype: 'Link', id });
  for (const [id, address] of [
    ['ferm', 0x44],
    ['dead', 0x45],
  ] as const)
    t.equal((await s.post('blocks/create', { id, type: 'EnvSensorI2c', data: { bus: 'sim', address } })).status, 201);
  await s.post('blocks/create', {
    id: 'pushed',
    type: 'TempSensorExternal',
    // No setting written since the start (as after a restart: the stored one is not fresh).
    data: { timeout: { __objtype: 'Quantity', unit: 'second', value: 5 } },
  });
  await s.post('blocks/create', { id: 'combi', type: 'TempSensorCombi', data: { sensors: [link('dead')] } });
  const pending = (id: string) => readingPending(s.app.runtime.find(id)!);
  t.same(
    ['ferm', 'dead', 'pushed', 'combi'].map(pending),
    [true, true, true, true],
    'created: nothing read yet, every null is pending',
  );
  await s.run(1500);
  t.ok(Math.abs(s.data('ferm').value.value - 12) < 0.1, `the SHT4x reads (${JSON.stringify(s.data('ferm').value)})`);
  t.equal(pending('ferm'), false);
  t.equal(s.data('dead').value.value, null, 'the dead chip reads null');
  t.equal(pending('dead'), false, 'and, tried once, it is no longer pending: its null is a fault');
  t.equal(pending('combi'), false, 'nor is the combi of it');
  t.equal(pending('pushed'), true, 'the external sensor waits for a write for its timeout');
  await s.run(4000);
  t.equal(pending('pushed'), false, 'its timeout passed without a write: its null is a fault');
  await s.post('blocks/patch', { id: 'pushed', type: 'TempSensorExternal', data: { setting: 21 } });
  await s.run(200);
  t.equal(s.data('pushed').value.value, 21);
});
