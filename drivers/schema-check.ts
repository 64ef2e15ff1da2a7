// Readable messages from TypeBox schemas: one place that turns "the value does not fit the
// schema" into "gpio[0].line: must be an integer 0-127, got "x"". Used for config files (service,
// failsafe, sim) and other JSON documents; the schema is the rule, this only words it.
import type { TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import { unknownKeyMessage } from './closest-name.js';

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
}

export function describeValue(v: unknown): string {
  return v === undefined ? 'nothing' : JSON.stringify(v);
}

/** JSON pointer `/gpio/0/line` to `gpio[0].line`. */
export function pointerToPath(pointer: string, base = ''): string {
  let out = base;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(key) ? `[${key}]` : out === '' ? key : `.${key}`;
  }
  return out;
}

function literalList(values: unknown[]): string {
  const words = values.map((v) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v)));
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** What a schema asks for, in words ("an integer 0-127", "'out' or 'in'", "true or false"). */
export function expectation(schema: TSchema): string {
  const s = schema as TSchema & Record<string, unknown>;
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

function issueOf(error: ValueError, base: string): SchemaIssue {
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const key = error.path.split('/').at(-1)!;
    const known = Object.keys((error.schema as { properties?: object }).properties ?? {});
    return { path: pointerToPath(error.path, base), message: unknownKeyMessage(key, known), unknownKey: true };
  }
  const schema = error.schema as TSchema & Wording & { maxLength?: number; maxItems?: number };
  if (schema.type === 'string' && typeof error.value === 'string') {
    // A long value is not echoed; the length counts characters (code points), as users do.
    const length = Array.from(error.value).length;
    if (schema.maxLength !== undefined && length > schema.maxLength)
      return {
        path: pointerToPath(error.path, base),
        message: `must be at most ${schema.maxLength} characters, got ${length}`,
        unknownKey: false,
      };
  }
  if (Array.isArray(error.value) && schema.maxItems !== undefined && error.value.length > schema.maxItems)
    return {
      path: pointerToPath(error.path, base),
      message: `must hold at most ${schema.maxItems} items, got ${error.value.length}`,
      unknownKey: false,
    };
  if (error.type === ValueErrorType.ObjectRequiredProperty)
    return {
      path: pointerToPath(error.path, base),
      message: `is required: ${expectation(error.schema)}`,
      unknownKey: false,
    };
  const ofType = schema.type !== 'string' || typeof error.value === 'string';
  const rule = (ofType ? schema.errorMessage : undefined) ?? `must be ${expectation(error.schema)}`;
  return {
    path: pointerToPath(error.path, base),
    message: `${rule}, got ${describeValue(error.value)}`,
    unknownKey: false,
  };
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
  return { issue: issueOf(first, base) };
}

/**
 * Every problem of `value` against `schema`, the first one at each place, in document order: for
 * request bodies whose answer names all bad fields at once. Empty when the value fits.
 */
export function issuesAgainst(schema: TSchema, value: unknown, base = ''): SchemaIssue[] {
  const withDefaults = Value.Default(schema, Value.Clone(value)) as unknown;
  const byPath = new Map<string, SchemaIssue>();
  for (const error of Value.Errors(schema, withDefaults)) {
    const issue = issueOf(error, base);
    if (!byPath.has(issue.path)) byPath.set(issue.path, issue);
  }
  return [...byPath.values()];
}
