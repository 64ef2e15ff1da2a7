// The decoded tree every codec step shares: a partial of block data in internal units, where
// RESET marks an explicit null (reset to default / remove sub-object), and the issues a decode
// reports. decode.ts produces it; apply.ts puts it onto block data.

export const RESET = Symbol('reset');

export interface ValidationIssue {
  path: string;
  message: string;
  /**
   * The field at `path` was left out and the rest decoded without it (an unknown field, or a
   * legacy one this controller does not support): an API write still refuses it, a backup load
   * keeps the block and warns.
   */
  dropped?: true;
}

export type Partial = Record<string, unknown>;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
