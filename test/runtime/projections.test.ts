import t, { type Test } from 'tap';
import type { Field, FieldTable } from '../../src/codec/fields.js';
import { testRuntime } from '../helpers/runtime.js';

/** Expected keys of a projection, computed from the field table (the single source of truth). */
function expectedKeys(fields: FieldTable, mode: 'stored' | 'logged', units: Record<string, string>): string[] {
  return Object.entries(fields)
    .filter(([, f]) => (mode === 'stored' ? f.stored : f.logged))
    .filter(([, f]) => mode === 'stored' || !['link', 'string', 'address'].includes(f.spec.kind))
    .map(([name, f]) => (mode === 'logged' && f.spec.kind === 'quantity' ? `${name}[${units[f.spec.unit]}]` : name))
    .sort();
}

const UNITS = { temp: 'degC', deltaTemp: 'delta_degC', inverseTemp: '1 / degC', duration: 'second' };

function onlyNumbers(value: unknown, path: string, t: Test): void {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return;
  if (Array.isArray(value)) return value.forEach((v, i) => onlyNumbers(v, `${path}.${i}`, t));
  if (typeof value === 'object') {
    t.notOk('__objtype' in (value as object), `${path} holds no typed object`);
    for (const [k, v] of Object.entries(value as object)) onlyNumbers(v, `${path}.${k}`, t);
    return;
  }
  t.fail(`${path} holds a ${typeof value}`);
}

t.test('logged and stored projections of every block type follow its field table', async (t) => {
  const { runtime } = testRuntime();
  for (const def of runtime.types.values()) {
    const id = def.system ? def.system.id : `a ${def.type}`;
    if (!def.system) runtime.create({ id, type: def.type, data: {} });
    const stored = runtime.read({ id }, 'stored').json();
    const logged = runtime.read({ id }, 'logged').json();
    t.same(Object.keys(stored.data).sort(), expectedKeys(def.fields, 'stored', UNITS), `${def.type} stored keys`);
    t.same(Object.keys(logged.data).sort(), expectedKeys(def.fields, 'logged', UNITS), `${def.type} logged keys`);
    onlyNumbers(logged.data, `${def.type}`, t);
    for (const [name, field] of Object.entries(def.fields) as [string, Field][]) {
      if (field.stored && field.spec.kind === 'enum')
        t.type(stored.data[name], 'number', `${def.type}.${name} stored as an integer`);
    }
  }
});

t.test('nested flags: a stored list that is not logged disappears from logged output', async (t) => {
  const { runtime } = testRuntime();
  runtime.create({
    id: 'm',
    type: 'TempSensorMock',
    data: { setting: 20, fluctuations: [{ amplitude: 1, period: 60 }] },
  });
  const stored = runtime.read({ id: 'm' }, 'stored').json();
  const logged = runtime.read({ id: 'm' }, 'logged').json();
  t.same(stored.data.fluctuations, [
    {
      amplitude: { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'delta_degC', value: 1 },
      period: { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'second', value: 60 },
    },
  ]);
  t.notOk('fluctuations' in logged.data);
  t.ok('value[degC]' in logged.data);
});
