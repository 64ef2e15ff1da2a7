// Block bodies generated from the block types' field tables, for the property tests of "one
// schema per input shape" (DESIGN §10, §11): for every writable field of every type, the values a
// client may send at the edges of what the table declares (the bounds and one past them, 0 and
// -0, fractions where whole numbers are asked, numbers beyond 2^53 and MAX_MAGNITUDE, NaN and
// Infinity as strings, the other units of a quantity and Brewblox's typed objects, enum names
// and numbers out of range, links to missing blocks and to blocks of another type, the wrong
// shape at every depth) plus seeded random ones. The seed is in the test's name;
// EDGEBLOCKS_TEST_VALUES_SEED repeats a run.
import { seeded } from '../../drivers/sim/seeded.js';
import { MAX_MAGNITUDE } from '../../src/codec/decode.js';
import type { Field, FieldSpec } from '../../src/codec/fields.js';
import { implementsIface, type BlockTypeDef } from '../../src/runtime/types.js';

export function valuesSeed(): number {
  const given = process.env.EDGEBLOCKS_TEST_VALUES_SEED;
  return given ? Number(given) : Math.floor(Math.random() * 2 ** 31);
}

/** A value of one field: as a plain value, or under a postfixed key (`name[degF]`, `name<>`). */
export type Given =
  | { value: unknown }
  | { unit: string; value: unknown }
  | { link: 'missing' | 'wrong' | 'right' | 'raw'; value?: unknown };

const WRONG_SHAPES: readonly unknown[] = ['NaN', 'Infinity', '-Infinity', '1e999', '12', '', true, [], {}, [1]];

const UNITS: Record<string, string[]> = {
  temp: ['degC', 'degF', 'celsius', 'delta_degC', 'delta_degF', 'K', 'second'],
  deltaTemp: ['delta_degC', 'delta_degF', 'degC', 'degF'],
  inverseTemp: ['1/degC', '1/degF', 'degC'],
  duration: ['ms', 's', 'min', 'h', 'd', 'degC'],
};

type NumberSpec = Extract<FieldSpec, { kind: 'number' | 'quantity' }>;

function numbers(s: NumberSpec, rand: () => number): number[] {
  const out = [0, -0, 1, -1, 0.5, MAX_MAGNITUDE, -MAX_MAGNITUDE, MAX_MAGNITUDE + 1, 2 ** 53 + 2, -(2 ** 53) - 2, 1e300];
  if (s.min !== undefined) out.push(s.min, s.min - 1, s.min - 1e-6);
  if (s.max !== undefined) out.push(s.max, s.max + 1, s.max + 1e-6);
  if (s.kind === 'number' && s.integer) out.push(1.5, 7.000001);
  const lo = s.min ?? -1000;
  const hi = s.max ?? 1000;
  for (let i = 0; i < 3; i++) out.push(Math.round((lo + rand() * (hi - lo)) * 1000) / 1000);
  return out;
}

/** How many values of each sub-field (an object's member, a list's item) a run takes. */
const NESTED_SAMPLE = 10;

/** `n` items of `list` picked by `rand`, in their order. */
function sample<T>(list: T[], n: number, rand: () => number): T[] {
  if (list.length <= n) return list;
  const picked = new Set<number>();
  while (picked.size < n) picked.add(Math.floor(rand() * list.length));
  return [...picked].sort((a, b) => a - b).map((i) => list[i]!);
}

