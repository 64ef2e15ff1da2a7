// Every number setting of the config file says what its number is in: a refusal of
// `alerts.retryBaseMs` said "must be an integer 10-2147483647, got 5s" and left a brewer to
// guess whether 5 meant seconds. The unit is declared beside the number in the schema
// (drivers/schema-check.ts words it); numbers that are not amounts of anything (a port, a line,
// a count of things named by the key) are listed here by name, so a new timing added without
// its unit fails this test.
import t from 'tap';
import type { TSchema } from '@sinclair/typebox';
import type { NumberUnit } from '../../drivers/schema-check.js';
import { checkConfigDocument, ConfigSchema } from '../../src/config-schema.js';

/** Numbers that count or name something rather than measure it: no unit to say. */
const UNITLESS = new Set([
  'port',
  'httpsPort',
  'mqttPort',
  'backupKeep',
  'gpio[].line',
  'alerts.email.port',
  'alerts.outboxLimit',
  'alerts.historyLimit',
]);

/** Every number or integer in the schema, by its path (`alerts.rules.blocks.*.after`). */
function numbers(schema: TSchema, at: string): Array<[string, TSchema]> {
  const s = schema as TSchema & Record<string, unknown>;
  if (s.type === 'integer' || s.type === 'number') return [[at, schema]];
  const out: Array<[string, TSchema]> = [];
  const join = (k: string) => (at ? `${at}.${k}` : k);
  for (const [k, v] of Object.entries((s.properties as Record<string, TSchema>) ?? {}))
    out.push(...numbers(v, join(k)));
  for (const v of Object.values((s.patternProperties as Record<string, TSchema>) ?? {}))
    out.push(...numbers(v, join('*')));
  if (s.items) out.push(...numbers(s.items as TSchema, `${at}[]`));
  for (const v of (s.anyOf as TSchema[] | undefined) ?? []) out.push(...numbers(v, at));
  return out;
}

const all = numbers(ConfigSchema, '');

t.test('every number setting declares its unit, or is a count or a name', async (t) => {
  t.ok(all.length > 20, `found ${all.length} number settings`);
  for (const [at, schema] of all) {
    const unit = (schema as { unit?: NumberUnit }).unit;
    if (UNITLESS.has(at)) {
      t.equal(unit, undefined, `${at}: a count or a name, no unit`);
      continue;
    }
    t.ok(unit, `${at}: declares its unit`);
    // A key that names its unit says the same one.
    const named = /Ms$/.test(at)
      ? 'milliseconds'
      : /Seconds$/.test(at)
        ? 'seconds'
        : /Hours$/.test(at)
          ? 'hours'
          : /Bytes$/.test(at)
            ? 'bytes'
            : /Percent$/.test(at)
              ? 'percent'
              : undefined;
    if (named) t.equal(unit?.name, named, `${at}: the unit its key names`);
  }
});

/** The refusal of one bad value at a path of the config file. */
function refusal(path: string, value: unknown): string {
  const doc: Record<string, unknown> = {};
  let here = doc;
  const keys = path.split('.');
  for (const k of keys.slice(0, -1)) here = here[k] = k === 'heartbeat' ? { url: 'https://hc-ping.com/x' } : {};
  here[keys.at(-1)!] = value;
  const { issues } = checkConfigDocument(doc);
  return issues.map((i) => `${i.path}: ${i.message}`).join('; ');
}

t.test('a refusal names the unit', async (t) => {
  const cases: Array<[string, unknown, RegExp]> = [
    [
      'alerts.retryBaseMs',
      '5s',
      /^alerts\.retryBaseMs: must be an integer .*, in milliseconds \(5000 is 5 s\), got "5s"$/,
    ],
    ['alerts.retryMaxMs', 3_000_000_000, /^alerts\.retryMaxMs: .*, in milliseconds \(5000 is 5 s\), got 3000000000$/],
    ['alerts.checkIntervalMs', 1, /^alerts\.checkIntervalMs: .*, in milliseconds .*, got 1$/],
    ['alerts.sendTimeoutMs', 5, /^alerts\.sendTimeoutMs: .*, in milliseconds .*, got 5$/],
    ['alerts.maxAgeHours', 0, /^alerts\.maxAgeHours: .*, in hours .*, got 0$/],
    ['alerts.remindHours', '4h', /^alerts\.remindHours: .*, in hours .*, got "4h"$/],
    ['alerts.rules.sensorNull.after', '1m', /^alerts\.rules\.sensorNull\.after: .*, in seconds .*, got "1m"$/],
    [
      'alerts.rules.service.diskFreePercent',
      101,
      /^alerts\.rules\.service\.diskFreePercent: .*, in percent .*, got 101$/,
    ],
    [
      'alerts.rules.setpointBand.band',
      '2C',
      /^alerts\.rules\.setpointBand\.band: .*, in degrees Celsius .*, got "2C"$/,
    ],
    ['alerts.heartbeat.intervalSeconds', '5m', /^alerts\.heartbeat\.intervalSeconds: .*, in seconds .*, got "5m"$/],
  ];
  for (const [path, value, message] of cases) t.match(refusal(path, value), message, path);
});
