// A WAIT_UNTIL time from a variable is held to what a literal is (sequence-wait-until.test.ts):
// a Variables timestamp past 2106-02-07T06:28:15Z (a year-5000 date, which block data takes) made
// the sequence wait for ever, silently. It now stops with INVALID_VARIABLE and says why.
import t from 'tap';
import { setup } from './setup.js';

t.test('a WAIT_UNTIL time from a variable past what Brewblox holds stops the sequence with the reason', async (t) => {
  const su = setup();
  su.create('vars', 'Variables', {
    variables: { far: { timestamp: '5000-01-01T00:00:00Z' }, soon: { timestamp: '2020-01-01T00:00:00Z' } },
  });
  su.create('seq', 'Sequence', {
    variablesId: { __objtype: 'Link', id: 'vars' },
    instructions: ['WAIT_UNTIL time=$soon', 'WAIT_UNTIL time=$far', 'WAIT'],
  });
  await su.run(1000);
  const seq = su.data('seq');
  t.equal(seq.activeInstruction, 1, 'a time that has come passes');
  t.equal(seq.status, 'ERROR', 'one past 2106 does not wait for ever');
  t.equal(seq.error, 'INVALID_VARIABLE');
  t.match(seq.errorMessage, /^instruction 2: INVALID_VARIABLE: .*far.*2106-02-07T06:28:15Z/);
});
