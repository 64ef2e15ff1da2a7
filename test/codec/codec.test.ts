import t from 'tap';
import { complete as completeWritable, merge, withReadonly, writable } from '../../src/codec/apply.js';
import { decodeData } from '../../src/codec/decode.js';
import { RESET } from '../../src/codec/partial.js';
import { dataText, encodeData } from '../../src/codec/encode.js';
import { f } from '../../src/codec/fields.js';
import { fromInternal, toInternal, type UnitPrefs } from '../../src/codec/units.js';

const Color = { RED: 0, GREEN: 1, BLUE: 7 } as const;

// One field of every kind, nested objects and arrays included.
const fields = {
  flag: f.bool({ stored: true, logged: true }),
  count: f.number({ stored: true, logged: true, integer: true }),
  ratio: f.number({ stored: true }),
  temp: f.temp({ stored: true, logged: true }),
  delta: f.deltaTemp({ stored: true }),
  gain: f.quantity('inverseTemp', { stored: true }),
  period: f.duration({ stored: true, logged: true }),
  color: f.enum(Color, { stored: true, logged: true }),
  label: f.string({ stored: true }),
  address: f.address({ stored: true }),
  start: f.datetime({ stored: true, logged: true }),
  target: f.link('TempSensorInterface', { stored: true }),
  computed: f.temp({ readonly: true, logged: true }),
  nested: f.object(
    { enabled: f.bool({ stored: true }), value: f.temp({ stored: true }), limiting: f.bool({ readonly: true }) },
    { stored: true },
  ),
  maybe: f.optionalObject({ value: f.number({ stored: true }) }, { stored: true }),
  points: f.array(
    f.object({ time: f.duration({ stored: true }), temperature: f.temp({ stored: true, logged: true }) }),
    { stored: true, logged: true },
  ),
  sensors: f.array(f.link('TempSensorInterface'), { stored: true }),
};

/** Full block data: writable values plus read-only fields at their defaults. */
const complete = (table: typeof fields, given: Record<string, unknown>) =>
  withReadonly(table, undefined, completeWritable(table, given));

const degC: UnitPrefs = { temperature: 'degC' };
const degF: UnitPrefs = { temperature: 'degF' };
const ctx = (prefs: UnitPrefs, known = ['s1', 's2']) => ({
  prefs,
  checkLink: (id: string) => (known.includes(id) ? null : `block '${id}' does not exist`),
});

const sample = {
  flag: true,
  count: 3,
  ratio: 0.25,
  temp: 21.5,
  delta: 1.5,
  gain: 20,
  period: 600,
  color: 'BLUE',
  label: 'beer',
  address: '28ff0011223344aa',
  start: 1767225600,
  target: 's1',
  nested: { enabled: true, value: 65 },
  maybe: { value: 4 },
  points: [
    { time: 0, temperature: 20 },
    { time: 3600, temperature: 18 },
  ],
  sensors: ['s1', 's2'],
};

for (const prefs of [degC, degF]) {
  t.test(`every field kind round-trips through default encoding (${prefs.temperature})`, async (t) => {
    const full = complete(fields, sample);
    const out = encodeData(fields, full, 'default', prefs);
    const { value, issues } = decodeData(fields, out, ctx(prefs));
    t.same(issues, []);
    const back = completeWritable(fields, value);
    for (const k of ['temp', 'delta', 'gain'] as const)
      t.ok(Math.abs((back[k] as number) - sample[k]) < 1e-6, `${k} survives`);
    t.same(
      { ...back, temp: 0, delta: 0, gain: 0, nested: { ...(back.nested as object), value: 0 }, points: 0 },
      { ...sample, temp: 0, delta: 0, gain: 0, nested: { ...sample.nested, value: 0 }, points: 0 },
    );
    t.ok(Math.abs((back.nested as { value: number }).value - 65) < 1e-6);
    t.same(
      (back.points as { time: number }[]).map((p) => p.time),
      [0, 3600],
    );
  });

  t.test(`stored encoding round-trips and uses integers for enums (${prefs.temperature})`, async (t) => {
    const full = complete(fields, sample);
    const stored = encodeData(fields, full, 'stored', prefs);
    t.equal(stored.color, 7);
    t.notOk('computed' in stored, 'read-only fields are not stored');
    t.same(
      stored.nested as object,
      { enabled: true, value: (stored.nested as { value: unknown }).value },
      'read-only limiting left out of stored',
    );
    const { value, issues } = decodeData(fields, stored, ctx(prefs));
    t.same(issues, []);
    t.same(encodeData(fields, complete(fields, value), 'stored', prefs), stored);
  });
}

