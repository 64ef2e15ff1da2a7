// The hint of a quantity sent as text ("3 C") tells how to send it: "put the unit in the key" is
// right for a field of an object (`"setting[degC]": 3`), but an item of a list or of a named map
// has no key of its own to carry a unit: such an item was told `"3[degC]": 3`, which no decoder
// takes there. It is now told to send a Quantity object. The same for a link in a named map.
import t from 'tap';
import { decodeData } from '../../src/codec/decode.js';
import { f } from '../../src/codec/fields.js';

const ctx = { prefs: { temperature: 'degC' as const }, checkLink: () => null };
const fields = {
  setting: f.temp({ stored: true }),
  temps: f.array(f.temp({ stored: true }), { stored: true }),
  named: f.map(f.temp({ stored: true }), { stored: true, keyPattern: /^[a-z]+$/, keyHint: 'a-z' }),
  links: f.map(f.link('Any', { stored: true }), { stored: true, keyPattern: /^[a-z]+$/, keyHint: 'a-z' }),
  points: f.array(f.object({ temperature: f.temp({ stored: true }) }), { stored: true }),
};
const issue = (data: unknown) => decodeData(fields, data, ctx).issues[0];

t.test('a field of an object: the unit in its key, or a Quantity', async (t) => {
  const i = issue({ setting: '20 C' });
  t.equal(i?.path, 'data.setting');
  t.match(i?.message, /put the unit in the key, "setting\[degC\]": 20, or send \{"value": 20, "unit": "degC"\}$/);
  t.same(decodeData(fields, { 'setting[degC]': 20 }, ctx).issues, [], 'as the hint says');
  const p = issue({ points: [{ temperature: '3 C' }] });
  t.match(p?.message, /"temperature\[degC\]": 3/, 'an object inside a list is an object');
  t.same(decodeData(fields, { points: [{ 'temperature[degC]': 3 }] }, ctx).issues, [], 'as the hint says');
});

t.test('an item of a list or a map: a Quantity object, never a key', async (t) => {
  for (const [data, path] of [
    [{ temps: [20, 21, 22, '3 C'] }, 'data.temps.3'],
    [{ named: { beer: '3 C' } }, 'data.named.beer'],
  ] as const) {
    const i = issue(data);
    t.equal(i?.path, path);
    t.match(i?.message, /got the string "3 C"; send it as a Quantity, \{"value": 3, "unit": "degC"\}$/, path);
    t.notMatch(i?.message, /\[degC\]/, `${path}: no key to put a unit in`);
  }
  const sent = { temps: [{ value: 3, unit: 'degC' }], named: { beer: { value: 3, unit: 'degC' } } };
  t.same(decodeData(fields, sent, ctx).issues, [], 'as the hint says');
});

t.test('a link in a named map: the Link object, not a key', async (t) => {
  const i = issue({ links: { beer: 5 } });
  t.equal(i?.path, 'data.links.beer');
  t.equal(i?.message, 'a link takes {"__objtype":"Link","id":"<block id>"}');
});
