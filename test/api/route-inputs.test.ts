// Every route takes its input through its own schema, and bad input is a 4xx naming the field,
// never a 500. The routes come from the app's own route table (in sim mode, so the sim routes are
// there too): a route added without a body, params or TypeBox schema fails here by itself, and
// every route is sent no body, {}, bodies that are not objects, a wrong type in each field it
// documents, keys it does not take, odd path parameters and odd query strings.
import type { TSchema } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { Kind } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import t from 'tap';
import { buildServer } from '../../src/api/server.js';
import { checkerOf } from '../../src/api/route-validation.js';
import type { RouteRow } from '../../src/api/public-routes.js';
import { silentLogger } from '../../src/log.js';
import { startApp } from '../helpers/app.js';
import { limit } from '../helpers/limits.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const EXTRA = 'zzUnexpected';

type Schema = Record<string | symbol, any>;
type Row = RouteRow & { schema: { body?: Schema; params?: Schema; querystring?: Schema } };

const paramsOf = (url: string) =>
  [...url.matchAll(/:([A-Za-z_]\w*)/g)].map((m) => m[1]!).concat(url.endsWith('*') ? ['*'] : []);

/** What a route declares wrongly or not at all: the rule every route is held to. */
function undeclared(routes: Row[]): string[] {
  const wrong: string[] = [];
  for (const r of routes) {
    if (r.method === 'HEAD') continue; // fastify's copy of the GET route, with its schema
    const at = `${r.method} ${r.url}`;
    const { body, params, querystring } = r.schema;
    if (BODY_METHODS.has(r.method) && body === undefined) wrong.push(`${at}: no body schema (NoBody if it takes none)`);
    const names = paramsOf(r.url);
    if (names.length && (params === undefined || !names.every((n) => n in (params.properties ?? {}))))
      wrong.push(`${at}: path parameters ${names.join(', ')} not declared`);
    if (querystring === undefined) wrong.push(`${at}: no query string schema`);
    for (const [part, schema] of Object.entries({ body, params, querystring }))
      if (schema !== undefined && !checkerOf(schema) && !(Kind in schema))
        wrong.push(`${at}: the ${part} schema is not TypeBox`);
    if (body !== undefined && checkerOf(body) && !r.url.includes('/blocks/'))
      wrong.push(`${at}: only block bodies are left to the block codec`);
  }
  return wrong;
}

/** A value the schema takes, from its examples, defaults or shape (for the parts not under test). */
function sample(schema: Schema | undefined): unknown {
  if (!schema) return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('default' in schema) return schema.default;
  if (schema.type === 'object' && schema.properties) {
    const out: Record<string, unknown> = {};
    for (const key of schema.required ?? []) out[key] = sample(schema.properties[key]);
    return out;
  }
  if (Array.isArray(schema.anyOf)) return sample(schema.anyOf[0]);
  if ('const' in schema) return schema.const;
  try {
    return Value.Create(schema as TSchema);
  } catch {
    return {};
  }
}

/** The JSON types a schema takes (`any` when it takes anything). */
function takes(schema: Schema | undefined): Set<string> {
  const out = new Set<string>();
  if (!schema) return new Set(['any']);
  for (const member of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) for (const t of takes(member)) out.add(t);
  if ('const' in schema) out.add(schema.const === null ? 'null' : typeof schema.const);
  for (const type of [schema.type].flat()) if (type) out.add(type === 'integer' ? 'number' : type);
  if (schema.$ref || (!out.size && !schema.anyOf && !schema.oneOf)) out.add('any');
  return out;
}

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** A value of a type `schema` does not take (undefined when it takes anything). */
function wrongFor(schema: Schema | undefined, example?: unknown): unknown {
  const ok = schema && !checkerOf(schema) ? takes(schema) : new Set([example === undefined ? 'any' : typeOf(example)]);
  if (ok.has('any')) return undefined;
  const candidates: unknown[] = ['not this', 12345, true, [1], { k: 1 }];
  return candidates.find((c) => !ok.has(typeOf(c)));
}

interface Probe {
  label: string;
  /** The field the answer must name ('' when no field is at fault). */
  field?: string;
  body: unknown;
}

