// Route schemas of the datastore API: the request bodies are the very schemas the handlers check
// (src/store/datastore-validate.ts), so Swagger shows the rules that apply.
import { Type } from '@sinclair/typebox';
import {
  DocumentSchema,
  KeyQuerySchema,
  SetQuerySchema,
  ValueBodySchema,
  ValuesBodySchema,
} from '../store/datastore-validate.js';

export const datastoreSchemas = {
  setQueryText:
    '`filter` is a glob (`*`, `?`, `[abc]`, `[^abc]`, `\\` escapes) on the part of the key after "namespace:" (the whole key for the empty namespace); `ids` are exact.',
  pong: Type.Object({ ping: Type.String({ example: 'pong' }) }),
  keyQuery: KeyQuerySchema,
  setQuery: SetQuerySchema,
  valueBody: ValueBodySchema,
  valuesBody: ValuesBodySchema,
  value: Type.Object({ value: DocumentSchema }),
  valueOrNull: Type.Object({ value: Type.Unsafe({ ...DocumentSchema, nullable: true }) }),
  values: Type.Object({ values: Type.Array(DocumentSchema) }),
  count: Type.Object({ count: Type.Integer({ minimum: 0 }) }),
};
