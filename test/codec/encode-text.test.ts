// The two fast paths written straight from the field tables must give exactly what the object
// encoding gives: dataText the text of JSON.stringify(encodeData(..., 'default')), and
// loggedNumbers the history part numbersOnly(encodeData(..., 'logged')). Checked for every block
// type on random data of every field kind (nulls, odd numbers, text that needs escaping,
// optional sub-objects left out, arrays and maps), in both temperature units. The runtime's reads
// (meta, ids, the cache) are held to JSON.stringify of the objects in test/runtime/encode-cache.test.ts.
import t from 'tap';
import { blockTypes } from '../../src/blocks/index.js';
import { dataText, encodeData } from '../../src/codec/encode.js';
import type { Field, FieldTable } from '../../src/codec/fields.js';
import type { UnitPrefs } from '../../src/codec/units.js';
import { loggedNumbers, numbersOnly } from '../../src/codec/logged-numbers.js';

/** A small deterministic generator, so a failure names a seed that repeats it. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const ODD_NUMBERS = [
  0,
  -0,
  1e21,
  1e-7,
  -273.15,
  0.1 + 0.2,
  123456789.123,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
];
const ODD_TEXT = [
  '',
  'plain',
  'quote " and \\ backslash',
  'line\nbreak\ttab',
  'unicode °C ✓',
  '\u0000\u001f',
  '\ud800 lone surrogate',
  '12',
];

function value(field: Field, r: () => number, depth: number): unknown {
  const s = field.spec;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const orNull = (v: unknown) => (r() < 0.2 ? null : v);
  switch (s.kind) {
    case 'bool':
      return orNull(r() < 0.5);
    case 'number':
      return orNull(r() < 0.3 ? pick(ODD_NUMBERS) : s.integer ? Math.floor(r() * 1000) - 500 : (r() - 0.5) * 200);
    case 'quantity':
      return orNull(r() < 0.3 ? pick(ODD_NUMBERS) : (r() - 0.3) * 120);
    case 'enum':
      return s.default === null ? orNull(pick(Object.keys(s.values))) : pick(Object.keys(s.values));
    case 'string':
      return pick(ODD_TEXT);
    case 'address':
      return pick(['0000000000000000', '28ff4c3d1a160321']);
    case 'datetime':
      return orNull(r() * 2e9);
    case 'link':
      return orNull(pick(ODD_TEXT.filter(Boolean)));
    case 'object':
      return s.optional && r() < 0.3 ? undefined : data(s.fields, r, depth + 1);
    case 'variant': {
      const names = Object.keys(s.fields);
      const name = pick(names);
      return { [name]: value(s.fields[name]!, r, depth + 1) };
    }
    case 'array': {
      const n = depth > 3 ? 0 : Math.floor(r() * 4);
      return Array.from({ length: n }, () => value(s.of, r, depth + 1));
    }
    case 'map': {
      const n = depth > 3 ? 0 : Math.floor(r() * 3);
      return Object.fromEntries(
        Array.from({ length: n }, (_, i) => [pick(['b', 'a', '1', '0', `k${i}`]), value(s.of, r, depth + 1)]),
      );
    }
  }
}

function data(fields: FieldTable, r: () => number, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    const v = value(field, r, depth);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

const UNITS: UnitPrefs[] = [{ temperature: 'degC' }, { temperature: 'degF' }];

t.test('dataText writes what JSON.stringify of the default encoding writes, for every block type', async (t) => {
  let compared = 0;
  for (const def of blockTypes) {
    for (let seed = 1; seed <= 60; seed++) {
      const d = data(def.fields, rng(seed * 7919 + def.type.length));
      for (const prefs of UNITS) {
        const want = JSON.stringify(encodeData(def.fields, d, 'default', prefs));
        const got = dataText(def.fields, d, prefs);
        if (got !== want) {
          t.equal(got, want, `${def.type}, seed ${seed}, ${prefs.temperature}`);
          return;
        }
        compared++;
      }
    }
  }
  t.ok(compared >= blockTypes.length * 120, `${compared} encodings compared over ${blockTypes.length} block types`);
});

t.test('loggedNumbers gives the history part the logged encoding gives, for every block type', async (t) => {
  let compared = 0;
  let nonEmpty = 0;
  for (const def of blockTypes) {
    for (let seed = 1; seed <= 60; seed++) {
      const d = data(def.fields, rng(seed * 104729 + def.type.length));
      for (const prefs of UNITS) {
        const viaObjects = numbersOnly(encodeData(def.fields, d, 'logged', prefs));
        const want = viaObjects !== undefined && typeof viaObjects === 'object' ? viaObjects : undefined;
        const got = loggedNumbers(def.fields, d, prefs);
        // Compared as text: the history message is text, and key order is part of it.
        if (JSON.stringify(got) !== JSON.stringify(want)) {
          t.same(got, want, `${def.type}, seed ${seed}, ${prefs.temperature}`);
          return;
        }
        compared++;
        if (got !== undefined) nonEmpty++;
      }
    }
  }
  t.ok(compared >= blockTypes.length * 120, `${compared} history parts compared`);
  t.ok(nonEmpty > compared / 2, `most of them hold numbers (${nonEmpty})`);
});
