// ownedRoot decides which decode issues of a stored record may be left out at load (the block's
// own values, each left out whole) and which keep the record aside (what a client set).
import t from 'tap';
import { Pid } from '../../src/blocks/pid.js';
import { f, ownedRoot } from '../../src/codec/fields.js';

t.test('on the PID: the tuning state it writes is owned, the settings a brewer makes are not', async (t) => {
  const fields = Pid.fields;
  t.equal(ownedRoot(fields, 'data.tuning.message'), 'data.tuning.message');
  t.equal(ownedRoot(fields, 'data.tuning.state'), 'data.tuning.state');
  t.equal(ownedRoot(fields, 'data.tuning.result'), 'data.tuning.result');
  t.equal(ownedRoot(fields, 'data.tuning.result.ti'), 'data.tuning.result', 'a result is left out whole, not one gain');
  t.equal(ownedRoot(fields, 'data.tuning.previous.pairKp'), 'data.tuning.previous');
  for (const path of ['data', 'data.kp', 'data.tuning', 'data.tuning.amplitude', 'data.nope', 'data.kp.value'])
    t.equal(ownedRoot(fields, path), null, path);
});

t.test('through arrays and maps, and not past a field that does not exist', async (t) => {
  const owned = f.object({ note: f.string({}) }, { readonly: true, stored: true });
  const fields = {
    list: f.array(f.object({ mine: owned, yours: f.number({}) })),
    named: f.map(owned, { keyPattern: /^[a-z]+$/, keyHint: 'lower case' }),
    computed: f.number({ readonly: true }),
  };
  t.equal(ownedRoot(fields, 'data.list.3.mine.note'), 'data.list.3.mine');
  t.equal(ownedRoot(fields, 'data.list.3.yours'), null);
  t.equal(ownedRoot(fields, 'data.named.abc.note'), 'data.named.abc');
  t.equal(ownedRoot(fields, 'data.computed'), null, 'read-only but not stored: never in a record');
  t.equal(ownedRoot(fields, 'data.list.3.other.note'), null);
});