t.test('quantities come out in the user unit', async (t) => {
  const full = complete(fields, sample);
  const c = encodeData(fields, full, 'default', degC);
  const fo = encodeData(fields, full, 'default', degF);
  t.same(c.temp, { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'degC', value: 21.5 });
  t.same(fo.temp, { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'degF', value: 70.7 });
  t.same(fo.delta, { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'delta_degF', value: 2.7 });
  t.same(fo.gain, {
    __objtype: 'Quantity',
    __bloxtype: 'Quantity',
    unit: '1 / degF',
    value: fromInternal(20, 'inverseTemp', degF),
  });
  t.same(c.period, { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'second', value: 600 });
  t.same(c.computed, { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'degC', value: null, readonly: true });
  t.same(c.target, { __objtype: 'Link', __bloxtype: 'Link', type: 'TempSensorInterface', id: 's1' });
  t.equal(c.address, '28ff0011223344aa');
  t.equal(c.start, '2026-01-01T00:00:00Z');
  t.equal(c.color, 'BLUE');
});

t.test('bare numbers mean the user unit; explicit units and postfixed keys convert', async (t) => {
  const dec = (input: object, prefs = degC) => decodeData(fields, input, ctx(prefs));
  t.equal(dec({ temp: 68 }, degF).value.temp, 20);
  t.equal(dec({ temp: 20 }, degC).value.temp, 20);
  t.equal(dec({ 'temp[degF]': 68 }).value.temp, 20);
  t.equal(dec({ temp: { __objtype: 'Quantity', value: 68, unit: 'degF' } }).value.temp, 20);
  t.equal(dec({ temp: { __bloxtype: 'Quantity', value: 68, unit: 'degF' } }).value.temp, 20, '__bloxtype alias');
  t.equal(dec({ temp: { __objtype: 'Quantity', value: 68 } }, degF).value.temp, 20, 'no unit: user unit');
  t.equal(dec({ 'delta[delta_degF]': 9 }).value.delta, 5);
  for (const [unit, seconds] of [
    ['ms', 1.5],
    ['s', 1500],
    ['second', 1500],
    ['min', 90000],
    ['minute', 90000],
    ['h', 5400000],
    ['hour', 5400000],
  ] as const) {
    t.equal(dec({ [`period[${unit}]`]: 1500 }).value.period, seconds, `1500 ${unit}`);
  }
  t.equal(dec({ 'target<>': 's2' }).value.target, 's2');
  t.equal(dec({ 'target<TempSensorInterface>': 's2' }).value.target, 's2');
  t.equal(dec({ target: { __objtype: 'Link', id: 's2' } }).value.target, 's2');
  t.equal(dec({ target: { __objtype: 'Link', id: null } }).value.target, RESET);
  t.equal(dec({ color: 1 }).value.color, 'GREEN', 'enum by number');
  t.equal(dec({ address: 'FF' }).value.address, 'ff00000000000000');
  t.equal(dec({ start: 1767225600000 }).value.start, 1767225600, 'epoch milliseconds');
  t.equal(dec({ start: '2026-01-01T01:00:00+01:00' }).value.start, 1767225600, 'ISO with offset');
  t.equal(dec({ count: 3 }).value.count, 3);
});

t.test('bad values are named with their path', async (t) => {
  const issues = (input: object) => decodeData(fields, input, ctx(degC)).issues;
  t.match(issues({ temp: 'warm' }), [{ path: 'data.temp', message: /number/ }]);
  t.match(issues({ temp: { __objtype: 'Quantity', value: 1, unit: 'kelvin' } }), [
    { path: 'data.temp', message: /unknown unit 'kelvin'/ },
  ]);
  t.match(issues({ 'period[degC]': 1 }), [{ path: 'data.period', message: /not a duration unit/ }]);
  t.match(issues({ 'label[degC]': 1 }), [{ path: 'data.label', message: /takes no unit/ }]);
  t.match(issues({ nope: 1 }), [{ path: 'data.nope', message: /unknown field/ }]);
  t.match(issues({ color: 'PURPLE' }), [{ path: 'data.color', message: /RED, GREEN, BLUE/ }]);
  t.match(issues({ flag: 1 }), [{ path: 'data.flag' }]);
  t.match(issues({ target: 'name' }), [{ path: 'data.target', message: /target<>/ }]);
  t.match(issues({ 'target<>': 'missing' }), [{ path: 'data.target', message: /does not exist/ }]);
  t.match(issues({ address: 'xyz' }), [{ path: 'data.address' }]);
  t.match(issues({ nested: { value: 'x' } }), [{ path: 'data.nested.value' }]);
  t.match(issues({ points: [{ time: -1 }] }), [{ path: 'data.points.0.time', message: /negative/ }]);
  t.match(issues({ start: 'yesterday' }), [{ path: 'data.start' }]);
  t.same(issues({ computed: 'ignored, read-only' }), [], 'read-only input is ignored, whatever its value');
  t.match(
    issues({ count: 1.5 }),
    [{ path: 'data.count', message: /whole number/ }],
    'integer fields do not round: channel 1.5 is not channel 2',
  );
  t.match(issues({ ratio: 1e308 }), [{ path: 'data.ratio', message: /between/ }]);
  t.match(issues({ 'temp[degF]': 1e308 }), [{ path: 'data.temp', message: /out of range/ }]);
  t.match(issues({ 'period[h]': 1e308 }), [{ path: 'data.period', message: /out of range/ }]);
  t.match(issues({ start: 1e20 }), [{ path: 'data.start' }], 'dates past the year 9999');
});

