// A quantity sent as text with E notation ("1e3 C") is told how to send it; one past what a double
// holds ("1e400 C") was told to send `"setting[degC]": Infinity` or `{"value": Infinity, ...}`, which
// is not JSON, and no body could follow it. Such a text now gets no "send it so" hint: it is told
// the number is too large, as the number 1e400 is.
import t from 'tap';
import { decodeData } from '../../src/codec/decode.js';
import { f } from '../../src/codec/fields.js';

const ctx = { prefs: { temperature: 'degC' as const }, checkLink: () => null };
const fields = { setting: f.temp({ stored: true }), temps: f.array(f.temp({ stored: true }), { stored: true }) };
const issue = (data: unknown) => decodeData(fields, data, ctx).issues[0];

t.test('a hint is JSON a client can send', async (t) => {
  for (const text of ['1e400 C', '-1e400 ºC', '1e999 degF', '1e309 C']) {
    for (const [data, path] of [
      [{ setting: text }, 'data.setting'],
      [{ temps: [text] }, 'data.temps.0'],
    ] as const) {
      const i = issue(data);
      t.equal(i?.path, path, `${text} at ${path} is refused`);
      t.notMatch(i?.message, /Infinity|NaN/, `${text} at ${path}: no hint a JSON body cannot carry`);
      t.match(i?.message, /too large/, `${text} at ${path}: said too large`);
    }
  }
  const ok = issue({ setting: '1e3 C' });
  t.match(ok?.message, /"setting\[degC\]": 1000/, 'a number a double holds keeps its hint');
});
