// Validation of a value against a TypeBox schema: defaults filled in, unknown keys refused,
// and every issue as {path, message} naming the field (config, rules document, route bodies).
import type { TSchema, Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export interface SchemaIssue {
  path: string;
  message: string;
}

export class SchemaError extends Error {
  constructor(
    readonly issues: SchemaIssue[],
    where: string,
  ) {
    super(`${where}: ${issues.map((i) => `${i.path || '(root)'} ${i.message}`).join('; ')}`);
  }
}

/** A copy of `raw` with defaults filled in; throws SchemaError listing what is wrong. */
export function checked<S extends TSchema>(schema: S, raw: unknown, where: string): Static<S> {
  const value = Value.Default(schema, Value.Clone(raw ?? {}));
  if (Value.Check(schema, value)) return value as Static<S>;
  const issues: SchemaIssue[] = [];
  for (const e of Value.Errors(schema, value)) {
    const path = e.path.replace(/^\//, '').replace(/\//g, '.');
    if (!issues.some((i) => i.path === path)) issues.push({ path, message: e.message });
    if (issues.length >= 5) break;
  }
  throw new SchemaError(issues, where);
}
