// Units in examples (issue 44, item 6): every example in README.md and docs/ that sends a
// temperature names its unit (`"storedSetting[degC]": 18`, or a Quantity with its `unit`), so it
// means the same after a switch to °F; a bare number there is in the user's unit, and
// `{"storedSetting": 18}` became 18 °F. Which fields are temperatures comes from the block field
// tables (a quantity whose unit follows the user's preference: temperature, temperature
// difference, per degree); the bodies are every JSON object in the pages' shell examples
// (`-d '...'`, `-m '...'`), JSON blocks and inline code.
import t from 'tap';
import { blockTypes } from '../../src/blocks/index.js';
import { parseKey } from '../../src/codec/decode.js';
import type { Field, FieldTable } from '../../src/codec/fields.js';
import { markdownPages, readPage } from '../helpers/markdown.js';

/** Units that follow the user's temperature preference. */
const USER_UNITS = new Set(['temp', 'deltaTemp', 'inverseTemp']);
const TABLES = new Map<string, FieldTable>(blockTypes.map((d) => [d.type, d.fields]));

const needsUnit = (field: Field | undefined) =>
  field?.spec.kind === 'quantity' && USER_UNITS.has(field.spec.unit) && !field.readonly;

/** Names of such fields in any table, at any depth: for a body that does not say its block type. */
const ANY_TEMPERATURE = new Set<string>();
function collect(fields: FieldTable): void {
  for (const [name, field] of Object.entries(fields)) {
    if (needsUnit(field)) ANY_TEMPERATURE.add(name);
    const s = field.spec;
    if (s.kind === 'object' || s.kind === 'variant') collect(s.fields);
    if ((s.kind === 'array' || s.kind === 'map') && (s.of.spec.kind === 'object' || s.of.spec.kind === 'variant'))
      collect(s.of.spec.fields);
  }
}
for (const table of TABLES.values()) collect(table);

/** The shell word starting at `i` (quotes removed; a double-quoted or $(...) part becomes "X"). */
function shellWord(text: string, i: number): string {
  let out = '';
  while (i < text.length && !/\s/.test(text[i]!)) {
    if (text[i] === "'") {
      const end = text.indexOf("'", i + 1);
      out += text.slice(i + 1, end);
      i = end + 1;
    } else if (text[i] === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      out += 'X';
      i = end + 1;
    } else out += text[i++];
  }
  return out;
}

interface Example {
  where: string;
  body: unknown;
}

/** Every JSON object an example on `page` sends or shows. */
function examples(page: string): Example[] {
  const text = readPage(page);
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const out: Example[] = [];
  const add = (json: string, index: number) => {
    try {
      const body = JSON.parse(json);
      if (body && typeof body === 'object') out.push({ where: `${page}:${lineOf(index)}`, body });
    } catch {
      // not JSON (a placeholder, a shell variable): nothing this test can read
    }
  };
  // Shell arguments: curl -d / --data, mosquitto_pub -m, with continuation lines joined.
  const joined = text.replace(/\\\n/g, ' ');
  for (const m of joined.matchAll(/(?:^|\s)(?:-d|--data|--data-raw|-m)\s+(?=['"])/g))
    add(shellWord(joined, m.index! + m[0].length), m.index!);
  // JSON blocks and inline code.
  for (const m of text.matchAll(/```json\n([\s\S]*?)```/g)) add(m[1]!, m.index!);
  for (const m of text.matchAll(/`(\{[^`\n]*\})`/g)) add(m[1]!, m.index!);
  return out;
}

/** Keys of `data` (of block `type`, or of any type when unknown) that send a temperature without its unit. */
function bareTemperatures(data: unknown, fields: FieldTable | null, path: string): string[] {
  if (Array.isArray(data)) return data.flatMap((item, i) => bareTemperatures(item, fields, `${path}.${i}`));
  if (data === null || typeof data !== 'object') return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    const { name, unit } = parseKey(key);
    const field = fields ? fields[name] : undefined;
    const isTemperature = fields ? needsUnit(field) : ANY_TEMPERATURE.has(name);
    const quantityWithUnit =
      value !== null && typeof value === 'object' && typeof (value as { unit?: unknown }).unit === 'string';
    if (isTemperature && typeof value === 'number' && unit === undefined) found.push(`${path}.${key}`);
    else if (isTemperature && value !== null && typeof value === 'object' && !quantityWithUnit && unit === undefined)
      found.push(`${path}.${key}`);
    const s = field?.spec;
    const inner =
      s?.kind === 'object' || s?.kind === 'variant'
        ? s.fields
        : (s?.kind === 'array' || s?.kind === 'map') && (s.of.spec.kind === 'object' || s.of.spec.kind === 'variant')
          ? s.of.spec.fields
          : null;
    if (value !== null && typeof value === 'object' && !quantityWithUnit)
      found.push(...bareTemperatures(value, fields ? inner : null, `${path}.${key}`));
  }
  return found;
}

/** Block bodies inside `body` (a block, a list of blocks, a backup): [type or null, data]. */
function blockData(body: unknown): Array<[string | null, unknown]> {
  if (Array.isArray(body)) return body.flatMap(blockData);
  if (body === null || typeof body !== 'object') return [];
  const o = body as Record<string, unknown>;
  if (o.data !== undefined && typeof o.data === 'object')
    return [[typeof o.type === 'string' ? o.type : null, o.data], ...blockData(o.blocks)];
  return blockData(o.blocks);
}

t.test('the checker finds what it is for', async (t) => {
  t.same(
    bareTemperatures({ storedSetting: 18 }, TABLES.get('SetpointSensorPair')!, 'data'),
    ['data.storedSetting'],
    'a bare setting',
  );
  t.same(
    bareTemperatures({ 'storedSetting[degC]': 18 }, TABLES.get('SetpointSensorPair')!, 'data'),
    [],
    'with its unit',
  );
  t.same(
    bareTemperatures(
      { storedSetting: { __bloxtype: 'Quantity', value: 18, unit: 'degC' } },
      TABLES.get('SetpointSensorPair')!,
      'data',
    ),
    [],
    'a Quantity with its unit',
  );
  t.same(
    bareTemperatures({ points: [{ time: 0, temperature: 18 }] }, TABLES.get('SetpointProfile')!, 'data'),
    ['data.points.0.temperature'],
    'a profile point',
  );
  t.same(bareTemperatures({ kp: 20 }, TABLES.get('Pid')!, 'data'), ['data.kp'], "a PID's gain (per degree)");
  t.same(
    bareTemperatures({ 'time[day]': 4, period: 4 }, TABLES.get('SetpointProfile')!, 'data'),
    [],
    'durations need none',
  );
  t.same(bareTemperatures({ storedSetting: 18 }, null, 'data'), ['data.storedSetting'], 'without the block type too');
  t.same(
    examples('docs/rest-api.md').length > 0 && shellWord(`'{"a": "'"$(date)"'"}'`, 0),
    '{"a": "X"}',
    'a shell splice becomes a placeholder',
  );
});

t.test('every doc example that sends a temperature names its unit', async (t) => {
  let checked = 0;
  const bare: string[] = [];
  for (const page of markdownPages())
    for (const ex of examples(page))
      for (const [type, data] of blockData(ex.body)) {
        checked++;
        const table = type ? (TABLES.get(type) ?? null) : null;
        for (const key of bareTemperatures(data, table, 'data')) bare.push(`${ex.where} ${type ?? '(no type)'} ${key}`);
      }
  t.ok(checked >= 8, `${checked} block bodies in the docs checked`);
  t.same(bare, [], 'temperatures without a unit (write `name[degC]`, or a Quantity with its unit)');
});
