// The glob matcher is linear (no backtracking blow-up), agrees with the RegExp it replaced, and
// the API caps id, namespace and filter lengths.
import t from 'tap';
import { globMatcher } from '../../src/store/datastore-glob.js';
import { datastoreApp } from './helpers.js';
import { limit } from '../helpers/limits.js';

// The former RegExp compilation, kept as an oracle for the semantics (fine on short inputs).
const escapeRe = (ch: string, inClass = false) =>
  /[\\^$.*+?()[\]{}|\/]/.test(ch) || (inClass && ch === '-') ? `\\${ch}` : ch;
function oracle(glob: string): RegExp {
  const chars = Array.from(glob);
  let re = '';
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '*') {
      while (chars[i + 1] === '*') i++;
      re += '.*';
    } else if (ch === '?') re += '.';
    else if (ch === '\\') re += escapeRe(i + 1 < chars.length ? chars[++i]! : '\\');
    else if (ch === '[') {
      let j = i + 1;
      const negate = chars[j] === '^';
      if (negate) j++;
      const parts: string[] = [];
      for (; j < chars.length; j++) {
        const c = chars[j]!;
        if (c === ']') break;
        if (c === '\\' && j + 1 < chars.length) parts.push(escapeRe(chars[++j]!, true));
        else if (j + 2 < chars.length && chars[j + 1] === '-') {
          let lo = c;
          let hi = chars[j + 2]!;
          if (lo.codePointAt(0)! > hi.codePointAt(0)!) [lo, hi] = [hi, lo];
          parts.push(`${escapeRe(lo, true)}-${escapeRe(hi, true)}`);
          j += 2;
        } else parts.push(escapeRe(c, true));
      }
      re += parts.length === 0 ? (negate ? '.' : '[^\\s\\S]') : `[${negate ? '^' : ''}${parts.join('')}]`;
      i = Math.min(j, chars.length - 1);
    } else re += escapeRe(ch);
  }
  return new RegExp(`^${re}$`, 'su');
}

t.test('agrees with the former RegExp on random globs and strings', async (t) => {
  let seed = 12345;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const pick = (alphabet: string[], max: number) =>
    Array.from({ length: rand(max + 1) }, () => alphabet[rand(alphabet.length)]!).join('');
  const globChars = ['a', 'b', ':', '*', '?', '[', ']', '^', '-', '\\', '.', '𝔸', '\n'];
  const textChars = ['a', 'b', ':', '-', ']', '\\', '^', '[', '*', '𝔸', '\n', 'z'];
  let checked = 0;
  const mismatches: string[] = [];
  for (let g = 0; g < 3000; g++) {
    const glob = pick(globChars, 8);
    const m = globMatcher(glob);
    const re = oracle(glob);
    for (let k = 0; k < 20; k++) {
      const s = pick(textChars, 8);
      checked++;
      if (m(s) !== re.test(s) && mismatches.length < 10)
        mismatches.push(`${JSON.stringify(glob)} vs ${JSON.stringify(s)}: ${m(s)}`);
    }
  }
  t.same(mismatches, [], `${checked} glob/string pairs agree`);
});

t.test('a pathological glob on a long id answers at once', async (t) => {
  const long = 'a'.repeat(3000);
  const cases: [glob: string, s: string, expected: boolean][] = [
    ['*a*a*a*a*b', long, false],
    ['*a*a*a*a*b', long + 'b', true],
    ['*a*a*a*a*a*a*a*a*a*a*b', long, false],
    ['*?*?*?*?*?*?*?*?*b', long, false],
    ['*[a]*[^b]*a*a*[a-c]*a*a', long, true],
    ['*a*a*a*a*b*', long + 'b' + long, true],
    ['a*'.repeat(250) + 'b', long, false],
  ];
  for (const [glob, s, expected] of cases) {
    const start = performance.now();
    const got = globMatcher(glob)(s);
    const ms = performance.now() - start;
    t.equal(got, expected, `${glob.slice(0, 30)} on ${s.length} characters is ${expected}`);
    t.ok(ms < limit(1000), `answered in ${ms.toFixed(1)} ms`);
  }
});

t.test('the API caps id at 200, namespace at 500 and filter at 500 characters', async (t) => {
  const { ds, close } = await datastoreApp();
  t.teardown(close);
  const refused = async (op: string, body: unknown, path: string) => {
    const res = await ds(op, body);
    t.equal(res.status, 422, `${op} with a long ${path} is 422`);
    t.same(
      (res.body?.validation ?? []).map((v: { path: string }) => v.path),
      [path],
      `names ${path}`,
    );
    t.match(res.body?.message, `${path}: must be at most`, 'the message names the field and the cap');
    t.ok((res.body?.message ?? '').length < 300, 'the long value is not echoed');
  };
  const id200 = 'i'.repeat(200);
  const ns500 = 'n'.repeat(250) + ':' + 'm'.repeat(249);
  const astral = '𝔸'.repeat(200); // 400 UTF-16 units, 200 characters

  t.equal(
    (await ds('set', { value: { namespace: ns500, id: id200 } })).status,
    200,
    'id of 200 and namespace of 500 are fine',
  );
  t.equal(
    (await ds('set', { value: { namespace: 'n', id: astral } })).status,
    200,
    'the cap counts characters, not UTF-16 units',
  );
  await refused('set', { value: { namespace: 'n', id: id200 + 'i' } }, 'value.id');
  await refused('set', { value: { namespace: ns500 + 'n', id: 'x' } }, 'value.namespace');
  await refused(
    'mset',
    {
      values: [
        { namespace: 'n', id: 'ok' },
        { namespace: 'n', id: astral + '𝔸' },
      ],
    },
    'values.1.id',
  );
  for (const op of ['get', 'delete']) {
    await refused(op, { namespace: 'n', id: id200 + 'i' }, 'id');
    await refused(op, { namespace: ns500 + 'n', id: 'x' }, 'namespace');
  }
  for (const op of ['mget', 'mdelete']) {
    await refused(op, { namespace: 'n', ids: ['ok', id200 + 'i'] }, 'ids.1');
    await refused(op, { namespace: ns500 + 'n' }, 'namespace');
    await refused(op, { namespace: '', filter: '*'.repeat(501) }, 'filter');
  }
  t.same((await ds('get', { namespace: ns500, id: id200 })).body.value, { namespace: ns500, id: id200 });

  // The longest filter against the longest keys stays quick through the API.
  await ds('mset', { values: Array.from({ length: 20 }, (_, i) => ({ namespace: 'p', id: 'a'.repeat(190) + i })) });
  const filter = '*a'.repeat(250).slice(0, 499) + 'b';
  const start = performance.now();
  const res = await ds('mget', { namespace: '', filter });
  t.equal(res.status, 200);
  t.same(res.body.values, [], 'nothing ends in b');
  t.ok(performance.now() - start < limit(1000), 'a 500-character pathological filter answers at once');
  t.same((await ds('mget', { namespace: 'p', filter: '*a*a*a*a*1?' })).body.values.length, 10, 'a*…a1x ids match');
});
