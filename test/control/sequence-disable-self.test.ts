// A Sequence that disables itself (`DISABLE target=<itself>`, a way to stop at a line) ran on
// past that line in the same update: the lines after it set blocks while it was disabled, as the
// Brewblox firmware does not (it looks at `enabled` before each instruction). It now stops after
// the DISABLE, PAUSED at the next line, and is stored so: a restart keeps it stopped there, and
// once enabled again it goes on from that line.
import t from 'tap';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { link, setup } from './setup.js';

t.test('a sequence that disables itself stops at the next line, across a restart too', async (t) => {
  const persistence = new MemoryPersistence();
  const su = setup({ persistence });
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 10, enabled: true });
  su.create('seq', 'Sequence', {
    instructions: [
      'SET_SETPOINT target=sp, setting=12C',
      'DISABLE target=seq',
      'SET_SETPOINT target=sp, setting=30C',
      'WAIT',
    ],
  });
  await su.run(1000);
  t.equal(su.data('sp').storedSetting, 12, 'the line before it ran');
  t.equal(su.data('seq').enabled, false);
  t.equal(su.data('seq').status, 'PAUSED');
  t.equal(su.data('seq').activeInstruction, 2, 'it stands at the line after the DISABLE');
  t.equal(su.data('sp').storedSetting, 12, 'and did not run it while disabled');

  const again = setup({ persistence, clock: su.clock });
  await again.run(1000);
  t.equal(again.data('seq').enabled, false, 'after a restart it is still disabled');
  t.equal(again.data('seq').activeInstruction, 2, 'at the same line');
  t.equal(again.data('sp').storedSetting, 12, 'the setpoint is as it left it');

  again.patch('seq', 'Sequence', { enabled: true });
  await again.run(1000);
  t.equal(again.data('sp').storedSetting, 30, 'enabled, it goes on from that line');
  t.equal(again.data('seq').activeInstruction, 3);
});
