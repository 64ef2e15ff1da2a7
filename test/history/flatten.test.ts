// Flattening and numeric conversion: the cases of reference/datastore.md §5 and §10 G.
import t from 'tap';
import { fieldsMemo, flatten, historyFields, parseHistoryMessage, toNumber } from '../../src/history/flatten.js';
import { DEFAULT_LIMITS } from '../../src/history/limits.js';

const fieldsOf = (payload: unknown) => {
  const r = parseHistoryMessage(JSON.stringify(payload));
  if (!r.ok) throw new Error(`rejected: ${r.reason}`);
  return Object.fromEntries(r.fields);
};

t.test('flatten table', async (t) => {
  const cases: Array<[string, Record<string, unknown>, Array<[string, unknown]>]> = [
    [
      'lists become index segments',
      { nest: { ed: { values: ['val', 'var', true] } } },
      [
        ['nest/ed/values/0', 'val'],
        ['nest/ed/values/1', 'var'],
        ['nest/ed/values/2', true],
      ],
    ],
    ['keys with a slash stay as they are', { 'single/text': 'value' }, [['single/text', 'value']]],
    [
      'already flat input is unchanged',
      { 'a/b': 1, c: 2 },
      [
        ['a/b', 1],
        ['c', 2],
      ],
    ],
    ['empty objects and lists vanish', { nest: { ed: { empty: {}, data: [] } } }, []],
    [
      'lists of objects recurse',
      { a: [{ b: 1 }, { b: 2 }] },
      [
        ['a/0/b', 1],
        ['a/1/b', 2],
      ],
    ],
    [
      'sorted by code point',
      { b: 1, a: { z: 2, B: 3 } },
      [
        ['a/B', 3],
        ['a/z', 2],
        ['b', 1],
      ],
    ],
    [
      'leaves kept as they are',
      { n: null, s: 'x', f: false },
      [
        ['f', false],
        ['n', null],
        ['s', 'x'],
      ],
    ],
  ];
  for (const [name, input, expected] of cases) t.same(flatten(input), expected, name);
});

t.test('numeric conversion table', async (t) => {
  const cases: Array<[unknown, number | undefined]> = [
    [10, 10],
    [1.234, 1.234],
    [-3, -3],
    [true, 1],
    [false, 0],
    ['8', 8],
    [' 8 ', 8],
    ['1e3', 1000],
    ['-2.5', -2.5],
    ['.5', 0.5],
    ['test', undefined],
    ['true', undefined],
    ['1.2.3', undefined],
    ['', undefined],
    ['0x10', undefined],
    ['nan', undefined],
    ['inf', undefined],
    ['1_000', undefined],
    [null, undefined],
    [NaN, undefined],
    [Infinity, undefined],
  ];
  for (const [input, expected] of cases)
    t.equal(toNumber(input as never), expected, `${JSON.stringify(input)} -> ${expected}`);
});

t.test('messages: reference cases', async (t) => {
  t.same(
    fieldsOf({ key: 'm', data: { nest: { ed: { values: ['val', 'var', true] } } } }),
    { 'nest/ed/values/2': 1 },
    'H-FLATTEN-LIST',
  );
  t.same(fieldsOf({ key: 'm', data: { 'single/text': 'value' } }), {}, 'H-FLAT-KEY: no numeric field');
  t.same(fieldsOf({ key: 'm', data: { 'single/num': 5 } }), { 'single/num': 5 });
  t.same(
    fieldsOf({
      key: 'conv',
      data: { i: 10, f: 1.234, t: true, b: false, s: '8', x: 'test', y: 'true', z: '1.2.3', n: null },
    }),
    { b: 0, f: 1.234, i: 10, s: 8, t: 1 },
    'H-NUMERIC',
  );
  t.same(fieldsOf({ key: 'arr', data: { a: [{ b: 1 }, { b: 2 }] } }), { 'a/0/b': 1, 'a/1/b': 2 }, 'H-ARRAY-OF-OBJECTS');
  t.same(fieldsOf({ key: 'sp', data: { 'my field': 3 } }), { 'my field': 3 }, 'H-SPACE-FIELD');
  t.same(fieldsOf({ key: 'ex', type: 'whatever', timestamp: 123, data: { v: 1 } }), { v: 1 }, 'H-EXTRA-TOPLEVEL');
  t.same(fieldsOf({ key: 'ex', data: { timestamp: 5 } }), { timestamp: 5 });
  t.same(fieldsOf({ key: 'm', data: { nest: { ed: { empty: {}, data: [] } } } }), {}, 'H-EMPTY-NESTED');
});

