// A sequence another one starts (START_SEQUENCE) was moved to its first line in memory only: the
// starter's checkpoint stored the blocks its SET lines changed, not the sequence it started. A
// starter stored waiting on it (WAIT_SEQUENCE) beside a started sequence still stored at END (its
// last run) came back after a kill as if the run had finished: the wait passed at once and the
// lines after it ran while the started sequence had not run. The started sequence is now stored
// with the starter's checkpoint, as the blocks it sets are (no write beyond the checkpoint's).
import t from 'tap';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { link, setup } from './setup.js';

t.test('a sequence started by another is stored with the starter, so a kill does not skip its run', async (t) => {
  const persistence = new MemoryPersistence();
  const su = setup({ persistence });
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 10, enabled: true });
  // Ran before: stored at its end.
  su.create('brew', 'Sequence', {
    instructions: ['WAIT_DURATION duration=40s', 'WAIT_DURATION duration=40s'],
    overrideState: true,
    activeInstruction: 2,
  });
  await su.run(1000);
  t.equal(su.data('brew').status, 'END');
  su.create('main', 'Sequence', {
    instructions: ['START_SEQUENCE target=brew', 'WAIT_SEQUENCE target=brew', 'SET_SETPOINT target=sp, setting=30C'],
  });
  await su.run(70_000, 1000);
  t.equal(su.data('brew').activeInstruction, 1, 'the started sequence is on its second wait');
  t.equal(su.data('main').activeInstruction, 1, 'the starter waits for it');

  // kill -9: nothing more is stored; a new runtime loads what is.
  const again = setup({ persistence, clock: su.clock });
  await again.run(1000);
  t.not(again.data('brew').status, 'END', 'the started sequence is not back at its old end');
  t.equal(again.data('main').activeInstruction, 1, 'the starter still waits');
  t.equal(again.data('sp').storedSetting, 10, 'the line after the wait has not run');
  await again.run(60_000, 1000);
  t.equal(again.data('brew').status, 'END', 'the run ends');
  t.equal(again.data('sp').storedSetting, 30, 'and then the starter goes on');
});

// The started sequence's progress was stored by the starter's checkpoint, but the blocks its own
// SET lines changed were stored only with its own checkpoint, later: a kill between the two
// brought it back past its SET with the setpoint as before, and the SET never ran again. A
// sequence is now stored with the blocks the lines it passed changed, whoever stores it.
t.test('a started sequence stored by its starter past a SET line has that SET stored too', async (t) => {
  const persistence = new MemoryPersistence();
  const su = setup({ persistence });
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 10, enabled: true });
  su.create('brew', 'Sequence', {
    instructions: ['WAIT_DURATION duration=30s', 'SET_SETPOINT target=sp, setting=30C', 'WAIT_DURATION duration=1h'],
    overrideState: true,
    activeInstruction: 3,
  });
  await su.run(1000);
  su.create('main', 'Sequence', { instructions: ['START_SEQUENCE target=brew', 'WAIT_DURATION duration=2h'] });
  await su.run(75_000, 1000);
  t.equal(su.data('brew').activeInstruction, 2, 'brew is past its SET, on its 1 h wait');
  t.equal(su.data('sp').storedSetting, 30);
  // kill -9 here: after main's checkpoint on its wait (60 s), before brew's own on its wait.
  const again = setup({ persistence, clock: su.clock });
  await again.run(1000);
  const at = again.data('brew').activeInstruction;
  const setting = again.data('sp').storedSetting;
  t.ok(at < 2 || setting === 30, `brew is back at line ${at + 1} with sp at ${setting}: its SET is not lost`);
});

t.test('a sequence paused by a write just past a SET line is stored with that SET', async (t) => {
  const persistence = new MemoryPersistence();
  const su = setup({ persistence });
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 10, enabled: true });
  su.create('brew', 'Sequence', {
    instructions: ['SET_SETPOINT target=sp, setting=30C', 'WAIT_DURATION duration=1h'],
  });
  await su.run(5000, 1000);
  t.equal(su.data('brew').activeInstruction, 1, 'past its SET, on its wait');
  su.patch('brew', 'Sequence', { enabled: false });
  // kill -9 here: the pause stored the sequence before its own checkpoint.
  const again = setup({ persistence, clock: su.clock });
  await again.run(1000);
  const at = again.data('brew').activeInstruction;
  const setting = again.data('sp').storedSetting;
  t.ok(at < 1 || setting === 30, `brew is back at line ${at + 1} with sp at ${setting}: its SET is not lost`);
});
