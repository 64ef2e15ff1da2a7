// A rename rewrites every Sequence line that names the block, by the rule a delete and the
// dashboard use to find the names of a line (sequence-lines.ts lineNames): a line whose value is
// mistyped (`setting=20Q`) does not parse, but names its target all the same. It used to keep the
// old name, so once the value was fixed the line named a block that was not there. The rest of the
// line stays as written (its mistake too), whatever quotes, commas, `=` or spaces the names hold.
// The seed of the random names is in the test name; EDGEBLOCKS_TEST_NAMES_SEED repeats a run.
import t from 'tap';
import { lineNames } from '../../src/blocks/shared/sequence-lines.js';
import { names, namesSeed, show } from '../helpers/names.js';
import { link, setup, type Setup } from './setup.js';

const SEED = namesSeed();

function plant(su: Setup, setpoint: string) {
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create(setpoint, 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 10, enabled: true });
}

t.test('a rename rewrites a line that does not parse; fixed, the line sets the renamed block', async (t) => {
  const su = setup();
  plant(su, 'Beer set');
  su.create('seq', 'Sequence', {
    instructions: ["SET_SETPOINT target='Beer set', setting=20Q", 'WAIT_TEMP_ABOVE target=sensor,value=  warm'],
  });
  await su.run(1000);
  t.equal(su.data('seq').error, 'INVALID_ARGUMENT', 'the line does not parse');
  su.runtime.rename({ existing: 'Beer set', desired: 'Fermenter, "A" = 1' });
  t.same(
    su.data('seq').instructions,
    ['SET_SETPOINT target=\'Fermenter, "A" = 1\', setting=20Q', 'WAIT_TEMP_ABOVE target=sensor,value=  warm'],
    'the name is rewritten in place; the rest of the line is as written',
  );
  t.match(su.data('seq').errorMessage, /setting: /, 'and it is still reported for its value');
  // The user fixes the value, as in the editor: the name stays as the line has it.
  const fixed = (su.data('seq').instructions as string[]).map((l) => l.replace('20Q', '20C').replace('  warm', '99C'));
  su.patch('seq', 'Sequence', { instructions: fixed });
  await su.run(1000);
  t.equal(su.data('seq').error, 'NONE', su.data('seq').errorMessage);
  t.equal(su.data('Fermenter, "A" = 1').storedSetting, 20, 'the renamed block was set');
  t.end();
});

t.test(`renames through odd names keep every line naming the block (seed ${SEED})`, async (t) => {
  const su = setup();
  plant(su, 'Beer set');
  // Each target argument in the forms a user may write it: bare, quoted, spaced around `=`, last.
  const lines = [
    "SET_SETPOINT target='Beer set', setting=20Q",
    'SET_SETPOINT setting = 2O C ,  target =  Beer set',
    'WAIT_TEMP_BETWEEN lower=oops, target=sensor, upper=30C',
    'WAIT_SETPOINT target=Beer set, precision=1dC',
    '# SET_SETPOINT target=Beer set, setting=20Q',
  ];
  su.create('seq', 'Sequence', { instructions: lines });
  let current = 'Beer set';
  for (const name of [...names(SEED, 40), "a', b", "x'', y", "'quoted'", "' , '", 'k=v, x=y']) {
    if (name === current) continue;
    su.runtime.rename({ existing: current, desired: name });
    current = name;
    const now = su.data('seq').instructions as string[];
    for (const i of [0, 1, 3])
      t.same(
        lineNames(now[i]!)
          .filter((n) => n.key === 'target')
          .map((n) => n.id),
        [name],
        `renamed to ${show(name)}: line ${i + 1} ${show(now[i]!)} names it`,
      );
    t.match(now[0], /, setting=20Q$/, `renamed to ${show(name)}: the mistyped value is kept`);
    t.match(now[1], /^SET_SETPOINT setting = 2O C ,  target = {2}/, `renamed to ${show(name)}: as written before it`);
    t.equal(now[2], lines[2], 'a line naming another block is untouched');
    t.equal(now[4], lines[4], 'a comment is text, not a name');
  }
  // Fixed, the lines that did not parse set and wait for the block under its last name.
  const fixed = (su.data('seq').instructions as string[]).map((l) => l.replace('20Q', '20C').replace('2O C', '21C'));
  su.patch('seq', 'Sequence', { instructions: [...fixed.slice(0, 2), fixed[3], 'WAIT'] });
  await su.run(1000);
  t.equal(su.data('seq').error, 'NONE', su.data('seq').errorMessage);
  t.equal(su.data('seq').activeInstruction, 3, 'it ran to its last line');
  t.equal(su.data(current).storedSetting, 21, 'the last name is the block');
  t.end();
});
