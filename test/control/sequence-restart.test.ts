// A restart in the middle of a WAIT_DURATION (a power cut, an upgrade, a reboot on day 2 of a
// 3-day wait before the cold crash) resumes the wait with the time it had, as a profile resumes
// its place: the time is stored every minute, so at most a minute is counted again.
import t from 'tap';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { link, setup } from './setup.js';

const MIN = 60_000;

function fermenter(persistence: MemoryPersistence, storeMode?: string) {
  const su = setup({ persistence });
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 10, enabled: true });
  su.create('seq', 'Sequence', {
    instructions: [
      'SET_SETPOINT target=sp, setting=20C',
      'WAIT_DURATION duration=2h',
      'SET_SETPOINT target=sp, setting=4C',
      'WAIT',
    ],
    ...(storeMode ? { storeMode } : {}),
  });
  return su;
}

t.test('a restart 90 min into a 2 h wait: the wait ends 30 min later, not 2 h later', async (t) => {
  const persistence = new MemoryPersistence();
  const su = fermenter(persistence);
  await su.run(90 * MIN + 30_000, 1000);
  t.equal(su.data('seq').activeInstruction, 1);

  const again = setup({ persistence });
  await again.run(1000, 1000);
  t.equal(again.data('seq').activeInstruction, 1, 'still waiting after the restart');
  const elapsed = again.data('seq').elapsed;
  t.ok(elapsed >= 89 * 60 && elapsed <= 91 * 60, `the wait resumes with the time it had (${elapsed} s)`);
  await again.run(31 * MIN, 1000);
  t.equal(again.data('seq').activeInstruction, 3, 'the wait ended about 30 min after the restart');
  t.equal(again.data('sp').storedSetting, 4, 'and the next step ran');
});

t.test('paused across a restart: the time it had is kept, and counts on once enabled', async (t) => {
  const persistence = new MemoryPersistence();
  const su = fermenter(persistence);
  await su.run(60 * MIN, 1000);
  su.patch('seq', 'Sequence', { enabled: false });
  const again = setup({ persistence });
  await again.run(10 * MIN, 1000);
  t.equal(again.data('seq').status, 'PAUSED');
  t.ok(Math.abs(again.data('seq').elapsed - 3600) <= 60, `paused at the time it had (${again.data('seq').elapsed} s)`);
  again.patch('seq', 'Sequence', { enabled: true });
  await again.run(61 * MIN, 1000);
  t.equal(again.data('seq').activeInstruction, 3, 'the wait ended an hour after it was enabled again');
});

t.test('a store mode that starts at the first instruction starts its time at 0', async (t) => {
  const persistence = new MemoryPersistence();
  const su = fermenter(persistence, 'AT_FIRST_INSTRUCTION_RESTORE_ENABLED');
  await su.run(90 * MIN, 1000);
  const again = setup({ persistence });
  await again.run(1000, 1000);
  t.equal(again.data('seq').activeInstruction, 1, 'from the first instruction, on to the wait');
  t.ok(again.data('seq').elapsed <= 1, `the wait starts from 0 (${again.data('seq').elapsed} s)`);
});