t.test('messages: rejected, each with a reason', async (t) => {
  const bad: Array<[string, string | Buffer, RegExp]> = [
    ['not JSON', 'hello', /not JSON/],
    ['empty', '', /empty/],
    ['array', '[1,2]', /object/],
    ['number', '5', /object/],
    ['no key', '{"pancakes":"yummy"}', /key/],
    ['key only', '{"key":"m"}', /data/],
    ['data only', '{"data":{"a":1}}', /key/],
    ['data a string', '{"key":"m","data":"no"}', /data/],
    ['data a list', '{"key":"m","data":[1,2]}', /data/],
    ['data null', '{"key":"m","data":null}', /data/],
    ['key a number', '{"key":5,"data":{"a":1}}', /key/],
    ['key with a line break', '{"key":"a\\nb","data":{"a":1}}', /key not storable: .*control character/],
    ['key of 1001 characters', JSON.stringify({ key: 'k'.repeat(1001), data: { a: 1 } }), /key not storable: .*longer/],
    ['10 MB', Buffer.alloc(10 * 1024 * 1024, 32), /over the \d+-byte limit/],
    [
      '100 000 fields',
      JSON.stringify({ key: 'k', data: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`f${i}`, i])) }),
      /over the|more than/,
    ],
  ];
  for (const [name, payload, reason] of bad) {
    const r = parseHistoryMessage(payload);
    t.equal(r.ok, false, name);
    if (!r.ok) t.match(`${r.reason}: ${r.detail}`, reason, `${name}: ${r.reason}: ${r.detail}`);
  }
  const wide = parseHistoryMessage(
    JSON.stringify({ key: 'k', data: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`f${i}`, i])) }),
  );
  t.equal(wide.ok, false, '3000 numeric fields exceed the per-message cap');
  const nan = parseHistoryMessage('{"key":"k","data":{"a":1e999,"b":2}}');
  t.same(nan.ok && nan.fields, [['b', 2]], 'an overflowing number (Infinity) is skipped, the rest kept');
});

t.test('names are user text: only what no store can hold is left out, field by field, counted', async (t) => {
  const kept = parseHistoryMessage(
    JSON.stringify({
      key: 'a/b "c" \\ d, e=f',
      data: { 'Brew "Kettle"': { 'value[degC]': 66 }, 'a\\b/c d,e=f.g%h 🍺': 1, 'ÄÖ 温度': 2 },
    }),
  );
  t.same(
    kept,
    {
      ok: true,
      key: 'a/b "c" \\ d, e=f',
      fields: [
        ['Brew "Kettle"/value[degC]', 66],
        ['a\\b/c d,e=f.g%h 🍺', 1],
        ['ÄÖ 温度', 2],
      ],
      dropped: null,
    },
    'quotes, backslashes, slashes, spaces, commas, "=", dots, "%", unicode and emoji: stored as they are',
  );
  const long = 'x'.repeat(DEFAULT_LIMITS.maxNameLength + 1);
  const some = parseHistoryMessage(
    JSON.stringify({
      key: 'k',
      data: { ok: 1, 'line\nbreak': 2, tab: { 'a\tb': 3, c: 4 }, [long]: 5, z: { [long]: 6 } },
    }),
  );
  t.same(
    some,
    {
      ok: true,
      key: 'k',
      fields: [
        ['ok', 1],
        ['tab/c', 4],
      ],
      dropped: {
        counts: { 'field name holds a control character': 2, 'field name too long': 2 },
        example: 'line\nbreak',
      },
    },
    'control characters and names past the limit: those fields left out and counted, the rest stored',
  );
});

