// Readable messages from TypeBox schemas: one place that turns "the value does not fit the
// schema" into "gpio[0].line: must be an integer 0-127, got "x"". Used for config files (service,
// failsafe, sim) and other JSON documents; the schema is the rule, this only words it.
import type { TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import { TOO_LARGE_FOR_JSON, TOO_LARGE_NUMBER, unholdable } from './json-number.js';
import { unknownKeyMessage } from './closest-name.js';
import { quotedText } from './quoted-text.js';

export interface SchemaIssue {
  /** Where, as `gpio[0].line` (relative to the checked value; '' for the value itself). */
  path: string;
  message: string;
  /** The key is not in the schema (the message suggests the closest known key). */
  unknownKey: boolean;
}

/** Extra schema options this module reads. */
export interface Wording {
  /**
   * Replaces the generated "must be ..." for a value of the schema's type (e.g. for a pattern:
   * "may hold only letters, ..."); a value of another type still gets "must be a string".
   */
  errorMessage?: string;
  /** Sent, never given back (a password): a message never quotes the value. */
  writeOnly?: boolean;
  /** For a map whose keys follow a pattern: what a key outside it is told, instead of "unknown key". */
  keyMessage?: string;
}

/** How a path is written: `gpio[0].line` in config files, `values.0.id` in REST answers (as the block codec names fields). */
export type PathStyle = 'config' | 'dotted';

export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  // Only a number JSON cannot hold (1E400, parsed as Infinity) is not finite; quoted as JSON it was "null".
  if (unholdable(v)) return TOO_LARGE_NUMBER;
  // Cut short (a bad body may be a megabyte): drivers/quoted-text.ts.
  return quotedText(JSON.stringify(v));
}

/** JSON pointer `/gpio/0/line` to `gpio[0].line` (or `gpio.0.line`). */
export function pointerToPath(pointer: string, base = '', style: PathStyle = 'config'): string {
  let out = base;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    out += style === 'config' && /^\d+$/.test(key) ? `[${key}]` : out === '' ? key : `.${key}`;
  }
  return out;
}

function literalList(values: unknown[]): string {
  const words = values.map((v) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v)));
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/**
 * The unit of a number setting (`unit` beside its type in the schema): its name and an example,
 * said with every refusal of it, so a value given with a unit of its own (`5s`, `512MB`) is told
 * what the number is in.
 */
export interface NumberUnit {
  name: string;
  example: string;
}

/** The units number settings are in: each said the same way wherever a schema declares it. */
export const UNITS = {
  milliseconds: { name: 'milliseconds', example: '5000 is 5 s' },
  seconds: { name: 'seconds', example: '1800 is 30 min' },
  hours: { name: 'hours', example: '0.5 is 30 min' },
  bytes: { name: 'bytes', example: '536870912 is 512 MiB' },
  percent: { name: 'percent', example: '5 is 5 %' },
  celsiusDelta: { name: 'degrees Celsius (a difference)', example: '2 is 2 °C, 3.6 °F' },
} as const satisfies Record<string, NumberUnit>;

/** What a schema asks for, in words ("an integer 0-127", "'out' or 'in'", "true or false"). */
export function expectation(schema: TSchema): string {
  const s = schema as TSchema & Record<string, unknown>;
  const unit = s.unit as NumberUnit | undefined;
  if (unit && (s.type === 'integer' || s.type === 'number'))
    return `${expectation({ ...s, unit: undefined } as TSchema)}, in ${unit.name} (${unit.example})`;
  if (Array.isArray(s.anyOf) && s.anyOf.every((o: TSchema) => 'const' in o))
    return literalList(s.anyOf.map((o: TSchema) => o.const));
  if ('const' in s) return literalList([s.const]);
  if (Array.isArray(s.anyOf)) return s.anyOf.map((o: TSchema) => expectation(o)).join(' or ');
  switch (s.type) {
    case 'integer':
    case 'number': {
      const what = s.type === 'integer' ? 'an integer' : 'a number';
      const min = s.minimum as number | undefined;
      const max = s.maximum as number | undefined;
      const above = s.exclusiveMinimum as number | undefined;
      const below = s.exclusiveMaximum as number | undefined;
      if (above !== undefined || below !== undefined) {
        const bounds = [
          above !== undefined ? `greater than ${above}` : min !== undefined ? `at least ${min}` : '',
          below !== undefined ? `less than ${below}` : max !== undefined ? `at most ${max}` : '',
        ];
        return `${what} ${bounds.filter(Boolean).join(' and ')}`;
      }
      if (min !== undefined && max !== undefined) return `${what} ${min}-${max}`;
      if (min === 1 && s.type === 'integer') return `positive (${what})`;
      if (min !== undefined) return `${what} of at least ${min}`;
      return what;
    }
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'string':
      return s.minLength ? 'a non-empty string' : 'a string';
    case 'array':
      return `a list of ${plural(expectation(s.items as TSchema))}`;
    case 'object':
      return `an object {${Object.keys((s.properties as object) ?? {}).join(', ')}}`;
  }
  return 'valid';
}

function plural(words: string): string {
  return words.replace(
    /^an? (non-empty )?(\w+)/,
    (_m, adj: string | undefined, noun: string) => `${adj ?? ''}${noun}s`,
  );
}

