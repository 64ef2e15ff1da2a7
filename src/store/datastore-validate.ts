// Shape rules of datastore documents and query bodies (spec §2.4), as TypeBox schemas: the same
// objects are the route schemas in Swagger (src/api/datastore-schemas.ts) and the checks here,
// worded by drivers/schema-check.ts. Each issue names the offending field; the REST API and
// backup load share this one rulebook.
import { Kind, Type, TypeRegistry, type Static, type TSchema } from '@sinclair/typebox';
import { checkAgainst, issuesAgainst } from '../../drivers/schema-check.js';
import { unholdableNumber } from '../shared/json.js';
import { MAX_DOCUMENT_BYTES } from '../shared/limits.js';

/** A datastore document: {namespace, id, ...fields}. */
export type Doc = { namespace: string; id: string } & Record<string, unknown>;

export interface Issue {
  path: string;
  message: string;
}

// `\w` as in the regex dialect of the spec's origin (Unicode-aware): letters, marks, digits,
// connector punctuation. Plain JS `\w` would reject ids such as "brauerei-müller".
const WORD = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}';
export const ID_PATTERN = new RegExp(`^[${WORD}\\-.~]+$`, 'u');
export const NAMESPACE_PATTERN = new RegExp(`^[${WORD}\\-.~:]*$`, 'u');
export const ID_RULE = '^[\\w\\-\\.~]+$';
export const NAMESPACE_RULE = '^[\\w\\-\\.~\\:]*$';

// Length caps, in characters (code points). They bound the work of a filter match (the glob
// matcher is O(key × filter)) and keep keys and MQTT topics sane.
export const MAX_ID_LENGTH = 200;
export const MAX_NAMESPACE_LENGTH = 500;
export const MAX_FILTER_LENGTH = 500;

// TypeBox tests `pattern` without the `u` flag and `maxLength` in UTF-16 units; a key part is
// checked with the Unicode pattern and in code points instead. The schema keeps the spec's rule
// in `pattern` and the cap in `maxLength`, which is what Swagger shows.
const KEY_PART = 'DatastoreKeyPart';
const UNICODE_PATTERN = Symbol('unicode pattern');
type KeyPartSchema = TSchema & { maxLength: number; minLength?: number; [UNICODE_PATTERN]?: RegExp };

function longerThan(v: string, max: number): boolean {
  if (v.length <= max) return false;
  let n = 0;
  for (const _ of v) if (++n > max) return true;
  return false;
}

TypeRegistry.Set<KeyPartSchema>(KEY_PART, (schema, value) => {
  if (typeof value !== 'string' || longerThan(value, schema.maxLength)) return false;
  if (value.length < (schema.minLength ?? 0)) return false;
  return schema[UNICODE_PATTERN]?.test(value) ?? true;
});

function keyPart(unicode: RegExp | undefined, options: Record<string, unknown> & { maxLength: number }) {
  return Type.Unsafe<string>({ [Kind]: KEY_PART, [UNICODE_PATTERN]: unicode, type: 'string', ...options });
}

export const NamespaceSchema = keyPart(NAMESPACE_PATTERN, {
  pattern: NAMESPACE_RULE,
  maxLength: MAX_NAMESPACE_LENGTH,
  errorMessage: `must match ${NAMESPACE_RULE} (letters, digits, _ - . ~ :; may be empty)`,
  description: 'May be empty; nest with ":"',
  example: 'edge-one',
});

export const IdSchema = keyPart(ID_PATTERN, {
  pattern: ID_RULE,
  minLength: 1,
  maxLength: MAX_ID_LENGTH,
  errorMessage: `must match ${ID_RULE} (one or more letters, digits, _ - . ~)`,
  example: 'units',
});

const FilterSchema = keyPart(undefined, { maxLength: MAX_FILTER_LENGTH, example: '*' });

export const DocumentSchema = Type.Object(
  { namespace: NamespaceSchema, id: IdSchema },
  {
    additionalProperties: true,
    description: 'Any JSON object with a namespace and an id; other members are stored as given',
    example: { namespace: 'edge-one', id: 'units', temperature: 'degC' },
  },
);

/** `{namespace, id}` of get and delete; other members (a whole document) are ignored. */
export const KeyQuerySchema = Type.Object({ namespace: NamespaceSchema, id: IdSchema });
export type KeyQuery = Static<typeof KeyQuerySchema>;

/** `{namespace, ids?, filter?}` of mget and mdelete; `null` counts as absent (see `setQueryOf`). */
export const SetQuerySchema = Type.Object({
  namespace: NamespaceSchema,
  ids: Type.Optional(Type.Union([Type.Array(IdSchema), Type.Null()])),
  filter: Type.Optional(Type.Union([FilterSchema, Type.Null()])),
});
/** A namespace with optional exact ids and/or a glob on the rest of the key. */
export type SetQuery = { namespace: string; ids?: string[]; filter?: string };

export const ValueBodySchema = Type.Object({ value: DocumentSchema });
export const ValuesBodySchema = Type.Object({ values: Type.Array(DocumentSchema) });

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The schema of the documents under a key that the service itself reads (the units document). */
export type DocumentShapes = (namespace: string, id: string) => TSchema | undefined;

/** The issues of `value` against `schema`, paths under `base`, as REST answers name them (`values.2.id`). */
function bodyIssues(schema: TSchema, value: unknown, base = ''): Issue[] {
  return issuesAgainst(schema, value, base, 'dotted').map((i) => ({ path: i.path, message: i.message }));
}

/**
 * Issues of a document that its route schema cannot say: a number JSON cannot hold (1E400, which
 * would be stored as null), its size as stored (MAX_DOCUMENT_BYTES, so its change event can be
 * published), and the schema of its key when the service reads that
 * document itself (the units).
 */
export function storedIssues(doc: Doc, path: string, shapes?: DocumentShapes): Issue[] {
  const unholdable = unholdableNumber(doc, path);
  if (unholdable) return [unholdable];
  const bytes = Buffer.byteLength(JSON.stringify(doc));
  if (bytes > MAX_DOCUMENT_BYTES)
    return [
      { path, message: `takes ${bytes} bytes as stored (JSON); a document may take at most ${MAX_DOCUMENT_BYTES}` },
    ];
  const shape = shapes?.(doc.namespace, doc.id);
  const checked = shape ? checkAgainst(shape, doc, path) : undefined;
  return checked?.issue ? [{ path: checked.issue.path, message: checked.issue.message }] : [];
}

/** Issues of one document to be stored; none means it is a valid Doc. */
export function documentIssues(value: unknown, path: string, shapes?: DocumentShapes): Issue[] {
  const issues = bodyIssues(DocumentSchema, value, path);
  return issues.length ? issues : storedIssues(value as Doc, path, shapes);
}

export function isDoc(value: unknown): value is Doc {
  return documentIssues(value, '').length === 0;
}

/** The query of an mget or mdelete body (checked by its route schema): nulls count as absent. */
export function setQueryOf(body: Static<typeof SetQuerySchema>): SetQuery {
  const query: SetQuery = { namespace: body.namespace };
  if (body.ids !== undefined && body.ids !== null) query.ids = body.ids;
  if (body.filter !== undefined && body.filter !== null) query.filter = body.filter;
  return query;
}
