import t from 'tap';
import { globMatcher } from '../../src/store/datastore-glob.js';
import { datastoreApp, ids } from './helpers.js';

const cases: [glob: string, matches: string[], misses: string[]][] = [
  ['*', ['', 'a', 'a:b:c'], []],
  ['a*', ['a', 'abc', 'a:b'], ['ba', '']],
  ['*:x', ['a:x', 'a:b:x', ':x'], ['x', 'a:xy']],
  ['**x', ['x', 'abx'], ['xa']],
  ['?', ['a', ':', 'ü'], ['', 'ab']],
  ['a?c', ['abc', 'a:c'], ['ac', 'abbc']],
  ['[ab]', ['a', 'b'], ['c', 'ab', '']],
  ['[a-c]x', ['ax', 'bx', 'cx'], ['dx', '-x']],
  ['[c-a]', ['a', 'b', 'c'], ['d'] /* a reversed range is swapped, as in Redis */],
  ['[^ab]', ['c', ':', '1'], ['a', 'b', '']],
  ['[^a-y]*', ['z1', 'Zed'], ['abc', 'y']],
  ['[a\\-z]', ['a', '-', 'z'], ['b']],
  ['[\\]]', [']'], ['\\']],
  ['[]', [], ['', ']', 'a']],
  ['[^]', ['a', ']'], ['']],
  ['[abc', ['a', 'c'], ['[abc', 'd'] /* unterminated: the class runs to the end */],
  ['\\*', ['*'], ['a', '\\*']],
  ['a\\?', ['a?'], ['ab']],
  ['\\[x]', ['[x]'], ['x']],
  ['\\a', ['a'], ['\\a']],
  ['x\\', ['x\\'], ['x']],
  ['a.b', ['a.b'], ['axb']],
  ['(a|b)+', ['(a|b)+'], ['a', 'ab']],
  ['^a$', ['^a$'], ['a']],
  ['{a}', ['{a}'], ['a']],
  ['a/b', ['a/b'], ['ab']],
  ['-~_.', ['-~_.'], ['-~_x']],
  ['x*y?z', ['xyyz', 'x:::y:z', 'xy:z'], ['xyz', 'x:y::z:']],
];

t.test('glob semantics follow Redis KEYS', async (t) => {
  for (const [glob, yes, no] of cases) {
    const m = globMatcher(glob);
    for (const s of yes) t.ok(m(s), `${glob} matches ${JSON.stringify(s)}`);
    for (const s of no) t.notOk(m(s), `${glob} does not match ${JSON.stringify(s)}`);
  }
});

t.test('filters through the API: nested namespaces, the empty namespace, classes, escapes', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  const docs = [
    { namespace: 'p', id: 'a' },
    { namespace: 'p', id: 'b.1' },
    { namespace: 'p:q', id: 'b' },
    { namespace: 'p:q:r', id: 'c' },
    { namespace: '', id: 'p' },
    { namespace: '', id: 'pq' },
    { namespace: 'px', id: 'a' },
    { namespace: 'ns', id: 'x~y' },
    { namespace: 'ns', id: 'x-y' },
    { namespace: 'ns', id: 'x_y' },
  ];
  await ds('mset', { values: docs });
  const mget = async (body: object) => ids((await ds('mget', body)).body.values);

  t.same(
    await mget({ namespace: 'p' }),
    ['p:a', 'p:b.1', 'p:q:b', 'p:q:r:c'],
    'a namespace holds its nested namespaces, not the bare key p nor px',
  );
  t.same(await mget({ namespace: 'p:q' }), ['p:q:b', 'p:q:r:c']);
  t.same(
    await mget({ namespace: 'p', filter: 'q:*' }),
    ['p:q:b', 'p:q:r:c'],
    'the filter sees the nested part of the key',
  );
  t.same(await mget({ namespace: 'p', filter: '?' }), ['p:a'], '? is one character, so nested keys are not matched');
  t.same(await mget({ namespace: 'p', filter: '*:?' }), ['p:q:b', 'p:q:r:c'], '* crosses :');
  t.same(await mget({ namespace: 'p', filter: 'b.?' }), ['p:b.1'], '. is literal');
  t.same(await mget({ namespace: '', filter: 'p' }), ['p'], 'empty namespace: the filter is on the whole key');
  t.same(await mget({ namespace: '', filter: 'p?' }), ['pq'], 'p? is two characters');
  t.same(await mget({ namespace: '', filter: 'p*' }), ['p', 'p:a', 'p:b.1', 'p:q:b', 'p:q:r:c', 'pq', 'px:a']);
  t.same(await mget({ namespace: '', filter: '[^p]*' }), ['ns:x-y', 'ns:x_y', 'ns:x~y']);
  t.same(await mget({ namespace: 'ns', filter: 'x[~_]y' }), ['ns:x_y', 'ns:x~y']);
  t.same(await mget({ namespace: 'ns', filter: 'x[\\-]y' }), ['ns:x-y'], 'an escaped - in a class is literal');
  t.same(await mget({ namespace: 'ns', filter: 'x[^\\-]y' }), ['ns:x_y', 'ns:x~y']);
  t.same(await mget({ namespace: 'ns', filter: 'x\\~y' }), ['ns:x~y'], 'an escaped ordinary character is itself');
  t.same(await mget({ namespace: 'ns', filter: 'x\\*' }), [], 'an escaped * is a literal star');
  t.same(await mget({ namespace: 'ns', filter: '' }), [], 'an empty filter matches only an empty rest');

  events();
  t.same((await ds('mdelete', { namespace: 'p', filter: 'q:*' })).body, { count: 2 });
  t.same(
    events(),
    [{ topic: 'svc/datastore/p', payload: { deleted: ['p:q:b', 'p:q:r:c'] }, retain: false }],
    'nested deletions share the top-level topic',
  );
  t.same((await ds('mdelete', { namespace: '', filter: 'p' })).body, { count: 1 });
  t.same(events(), [{ topic: 'svc/datastore/p', payload: { deleted: ['p'] }, retain: false }]);
  t.same(await mget({ namespace: 'p' }), ['p:a', 'p:b.1'], 'p:a and p:b.1 survive');
});
