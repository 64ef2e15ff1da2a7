// A Sequence acting on itself. (1) `DISABLE target=<itself>` on its last line left it PAUSED one
// past its last line (the editor showed line 3 of 2), and a WAIT_SEQUENCE on it waited for ever;
// it has run every line, so it is at END, as one that runs off its last line is, across a restart
// too. (2) `START_SEQUENCE target=<itself>` went on with the next line: Brewblox's START_SEQUENCE
// resets its target to the first instruction, so on itself it starts again from line 1, as
// RESTART does (with RESTART's pause, so that it cannot spin).
import t from 'tap';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { link, setup } from './setup.js';

t.test('a DISABLE of itself on its last line ends the sequence: END, across a restart too', async (t) => {
  const persistence = new MemoryPersistence();
  const su = setup({ persistence });
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 10, enabled: true });
  su.create('seq', 'Sequence', { instructions: ['SET_SETPOINT target=sp, setting=12C', 'DISABLE target=seq'] });
  su.create('waiter', 'Sequence', {
    instructions: ['WAIT_SEQUENCE target=seq', 'SET_SETPOINT target=sp, setting=15C'],
  });
  await su.run(1000);
  t.equal(su.data('seq').enabled, false);
  t.equal(su.data('seq').status, 'END', 'every line ran: it is at its end');
  t.equal(su.data('seq').activeInstruction, 2, 'where a sequence that ran off its last line stands');
  t.equal(su.data('waiter').status, 'END', 'a WAIT_SEQUENCE on it is done');
  t.equal(su.data('sp').storedSetting, 15);

  const again = setup({ persistence, clock: su.clock });
  await again.run(1000);
  t.equal(again.data('seq').status, 'END', 'after a restart');
  t.equal(again.data('seq').activeInstruction, 2);
  again.patch('seq', 'Sequence', { enabled: true });
  await again.run(1000);
  t.equal(again.data('seq').status, 'END', 'enabled again: nothing left to run');
});

t.test('a sequence that ended and is then disabled still reads END', async (t) => {
  const su = setup();
  su.create('seq', 'Sequence', { instructions: ['# only a comment'] });
  await su.run(1000);
  t.equal(su.data('seq').status, 'END');
  su.patch('seq', 'Sequence', { enabled: false });
  await su.run(1000);
  t.equal(su.data('seq').status, 'END', 'not PAUSED: it has no line left to pause at');
});

t.test('START_SEQUENCE naming itself starts it again from line 1', async (t) => {
  const su = setup();
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 10, enabled: true });
  su.create('seq', 'Sequence', {
    instructions: [
      'SET_SETPOINT target=sp, setting=12C',
      'WAIT_DURATION duration=10s',
      'START_SEQUENCE target=seq',
      'SET_SETPOINT target=sp, setting=30C',
    ],
  });
  await su.run(500);
  t.equal(su.data('seq').activeInstruction, 1, 'waiting on line 2');
  await su.run(10_000);
  t.not(su.data('sp').storedSetting, 30, 'the line after the START_SEQUENCE never runs');
  t.equal(su.data('seq').status, 'RESTART', 'it started again, as RESTART does');
  t.equal(su.data('seq').activeInstruction, 0);
  await su.run(2000);
  t.equal(su.data('seq').activeInstruction, 1, 'and runs from line 1 again');
  t.equal(su.data('sp').storedSetting, 12);
});

t.test('an overrideState past the last line is END and keeps the line written (docs/blocks.md)', async (t) => {
  const su = setup();
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 10, enabled: true });
  su.create('seq', 'Sequence', { instructions: ['SET_SETPOINT target=sp, setting=12C', 'WAIT_DURATION duration=1h'] });
  await su.run(1000);
  su.patch('seq', 'Sequence', { overrideState: true, activeInstruction: 99999 });
  await su.run(1000);
  t.equal(su.data('seq').status, 'END', 'nothing to run there');
  t.equal(su.data('seq').activeInstruction, 99999, 'the number written, as the Brewblox firmware keeps it');
  su.patch('seq', 'Sequence', { overrideState: true, activeInstruction: 2 });
  await su.run(1000);
  t.equal(su.data('seq').activeInstruction, 2, 'one past the last line, where running off it stands');
});
