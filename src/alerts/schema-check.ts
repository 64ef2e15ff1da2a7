// Alert settings and rules documents checked against their schemas with the project's one schema
// wording (drivers/schema-check.ts): defaults filled in, unknown keys refused with "did you mean",
// the problem named by its field. A SchemaError carries the issue for a 422 body.
import type { TSchema, Static } from '@sinclair/typebox';
import { checkAgainst, type SchemaIssue } from '../../drivers/schema-check.js';

export type { SchemaIssue };

export class SchemaError extends Error {
  constructor(
    readonly issues: SchemaIssue[],
    where: string,
  ) {
    super(`${where}: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`);
  }
}

/** A copy of `raw` with defaults filled in; throws SchemaError naming what is wrong. */
export function checked<S extends TSchema>(schema: S, raw: unknown, where: string): Static<S> {
  const result = checkAgainst<Static<S>>(schema, raw ?? {});
  if (result.issue) throw new SchemaError([result.issue], where);
  return result.value;
}