t.test('write completes with defaults; patch deep-merges, replaces arrays, resets on null', async (t) => {
  const current = writable(fields, complete(fields, sample));
  const written = complete(fields, { temp: 10 });
  t.equal(written.temp, 10);
  t.equal(written.count, 0, 'omitted fields take their default');
  t.equal(written.maybe, undefined, 'optional sub-object absent');
  const p = (input: object) => merge(fields, current, decodeData(fields, input, ctx(degC)).value);
  t.same(p({ nested: { enabled: false } }).nested, { enabled: false, value: 65 }, 'objects merge');
  t.same(p({ points: [{ time: 5 }] }).points, [{ time: 5, temperature: 0 }], 'arrays replace');
  t.equal(p({ maybe: null }).maybe, undefined, 'null removes an optional sub-object');
  t.equal(p({ temp: null }).temp, 0, 'null resets a field to its default');
  t.equal(p({ count: 9 }).temp, 21.5, 'other fields untouched');
});

t.test('logged encoding: postfixed quantities, integer enums, epoch datetimes, no links or strings', async (t) => {
  const full = complete(fields, sample);
  const logged = encodeData(fields, full, 'logged', degF);
  t.same(
    Object.keys(logged).sort(),
    ['color', 'computed[degF]', 'count', 'flag', 'period[second]', 'points', 'start', 'temp[degF]'].sort(),
  );
  t.equal(logged['temp[degF]'], 70.7);
  t.equal(logged.color, 7);
  t.equal(logged.start, 1767225600);
  t.same(logged.points, [{ 'temperature[degF]': 68 }, { 'temperature[degF]': 64.4 }]);
});

t.test('unit conversion helpers are inverse of each other', async (t) => {
  for (const v of [-40, 0, 18.25, 100]) {
    t.equal(fromInternal(toInternal(v, 'temp', degF), 'temp', degF), v);
    t.equal(fromInternal(toInternal(v, 'deltaTemp', degF), 'deltaTemp', degF), v);
  }
  t.throws(() => toInternal(1, 'temp', degC, 'm'), /unknown unit/);
});

t.test(
  'a difference sent in degrees, as the range messages write it, is that many degrees of difference',
  async (t) => {
    // "must be between 0.05 °C and 10 °C": sending back "0.5 °C" was refused as not a difference unit.
    t.equal(toInternal(0.5, 'deltaTemp', degC, '°C'), 0.5);
    t.equal(toInternal(0.5, 'deltaTemp', degF, 'degC'), 0.5);
    t.equal(toInternal(9, 'deltaTemp', degC, '°F'), 5, 'a difference in °F is scaled, not shifted by 32');
    t.equal(toInternal(9, 'deltaTemp', degC, 'F'), 5);
    t.equal(decodeData(fields, { delta: { value: 0.9, unit: 'degF' } }, ctx(degC)).value.delta, 0.5);
    t.throws(() => toInternal(1, 'temp', degC, 'delta_degC'), /not a temperature unit/, 'not the other way round');
  },
);

t.test('a string the runtime made longer than its field is encoded clipped, and decodes again', async (t) => {
  const table = { note: f.string({ stored: true, readonly: true, maxLength: 10 }) };
  const prefs = degC;
  const encoded = (note: string) => encodeData(table, { note }, 'stored', prefs).note as string;
  t.equal(encoded('0123456789'), '0123456789', 'at the limit: as it is');
  t.equal(encoded('0123456789ab'), '012345678\u2026', 'over it: clipped, with an ellipsis');
  // An emoji is two UTF-16 units: the cut does not fall between them.
  const emoji = encoded('01234567\u{1F37A}xyz');
  t.equal(emoji, '01234567\u2026', `not half an emoji: ${JSON.stringify(emoji)}`);
  for (const text of ['0123456789ab', '01234567\u{1F37A}xyz', 'x'.repeat(1000)]) {
    const { issues } = decodeData(table, { note: encoded(text) }, { prefs, checkLink: () => null, owned: true });
    t.same(issues, [], `${text.length} characters: what is stored decodes again`);
    // The fast text of a read (REST, the MQTT state) is clipped the same way.
    t.equal(
      dataText(table, { note: text }, prefs),
      JSON.stringify(encodeData(table, { note: text }, 'default', prefs)),
      `${text.length} characters: read text and object encoding agree`,
    );
  }
});