/** Every value the generator makes for `field` (at most `depth` levels of sub-objects deep). */
export function fieldValues(field: Field, rand: () => number, depth = 0): Given[] {
  const s = field.spec;
  const plain = (list: readonly unknown[]): Given[] => list.map((value) => ({ value }));
  // A sub-field's values: a seeded sample (every run a few, the seed says which).
  const nested = (sub: Field): unknown[] =>
    depth < 2
      ? sample(
          fieldValues(sub, rand, depth + 1).flatMap((g) => ('link' in g || 'unit' in g ? [] : [g.value])),
          NESTED_SAMPLE,
          rand,
        )
      : [];
  switch (s.kind) {
    case 'bool':
      return plain([true, false, 0, 1, 'true', null, []]);
    case 'number':
      return plain([...numbers(s, rand), ...WRONG_SHAPES, null]);
    case 'quantity': {
      const out = plain([...numbers(s, rand), ...WRONG_SHAPES, null]);
      const units = UNITS[s.unit]!;
      const edge = [s.min, s.max].filter((n): n is number => n !== undefined);
      for (const unit of units)
        for (const n of [0, -1, 20.5, 302, -459.67, -40, 1e8, ...edge])
          out.push({ value: { __bloxtype: 'Quantity', unit, value: n } });
      out.push(
        ...plain([
          { __objtype: 'Quantity', value: null, unit: 'degC' },
          { __objtype: 'Quantity', value: '20' },
          { __objtype: 'Link', id: 'x' },
          { __bloxtype: 'Quantity', unit: 5, value: 1 },
          { value: 3 },
        ]),
      );
      for (const unit of units) out.push({ unit, value: Math.round(rand() * 2000 - 1000) / 10 });
      out.push({ unit: 'kelvin', value: 1 }, { unit: units[0]!, value: 1e12 });
      return out;
    }
    case 'enum': {
      const names = Object.keys(s.values);
      const nums = Object.values(s.values);
      return plain([
        ...names,
        ...nums,
        Math.max(...nums) + 1,
        -1,
        0.5,
        'NOPE',
        names[0]!.toLowerCase(),
        ...Object.keys(s.aliases ?? {}),
        null,
        [],
        {},
      ]);
    }
    case 'string':
      return plain([
        '',
        'é🍺',
        'x'.repeat(s.maxLength),
        'x'.repeat(s.maxLength + 1),
        '🍺'.repeat(Math.floor(s.maxLength / 2)),
        5,
        null,
        {},
      ]);
    case 'address':
      return plain(['', '0', 'ABCDEF', '2801d00000000001', '2801d000000000011', 'zz', 5, null]);
    case 'datetime':
      return plain([
        0,
        -1,
        1e11,
        1e11 + 1,
        253402300799,
        253402300800,
        253402300800000,
        '2024-01-01T00:00:00Z',
        '+010000-01-01T00:00:00Z',
        'yesterday',
        '',
        1.5,
        null,
        'NaN',
        true,
      ]);
    case 'link':
      return [
        { link: 'missing' },
        { link: 'wrong' },
        { link: 'right' },
        { link: 'raw', value: '' },
        { link: 'raw', value: 0 },
        { link: 'raw', value: 12.5 },
        ...plain([
          { __bloxtype: 'Link', id: 'missing' },
          { __bloxtype: 'Link', id: null },
          { __bloxtype: 'Link', id: 0 },
          { __objtype: 'Link', id: '' },
          { __bloxtype: 'Quantity', id: 'x' },
          'bare',
          0,
          null,
        ]),
      ];
    case 'object': {
      const out = plain([{}, null, [], 'x', 5, { unknownField: 1 }]);
      for (const [name, sub] of Object.entries(s.fields))
        if (!sub.readonly) out.push(...nested(sub).map((v) => ({ value: { [name]: v } })));
      return out;
    }
    case 'array': {
      // The wrong shape as an item, and every item value the item's own table makes.
      const out = plain([[], null, {}, [null], [[]], ['x'], [5], new Array(s.maxItems + 1).fill(0)]);
      out.push(...nested(s.of).flatMap((v) => (v === null ? [] : [{ value: [v] }])));
      return out;
    }
    case 'map': {
      const out = plain([{}, null, [], { 'bad name!': {} }, { a: null }]);
      out.push(...nested(s.of).map((v) => ({ value: { a: v } })));
      return out;
    }
    case 'variant': {
      const out = plain([{}, null, { temp: 1, analog: 2 }]);
      for (const [name, sub] of Object.entries(s.fields))
        out.push(...nested(sub).map((v) => ({ value: { [name]: v } })));
      return out;
    }
  }
}

/** A body to create: a block of `type` with only the one field given. */
export interface Generated {
  id: string;
  nid: number;
  type: string;
  field: string;
  data: Record<string, unknown>;
}

/**
 * The bodies for every writable field of every creatable type. `targets` names one block of each
 * type that exists (the links' targets: 'right' is one that implements the link's interface,
 * 'wrong' one that does not).
 */
export function generateBodies(
  types: readonly BlockTypeDef<any, any>[],
  targets: ReadonlyMap<string, string>,
  seed: number,
  firstNid: number,
): Generated[] {
  const rand = seeded(seed);
  const target = (iface: string, right: boolean) => {
    for (const def of types)
      if (!def.system && targets.has(def.type) && implementsIface(def, iface) === right) return targets.get(def.type)!;
    return 'no such block';
  };
  const out: Generated[] = [];
  const seen = new Set<string>();
  for (const def of types) {
    if (def.system) continue;
    for (const [name, field] of Object.entries(def.fields as Record<string, Field>)) {
      if (field.readonly) continue;
      for (const g of fieldValues(field, rand)) {
        let data: Record<string, unknown>;
        if ('link' in g) {
          const iface = (field.spec as { iface: string }).iface;
          const id =
            g.link === 'raw' ? g.value : g.link === 'missing' ? 'no such block' : target(iface, g.link === 'right');
          data = { [`${name}<>`]: id };
        } else if ('unit' in g) data = { [`${name}[${g.unit}]`]: g.value };
        else data = { [name]: g.value };
        const key = `${def.type} ${JSON.stringify(data)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const n = out.length;
        out.push({ id: `${def.type} ${n}`, nid: firstNid + n, type: def.type, field: name, data });
      }
    }
  }
  return out;
}
