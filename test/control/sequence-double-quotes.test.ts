// A Sequence line that names its target in double quotes (`target="Beer Setpoint"`) does not
// parse: Brewblox quotes names in single quotes only, and the line's error says how to write it
// (sequence-names.test.ts). It still names the block, by the one rule the service and the
// dashboard share (sequence-lines.ts lineNames): a delete lists it among the references left
// dangling, the dashboard marks it, and a rename rewrites the name inside the quotes, so that
// once the quotes are fixed the line names the block under its new name. The error stays.
import t from 'tap';
import { lineNames, renameInLine } from '../../src/blocks/shared/sequence-lines.js';
import { link, setup, type Setup } from './setup.js';

const LINE = 'SET_SETPOINT target="Beer Setpoint", setting=20C';

function plant(su: Setup) {
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('Beer Setpoint', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 10, enabled: true });
  su.create('seq', 'Sequence', { instructions: [LINE, 'WAIT'] });
}

t.test('a name in double quotes is a name the line gives: the dashboard and a delete see it', async (t) => {
  t.same(lineNames(LINE), [{ key: 'target', id: 'Beer Setpoint' }]);
  const su = setup();
  plant(su);
  await su.run(200);
  t.equal(su.data('seq').status, 'ERROR', 'the line is still an error');
  const deleted = su.runtime.delete({ id: 'Beer Setpoint' });
  t.same(deleted.dangling, [{ id: 'seq', field: 'instructions.0' }], 'the delete lists the line');
  t.end();
});

t.test('a rename rewrites the name in double quotes, and the line stays an error saying how to write it', async (t) => {
  const su = setup();
  plant(su);
  await su.run(200);
  su.runtime.rename({ existing: 'Beer Setpoint', desired: 'Wort Setpoint' });
  const seq = su.data('seq');
  t.equal(seq.instructions[0], 'SET_SETPOINT target="Wort Setpoint", setting=20C');
  // A sequence in error looks at its lines again each second.
  await su.run(1500);
  t.equal(su.data('seq').status, 'ERROR');
  t.match(su.data('seq').errorMessage, /target: .*double quotes.*target='Wort Setpoint'/);
  t.equal(su.data('Wort Setpoint').storedSetting, 10, 'nothing was set by the rename');
  // A name that double quotes cannot hold (a comma ends the value there) is not written (below).
  t.equal(renameInLine(LINE, 'Beer Setpoint', 'Wort, main'), null);
  t.equal(renameInLine(LINE, 'Other', 'Wort'), null, 'a line naming another block is left');
  t.end();
});

t.test('a rename to a name double quotes cannot hold leaves the line as it was, still an error', async (t) => {
  // Written in single quotes, the line would become valid, and the stopped sequence would set the
  // setpoint at the rename, a moment the brewer did not choose.
  const su = setup();
  plant(su);
  await su.run(200);
  su.runtime.rename({ existing: 'Beer Setpoint', desired: 'Wort, main' });
  t.equal(su.data('seq').instructions[0], LINE, 'the line is left as written');
  await su.run(1500);
  t.equal(su.data('seq').status, 'ERROR', 'the sequence stays in error');
  t.equal(su.data('Wort, main').storedSetting, 10, 'nothing was set by the rename');
  t.end();
});