/** Bodies with one wrong field each: every documented field, and one level into object fields. */
function wrongFields(schema: Schema, base: Record<string, unknown>, prefix = '', depth = 0): Probe[] {
  const props: Record<string, Schema | undefined> = schema.properties ?? {};
  const keys = Object.keys(props).length ? Object.keys(props) : Object.keys(base);
  const probes: Probe[] = [];
  for (const key of keys) {
    const wrong = wrongFor(props[key], base[key]);
    if (wrong !== undefined)
      probes.push({
        label: `wrong type in ${prefix}${key}`,
        field: `${prefix}${key}`,
        body: { ...base, [key]: wrong },
      });
    const inner = props[key];
    const innerBase = base[key] ?? sample(inner);
    if (depth === 0 && typeOf(innerBase) === 'object' && (inner?.properties || (!inner && innerBase)))
      for (const p of wrongFields(
        inner ?? {},
        innerBase as Record<string, unknown>,
        `${prefix}${key}.`,
        depth + 1,
      ).slice(0, 4))
        probes.push({ ...p, body: { ...base, [key]: p.body } });
  }
  return probes;
}

/** The object a body schema describes (the item of a list), and whether the body is a list of them. */
function objectOf(schema: Schema): { object: Schema; list: boolean } {
  if (schema.type === 'array') {
    const example = Array.isArray(schema.examples) ? schema.examples[0]?.[0] : undefined;
    return { object: { ...schema.items, ...(example ? { examples: [example] } : {}) }, list: true };
  }
  if (Array.isArray(schema.anyOf)) {
    const direct = schema.anyOf.find((m: Schema) => m.type === 'object');
    if (direct) return { object: { ...direct, examples: schema.examples }, list: false };
  }
  return { object: schema, list: false };
}

const names = (body: any, field: string) =>
  (body?.validation ?? []).some(
    (v: { path: string }) => v.path === field || v.path.endsWith(`.${field}`) || v.path.startsWith(`${field}.`),
  ) ||
  (typeof body?.message === 'string' && body.message.includes(field));