t.test(
  'the own message: with a memo, each block part is flattened once per object, with the same result as without',
  async (t) => {
    const memo = fieldsMemo();
    const sensor = { value: 20.5, offset: 0 };
    const pair = { value: 19.9, setting: 20, flags: { enabled: 1 }, list: { 0: 1.5, 1: 2.5 } };
    const message = (data: Record<string, unknown>) => ({ key: 'edge-one', data });
    const same = (data: Record<string, unknown>, name: string) => {
      const plain = historyFields(message(data));
      const memoised = historyFields(message(data), DEFAULT_LIMITS, memo);
      t.same(memoised, plain, name);
      if (plain.ok)
        t.same(
          plain.fields.map(([f]) => f),
          flatten(data)
            .filter(([f, v]) => toNumber(v) !== undefined && !/\p{Cc}/u.test(f))
            .map(([f]) => f),
          `${name}: in flatten's order`,
        );
      return memoised.ok ? memoised.fields : [];
    };
    const first = same(
      { sensor, 'pair 1': pair, 'a b': { x: 1 }, a: { y: 2 } },
      'nested parts, keys sorting around the slash: the plain result',
    );
    const second = same(
      { sensor, 'pair 1': { ...pair, value: 20.1 }, 'a b': { x: 1 }, a: { y: 2 } },
      'one part changed: the plain result',
    );
    const sensorField = (fields: Array<[string, number]>) => fields.find(([name]) => name === 'sensor/value');
    t.equal(
      sensorField(second),
      sensorField(first),
      'the unchanged part was not flattened again (its fields are the same objects)',
    );
    t.not(
      second.find(([name]) => name === 'pair 1/value'),
      first.find(([name]) => name === 'pair 1/value'),
      'the changed one was',
    );
    same({ renamed: sensor }, 'the same object under another key: flattened under that key');
    same({ sensor: { bad: 'x', 'q"uote': 1, 'line\nbreak': 2 } }, 'a dropped field: the same fields and drops');
    const wide = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [
        `b${i}`,
        Object.fromEntries(Array.from({ length: 100 }, (_, j) => [`f${j}`, j])),
      ]),
    );
    same(wide, 'more fields than a message may hold: refused alike');
    same({ scalar: 5, sensor }, 'a number at the top level, next to a part');
    same({ sensor: { bad: 'x', 'q"uote': 1, 'line\nbreak': 2 } }, 'a dropped field again, its check kept: the same');
  },
);

t.test(
  'the own message: a block part that changed is flattened along the paths built before, and paths of gone blocks are let go',
  async (t) => {
    const memo = fieldsMemo();
    const message = (data: Record<string, unknown>) => ({ key: 'edge-one', data });
    const fieldsOf = (data: Record<string, unknown>) => {
      const r = historyFields(message(data), DEFAULT_LIMITS, memo);
      return { kept: r, plain: historyFields(message(data)) };
    };
    const first = fieldsOf({ 'pair 1': { value: 19.9, setting: 20, list: [1.5, 2.5] } });
    t.same(first.kept, first.plain, 'the first message: the plain result');
    const node = memo.paths.kids?.get('pair 1')?.kids?.get('setting');
    t.equal(node?.path, 'pair 1/setting', 'the path is kept');
    t.equal(node?.problem, null, 'with its check');

    const second = fieldsOf({ 'pair 1': { value: 20.3, setting: 20, list: [1.5, 2.5] } });
    t.same(second.kept, second.plain, 'a changed part: the plain result');
    t.ok(
      second.kept.ok && second.kept.fields.some(([f, v]) => f === 'pair 1/value' && v === 20.3),
      'with the new value',
    );

    // A check the walk would make again gives null; the kept one is used, so the kept paths were walked.
    node!.problem = 'kept check';
    const third = fieldsOf({ 'pair 1': { value: 20.4, setting: 20, list: [1.5, 2.5] } });
    t.same(
      third.kept,
      {
        ok: true,
        key: 'edge-one',
        fields: [
          ['pair 1/list/0', 1.5],
          ['pair 1/list/1', 2.5],
          ['pair 1/value', 20.4],
        ],
        dropped: { counts: { 'kept check': 1 }, example: 'pair 1/setting' },
      },
      'a changed part is walked along the kept paths and their checks',
    );

    for (let i = 0; i < 50; i++) fieldsOf({ [`gone ${i}`]: { v: i }, keep: { v: 1 } });
    const size = memo.paths.kids?.size ?? 0;
    t.ok(size <= 2, `paths of entries a message no longer has are let go (${size} kept)`);
  },
);

t.test('half of a surrogate pair in a name: that field (or the key) left out, as UTF-8 cannot store it', async (t) => {
  const some = parseHistoryMessage('{"key":"k","data":{"ok":1,"cut \\ud83c":2,"big":9007199254740993}}');
  t.same(
    some,
    {
      ok: true,
      key: 'k',
      fields: [
        ['big', 9007199254740992],
        ['ok', 1],
      ],
      dropped: { counts: { 'field name holds half of a surrogate pair': 1 }, example: 'cut \ud83c' },
    },
    'the rest stored; an integer past 2^53 is a double here as everywhere in history',
  );
  const key = parseHistoryMessage('{"key":"cut \\ud83c","data":{"a":1}}');
  t.equal(key.ok, false);
  if (!key.ok) t.match(`${key.reason}: ${key.detail}`, /key not storable: .*surrogate/);
});
