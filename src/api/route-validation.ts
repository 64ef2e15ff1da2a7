// The boundary validates: fastify checks every route's body, query string and path parameters
// against the route's own TypeBox schema before the handler runs, so a handler never checks its
// input again. Each schema is compiled once, when a request first needs it (TypeBox's
// TypeCompiler; a schema shared by routes is compiled once for all of them), and its problems
// are worded by drivers/schema-check.ts: one 422 naming every bad field, or 400 when the body is
// not the JSON object the route takes (DESIGN §4).
//
// A route whose input another checker takes as it is (the block codec, shared with MQTT and
// backups) marks its schema `checkedBy(...)`: the schema documents, the codec checks, never both.
// A route that declares no query string takes none (server.ts); one that takes no body says so
// with `NoBody`. test/api/route-inputs.test.ts holds every route of the app to these rules.
import { Kind, Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { describeValue, issuesOf, type SchemaIssue } from '../../drivers/schema-check.js';
import { issuesText } from '../shared/json.js';
import { HttpError } from './errors.js';

const CHECKED_BY = Symbol.for('edgeblocks.route-input.checkedBy');
const MAY_BE_ABSENT = Symbol.for('edgeblocks.route-input.mayBeAbsent');

/** A request part as fastify names it. */
export type HttpPart = 'body' | 'querystring' | 'params' | 'headers';

/**
 * `schema` documents an input that `checker` takes as it is and checks itself (the block codec);
 * fastify does not check it again. The checker must answer every bad input with a 4xx naming it.
 */
export function checkedBy<T extends object>(checker: string, schema: T): T {
  return Object.assign(schema, { [CHECKED_BY]: checker });
}

/** Who checks an input whose schema says `checkedBy`, else undefined (fastify does, by the schema). */
export function checkerOf(schema: unknown): string | undefined {
  return (schema as { [CHECKED_BY]?: string } | undefined)?.[CHECKED_BY];
}

/** The body may be left out; the handler then gets `{}`. */
export function mayBeAbsent<T extends TSchema>(schema: T): T {
  return Object.assign(schema, { [MAY_BE_ABSENT]: true });
}

/** The body of a route that takes none: nothing, or `{}` (what the Brewblox UI sends). */
export const NoBody = mayBeAbsent(Type.Object({}, { additionalProperties: false, description: 'no body, or {}' }));

/** The query string of a route that takes none: the default of every route (server.ts). */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/** The query string of a page or file (dashboard, docs): ignored, as any web server does. */
export const PageQuery = Type.Record(Type.String(), Type.Unknown());

const WHAT: Record<HttpPart, string> = {
  body: 'body',
  querystring: 'query string',
  params: 'path',
  headers: 'headers',
};

type Issue = Pick<SchemaIssue, 'path' | 'message'>;

/** The 422 of input that does not fit its schema: every issue, each naming its field. */
export function invalidInput(part: HttpPart, issues: Issue[]): HttpError {
  return new HttpError(
    422,
    `invalid ${WHAT[part]}: ${issuesText(issues)}`,
    issues.map((i) => ({ path: i.path, message: i.message })),
  );
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function hasDefault(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  if ('default' in schema) return true;
  return Object.values(schema).some(hasDefault);
}

/** The 400 of a body that is not the JSON object the route takes, naming what it takes. */
function notAnObject(schema: TSchema, value: unknown): HttpError {
  const keys = Object.keys((schema.properties as object | undefined) ?? {});
  const got = value === null ? 'nothing' : Array.isArray(value) ? 'an array' : describeValue(value);
  if (!keys.length) return new HttpError(400, `this route takes no body (or {}), got ${got}`);
  return new HttpError(400, `the body must be a JSON object {${keys.join(', ')}}, got ${got}`);
}

type Validate = (value: unknown) => true | { value: unknown } | { error: Error };

interface Compiled {
  check: TypeCheck<TSchema>;
  /** Whether the schema fills in defaults (they count for the check). */
  fill: boolean;
}

const compiled = new WeakMap<TSchema, Compiled>();

/** The compiled check of `schema`, made the first time any route asks for it. */
function compiledOf(schema: TSchema): Compiled {
  let c = compiled.get(schema);
  if (!c) compiled.set(schema, (c = { check: TypeCompiler.Compile(schema), fill: hasDefault(schema) }));
  return c;
}

/**
 * The issues of `value` against `schema`, none when it fits. Defaults count for the check, but
 * the value is not changed: a handler gets the body as it was sent (a document is stored as given).
 */
function issuesFor(c: Compiled, value: unknown): SchemaIssue[] {
  const checked = c.fill ? Value.Default(c.check.Schema(), Value.Clone(value)) : value;
  return c.check.Check(checked) ? [] : issuesOf(c.check.Errors(checked), '', 'dotted');
}

/** The issues of `value` against a route schema, as a route's 422 names them: for the same input arriving another way (a websocket command). */
export function inputIssues(schema: TSchema, value: unknown): SchemaIssue[] {
  return issuesFor(compiledOf(schema), value);
}

/** fastify's validator compiler (server.ts): the check of one part of one route. */
export function compileRouteInput(route: {
  schema: unknown;
  method?: string;
  url?: string;
  httpPart?: string;
}): Validate {
  const { schema, method, url } = route;
  const part = (route.httpPart ?? 'body') as HttpPart;
  if (checkerOf(schema)) return () => true;
  if (!schema || typeof schema !== 'object' || !(Kind in schema))
    throw new Error(`${method} ${url}: the ${WHAT[part]} schema is not a TypeBox schema (declare it with Type.*)`);
  const typed = schema as TSchema;
  const absentOk = (typed as { [MAY_BE_ABSENT]?: boolean })[MAY_BE_ABSENT] === true;
  const objectOnly = typed.type === 'object';
  // Compiled at the first request that needs it: compiling every route's schema would add tens of ms to each start.
  let c: Compiled | undefined;
  const answer = (value: unknown, issues: SchemaIssue[]) =>
    issues.length ? { error: invalidInput(part, issues) } : value === undefined ? true : { value };

  if (part === 'body')
    return (value) => {
      // fastify hands a missing body over as null.
      if (value === null && absentOk) return { value: {} };
      if (objectOnly && !isPlainObject(value)) return { error: notAnObject(typed, value) };
      c ??= compiledOf(typed);
      return answer(undefined, issuesFor(c, value));
    };
  // Query strings, path parameters and headers are text: "5" is 5 where the schema takes a number.
  return (value) => {
    c ??= compiledOf(typed);
    if (c.check.Check(value)) return true;
    const converted = Value.Convert(typed, value);
    return answer(converted, issuesFor(c, converted));
  };
}
