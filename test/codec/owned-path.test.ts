// isOwnedPath decides which decode issues of a stored record may be left out at load (the
// block's own values) and which keep the record aside (what a client set).
import t from 'tap';
import { f, isOwnedPath } from '../../src/codec/fields.js';
import { Pid } from '../../src/blocks/pid.js';

t.test('on the PID: the tuning state it writes is owned, the settings a brewer makes are not', async (t) => {
  const fields = Pid.fields;
  for (const path of ['data.tuning.message', 'data.tuning.state', 'data.tuning.result', 'data.tuning.result.rule'])
    t.ok(isOwnedPath(fields, path), path);
  for (const path of ['data', 'data.kp', 'data.tuning', 'data.tuning.amplitude', 'data.nope', 'data.kp.value'])
    t.notOk(isOwnedPath(fields, path), path);
});

t.test('through arrays and maps, and not past a field that does not exist', async (t) => {
  const owned = f.object({ note: f.string({}) }, { readonly: true, stored: true });
  const fields = {
    list: f.array(f.object({ mine: owned, yours: f.number({}) })),
    named: f.map(owned, { keyPattern: /^[a-z]+$/, keyHint: 'lower case' }),
    computed: f.number({ readonly: true }),
  };
  t.ok(isOwnedPath(fields, 'data.list.3.mine.note'));
  t.notOk(isOwnedPath(fields, 'data.list.3.yours'));
  t.ok(isOwnedPath(fields, 'data.named.abc.note'));
  t.notOk(isOwnedPath(fields, 'data.computed'), 'read-only but not stored: never in a record');
  t.notOk(isOwnedPath(fields, 'data.list.3.other.note'));
});