function issueOf(error: ValueError, base: string, style: PathStyle): SchemaIssue {
  let at = pointerToPath(error.path, base, style);
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const key = error.path.split('/').at(-1)!.replace(/~1/g, '/').replace(/~0/g, '~');
    // The key is the client's (a body may be a megabyte of one key): the path names it cut short.
    const parent = error.path.slice(0, error.path.lastIndexOf('/'));
    at = pointerToPath(`${parent}/${quotedText(key).replace(/~/g, '~0').replace(/\//g, '~1')}`, base, style);
    const keyMessage = (error.schema as Wording).keyMessage;
    if (keyMessage) return { path: at, message: keyMessage, unknownKey: false };
    const known = Object.keys((error.schema as { properties?: object }).properties ?? {});
    return { path: at, message: unknownKeyMessage(key, known), unknownKey: true };
  }
  // Whatever the schema asks, such a number is refused in the words every checker uses.
  if (unholdable(error.value)) return { path: at, message: TOO_LARGE_FOR_JSON, unknownKey: false };
  const schema = error.schema as TSchema & Wording & { maxLength?: number; maxItems?: number };
  if (schema.type === 'string' && typeof error.value === 'string') {
    // A long value is not echoed; the length counts characters (code points), as users do.
    const length = Array.from(error.value).length;
    if (schema.maxLength !== undefined && length > schema.maxLength)
      return {
        path: at,
        message: `must be at most ${schema.maxLength} characters, got ${length}`,
        unknownKey: false,
      };
  }
  if (Array.isArray(error.value) && schema.maxItems !== undefined && error.value.length > schema.maxItems)
    return {
      path: at,
      message: `must hold at most ${schema.maxItems} items, got ${error.value.length}`,
      unknownKey: false,
    };
  if (error.type === ValueErrorType.ObjectRequiredProperty)
    return {
      path: at,
      message: `is required: ${expectation(error.schema)}`,
      unknownKey: false,
    };
  const ofType = schema.type !== 'string' || typeof error.value === 'string';
  const rule = (ofType ? schema.errorMessage : undefined) ?? `must be ${expectation(error.schema)}`;
  const got = schema.writeOnly ? '' : `, got ${describeValue(error.value)}`;
  return { path: at, message: `${rule}${got}`, unknownKey: false };
}

const jsonType = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Whether `schema` takes values of the JSON type of `value` (whatever else it asks of them). */
function takesTypeOf(schema: TSchema, value: unknown): boolean {
  const s = schema as TSchema & { type?: string | string[]; const?: unknown; anyOf?: TSchema[] };
  if (Array.isArray(s.anyOf)) return s.anyOf.some((m) => takesTypeOf(m, value));
  if ('const' in s) return jsonType(s.const) === jsonType(value);
  const type = jsonType(value);
  return [s.type].flat().some((t) => t === type || (t === 'integer' && type === 'number'));
}

/**
 * A value that fails a union (`[ids] or null`) but has the type of exactly one of its members is
 * worded by that member's problems (`ids.1: must be ...`), not "must be a list or null".
 */
function* withinUnions(errors: Iterable<ValueError>): Iterable<ValueError> {
  for (const error of errors) {
    const members = (error.schema as { anyOf?: TSchema[] }).anyOf;
    if (error.type === ValueErrorType.Union && Array.isArray(members)) {
      const fitting = members.flatMap((m, i) => (takesTypeOf(m, error.value) ? [i] : []));
      if (fitting.length === 1 && error.errors[fitting[0]!]) {
        yield* withinUnions(error.errors[fitting[0]!]!);
        continue;
      }
    }
    yield error;
  }
}

/**
 * Every problem among `errors` (TypeBox's, of one value against one schema), the first one at
 * each place, in document order: for request bodies whose answer names all bad fields at once.
 */
export function issuesOf(errors: Iterable<ValueError>, base = '', style: PathStyle = 'config'): SchemaIssue[] {
  const byPath = new Map<string, SchemaIssue>();
  for (const error of withinUnions(errors)) {
    const issue = issueOf(error, base, style);
    if (!byPath.has(issue.path)) byPath.set(issue.path, issue);
  }
  return [...byPath.values()];
}

/**
 * The first problem of `value` against `schema` (an unknown key first: it usually explains the
 * rest), or the value with the schema's defaults filled in. `value` is not changed.
 */
export function checkAgainst<T>(
  schema: TSchema,
  value: unknown,
  base = '',
): { value: T; issue?: undefined } | { issue: SchemaIssue; value?: undefined } {
  const withDefaults = Value.Default(schema, Value.Clone(value)) as unknown;
  if (Value.Check(schema, withDefaults)) return { value: withDefaults as T };
  const errors = [...Value.Errors(schema, withDefaults)];
  const first = errors.find((e) => e.type === ValueErrorType.ObjectAdditionalProperties) ?? errors[0]!;
  return { issue: issueOf(first, base, 'config') };
}

/** Every problem of `value` (defaults filled in) against `schema` (see `issuesOf`); empty when it fits. */
export function issuesAgainst(schema: TSchema, value: unknown, base = '', style: PathStyle = 'config'): SchemaIssue[] {
  const withDefaults = Value.Default(schema, Value.Clone(value)) as unknown;
  return issuesOf(Value.Errors(schema, withDefaults), base, style);
}
