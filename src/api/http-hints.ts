// Errors that tell an HTTP client what to do instead: 405 with an Allow header for a method a
// route does not take, 415 naming the content type every body must have.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { quotedText } from '../../drivers/quoted-text.js';
import { errorBody, type ErrorBody } from './error-body.js';
import { NoBody } from './route-validation.js';

const JSON_TYPE = 'content-type: application/json';

interface KnownRoute {
  pattern: RegExp;
  methods: Set<string>;
  /** Its POST takes no body (NoBody): the 405 does not ask for one. */
  noBody: boolean;
}

function toPattern(url: string): RegExp {
  const escaped = url
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}/?$`);
}

const routesOf = new WeakMap<FastifyInstance, Map<string, KnownRoute>>();

/** Call before any route is added: remembers every route's methods, and refuses non-JSON bodies. */
export function installHttpHints(app: FastifyInstance): void {
  const routes = new Map<string, KnownRoute>();
  routesOf.set(app, routes);
  app.removeContentTypeParser('text/plain');
  app.addHook('onRoute', (route) => {
    // A catch-all (the dashboard's static files, GET /*) answers every path: it says nothing
    // about which methods a path of the API takes.
    if (route.url.includes('*')) return;
    const known = routes.get(route.url) ?? {
      pattern: toPattern(route.url),
      methods: new Set<string>(),
      noBody: false,
    };
    for (const m of [route.method].flat()) known.methods.add(m);
    if ([route.method].flat().includes('POST')) known.noBody = route.schema?.body === NoBody;
    routes.set(route.url, known);
  });
}

/** The methods a path does answer to, when it exists for other methods than the one asked. */
export function allowedMethods(app: FastifyInstance, path: string): string[] {
  const routes = routesOf.get(app);
  if (!routes) return [];
  const methods = new Set<string>();
  for (const r of routes.values()) if (r.pattern.test(path)) for (const m of r.methods) methods.add(m);
  return [...methods].sort();
}

/** 405 for a known path with another method: the body and the Allow header value. */
export function methodNotAllowed(app: FastifyInstance, req: FastifyRequest): { body: ErrorBody; allow: string } | null {
  const path = req.url.split('?')[0]!;
  const allowed = allowedMethods(app, path).filter((m) => m !== 'HEAD');
  if (allowed.length === 0 || allowed.includes(req.method)) return null;
  const how = allowed.length === 1 ? `send a ${allowed[0]}` : `use ${allowed.join(' or ')}`;
  const posts = [...(routesOf.get(app)?.values() ?? [])].filter((r) => r.methods.has('POST') && r.pattern.test(path));
  const json = !allowed.includes('POST')
    ? ''
    : posts.every((r) => r.noBody)
      ? ' (it takes no body, or {})'
      : ` with a JSON body (${JSON_TYPE})`;
  return { body: errorBody(405, `${req.method} is not allowed on ${path}: ${how}${json}`), allow: allowed.join(', ') };
}

/** 415 with the content type to use instead of fastify's bare "Unsupported Media Type". */
export function unsupportedMediaType(err: unknown, req: FastifyRequest): ErrorBody | null {
  if ((err as FastifyError).code !== 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return null;
  return errorBody(415, notJson(req.headers['content-type']));
}

/** Why a body with content type `got` (none: undefined or '') is not taken: for this 415 and the cross-site guard's. */
export function notJson(got: string | undefined): string {
  return `the body must be JSON sent with the header ${JSON_TYPE} (${got ? `got content-type: ${quotedText(got)}` : 'no content-type was sent'})`;
}