t.test('every route of the app declares its input, and bad input is a 4xx naming the field', async (t) => {
  const { app, post, close } = await startApp({ hardware: 'sim' }, { listen: false });
  t.teardown(close);
  // The block the examples name exists, so a write or patch with one bad field reaches the codec (not a 404).
  const spec = JSON.parse((await app.http.inject({ method: 'GET', url: '/edge-one/api/doc/json' })).body);
  const example = spec.paths['/edge-one/blocks/create'].post.requestBody.content['application/json'].examples;
  t.equal((await post('blocks/create', Object.values<{ value: unknown }>(example)[0]!.value)).status, 201);
  const routes = app.http.routeTable() as Row[];
  t.ok(
    routes.some((r) => r.url.includes('/sim/devices/:device')),
    'the sim routes are in the table',
  );
  t.ok(
    routes.some((r) => r.url === '/auth/login'),
    'the login contract is in the table',
  );
  t.same(undeclared(routes), [], 'every route declares its body, path parameters and query string');

  const problems: string[] = [];
  let sent = 0;
  const send = async (r: Row, label: string, opts: { url?: string; body?: unknown; raw?: string; query?: string }) => {
    const hasBody = opts.raw !== undefined || opts.body !== undefined;
    const at = `${r.method} ${r.url} ${label}`;
    // A stream (the event stream) that a bad query string reached would never answer.
    let timer: NodeJS.Timeout | undefined;
    const res = await Promise.race([
      app.http.inject({
        method: r.method as 'POST',
        url: (opts.url ?? r.url.replace(/:([A-Za-z_]\w*)/g, 'x').replace(/\*$/, 'json')) + (opts.query ?? ''),
        headers: hasBody ? { 'content-type': 'application/json' } : {},
        payload: opts.raw ?? (hasBody ? JSON.stringify(opts.body) : undefined),
      }),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), limit(5000)))),
    ]);
    clearTimeout(timer);
    sent++;
    if (res === null) {
      problems.push(`${at}: no answer in ${limit(5000)} ms`);
      return { status: 0, body: undefined, at };
    }
    let body: any;
    try {
      body = JSON.parse(res.body);
    } catch {
      body = undefined;
    }
    if (res.statusCode >= 500) problems.push(`${at}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    else if (res.statusCode >= 400 && (body?.statusCode !== res.statusCode || typeof body?.message !== 'string'))
      problems.push(`${at}: ${res.statusCode} without the error envelope: ${res.body.slice(0, 200)}`);
    return { status: res.statusCode, body, at };
  };
  const expect4xx = (
    a: { status: number; body: any; at: string },
    field: string | undefined,
    statuses = [400, 422],
  ) => {
    if (!statuses.includes(a.status))
      problems.push(
        `${a.at}: ${a.status}, expected ${statuses.join(' or ')}: ${JSON.stringify(a.body)?.slice(0, 200)}`,
      );
    else if (field && !names(a.body, field))
      problems.push(`${a.at}: does not name ${field}: ${JSON.stringify(a.body).slice(0, 300)}`);
  };

  for (const r of routes) {
    if (r.method === 'HEAD') continue;
    const { body: bodySchema, querystring } = r.schema;
    const codec = checkerOf(bodySchema);
    const noBody =
      bodySchema !== undefined &&
      !codec &&
      bodySchema.type === 'object' &&
      !Object.keys(bodySchema.properties ?? {}).length;

    // Odd query strings: refused naming the key where the route takes none; never a 500.
    const strictQuery = querystring?.additionalProperties === false;
    const quiet = BODY_METHODS.has(r.method) ? sample(bodySchema) : undefined;
    for (const query of [
      `?${EXTRA}=1`,
      `?${EXTRA}[]=1&${EXTRA}=2`,
      `?%ZZ${EXTRA}=%`,
      `?${EXTRA}=${'x'.repeat(5000)}`,
    ]) {
      const a = await send(r, `query ${query.slice(0, 30)}`, { query, body: quiet });
      if (strictQuery) expect4xx(a, EXTRA, [422]);
    }
    // Odd path parameters (with a body the route takes): never a 500.
    if (paramsOf(r.url).length)
      for (const odd of [
        '%00',
        '%E0%A4%A',
        '..%2F..%2Fetc%2Fpasswd',
        encodeURIComponent('🍺 ünïcode'),
        'x'.repeat(3000),
      ]) {
        const url = r.url.replace(/:([A-Za-z_]\w*)/g, odd).replace(/\*$/, odd);
        await send(r, `path ${odd.slice(0, 20)}`, { url, body: quiet });
      }
    if (!BODY_METHODS.has(r.method) || bodySchema === undefined) continue;

    // No body, and bodies that are not what the route takes.
    const absent = await send(r, 'no body', {});
    const absentOk = noBody || r.url.endsWith('/timeseries/fields');
    if (absentOk) {
      if (absent.status >= 400 && absent.status !== 404 && absent.status !== 409)
        problems.push(`${absent.at}: ${absent.status} for a route that takes no body`);
    } else {
      expect4xx(absent, undefined, [400]);
      if (!codec)
        for (const key of bodySchema.required ?? [])
          if (!absent.body?.message?.includes(key)) problems.push(`${absent.at}: the 400 does not say it takes ${key}`);
    }
    for (const raw of [
      '[1,2]',
      '"text"',
      '5',
      'true',
      '{"a":',
      `{"${EXTRA}":${'['.repeat(1000)}${']'.repeat(1000)}}`,
    ]) {
      const a = await send(r, `body ${raw.slice(0, 12)}`, { raw });
      const isList = bodySchema.type === 'array' || bodySchema.anyOf?.some((m: Schema) => m.type === 'array');
      if (!(isList && raw === '[1,2]')) expect4xx(a, undefined, raw.startsWith(`{"${EXTRA}"`) ? [400, 422] : [400]);
    }
    if (noBody) {
      expect4xx(await send(r, 'an unknown key', { body: { [EXTRA]: 1 } }), EXTRA, [422]);
      continue;
    }

    // {}: 422 naming every required field.
    const { object, list } = objectOf(bodySchema);
    const wrap = (o: unknown) => (list ? [o] : o);
    const prefix = list ? '0.' : '';
    const empty = await send(r, '{}', { body: wrap({}) });
    // Required, unless the schema fills it in (a default).
    const required: string[] = codec
      ? []
      : (object.required ?? []).filter((k: string) => !('default' in (object.properties?.[k] ?? {})));
    if (required.length || codec) expect4xx(empty, undefined, [400, 404, 422]);
    for (const key of required)
      if (!names(empty.body, `${prefix}${key}`)) problems.push(`${empty.at}: does not name the required ${key}`);

    // A wrong type in each field, alone and within a body that is otherwise what the route takes.
    const sampled = sample(object);
    // A create names a new block (the example's exists, for the writes and patches); the bad field is then the only problem.
    const base = typeOf(sampled) === 'object' ? { ...(sampled as Record<string, unknown>) } : {};
    if (r.url.endsWith('/create') && 'id' in base) base.id = 'a new block';
    const probes = wrongFields(object, base);
    if (!probes.length) problems.push(`${r.method} ${r.url}: no field to send a wrong type in`);
    for (const p of probes) {
      const a = await send(r, p.label, { body: wrap(p.body) });
      expect4xx(a, `${prefix}${p.field}`, [400, 422]);
      // A top-level field alone: named among the others that are missing (a field in data needs its type first).
      if (p.field!.includes('.')) continue;
      const alone = { [p.field!]: (p.body as Record<string, unknown>)[p.field!] };
      expect4xx(await send(r, `${p.label}, alone`, { body: wrap(alone) }), `${prefix}${p.field}`, [400, 422]);
    }

    // A key the route does not take: named where the schema refuses it, else ignored as documented.
    const extra = await send(r, 'an unknown key', { body: wrap({ [EXTRA]: 1 }) });
    if (object.additionalProperties === false) expect4xx(extra, `${prefix}${EXTRA}`, [422]);
    else if (extra.status !== empty.status)
      problems.push(`${extra.at}: ${extra.status}, but {} is ${empty.status} (an ignored key changed the answer)`);
    if (!codec)
      for (const [key, inner] of Object.entries<Schema>(object.properties ?? {}))
        if (inner.type === 'object' && inner.additionalProperties === false)
          expect4xx(
            await send(r, `an unknown key in ${key}`, { body: wrap({ [key]: { [EXTRA]: 1 } }) }),
            `${prefix}${key}.${EXTRA}`,
            [422],
          );
  }
  t.same(problems, [], 'every answer to bad input is a 4xx in the error envelope, naming the field');
  t.ok(sent > routes.length * 8, `${sent} requests to ${routes.length} routes`);
});

t.test(
  'the walk finds a route declared without a schema, and the app refuses a schema that is not TypeBox',
  async (t) => {
    const build = (plugin: Parameters<typeof buildServer>[1][number]['plugins'][number]) =>
      buildServer(silentLogger, [{ prefix: '/x', title: 'x', description: 'x', plugins: [plugin] }]);
    const loose = await build(async (app) => {
      app.post('/takes-anything', async (req) => req.body);
      app.get('/item/:id', async () => ({}));
    });
    t.teardown(() => loose.close());
    t.same(undeclared(loose.routeTable() as Row[]), [
      'POST /x/takes-anything: no body schema (NoBody if it takes none)',
      'GET /x/item/:id: path parameters id not declared',
    ]);
    const plain = await build(async (app) => {
      app.post(
        '/plain',
        { schema: { body: { type: 'object', properties: { a: { type: 'string' } } } } },
        async () => ({}),
      );
    });
    t.teardown(() => plain.close());
    await t.rejects(async () => void (await plain.ready()), /POST \/x\/plain: the body schema is not a TypeBox schema/);
    const typed = await build(async (app) => {
      app.post('/typed', { schema: { body: Type.Object({ a: Type.String() }) } }, async () => ({}));
    });
    t.teardown(() => typed.close());
    t.same(undeclared(typed.routeTable() as Row[]), [], 'a TypeBox body and the default query string are enough');
  },
);
