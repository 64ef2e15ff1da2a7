// The Swagger page of one API context at `<prefix>/api/doc`, in a context of its own so only the
// documentation is compressed (block reads stay uncompressed: they are small or already cached).
// Nothing of it is loaded at start: @fastify/swagger (with yaml, some 300 KB), Swagger UI and
// compression cost start time and memory while nobody reads the docs. At start the context only
// keeps what @fastify/swagger would have seen (its routes, registered contexts, shared schemas);
// the first request loads the plugin, hands it the same, and builds the OpenAPI document. The
// pages live in a small fastify instance of their own that answers through inject(); the routes
// here pass the app's hooks (auth, origin) as before.
import type { SwaggerOptions } from '@fastify/swagger';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import fp from 'fastify-plugin';
import { Type } from '@sinclair/typebox';
import { NoBody, PageQuery } from './route-validation.js';

/** The file of the docs pages (`json`, `static/index.html`, ...). */
const PagePath = Type.Object({ '*': Type.String() });

/** Headers the outer reply sets itself. */
const OWN_HEADERS = new Set(['content-length', 'connection', 'keep-alive', 'transfer-encoding', 'date']);

type Swagger = FastifyInstance['swagger'];

export interface DocsContext {
  prefix: string;
  title: string;
  description: string;
}

function swaggerOptions(ctx: DocsContext): SwaggerOptions {
  return {
    openapi: { info: { title: ctx.title, description: ctx.description, version: '1' } },
    // Shared schemas become components named by their $id (e.g. #/components/schemas/Pid).
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    // A route that takes no body shows none (it accepts {} too, as the Brewblox UI sends).
    transform: ({ schema, url }) => {
      if (schema?.body !== NoBody) return { schema, url };
      const { body: _none, ...rest } = schema;
      return { schema: rest, url };
    },
  };
}

/** @fastify/swagger's dynamic mode, given the hooks it would have added to `app` replayed. It
 *  reads the context through the public API only (addHook, decorate, getSchemas). */
async function buildSwagger(
  ctx: DocsContext,
  app: FastifyInstance,
  routes: RouteOptions[],
  instances: FastifyInstance[],
): Promise<Swagger> {
  const { fastifySwagger } = await import('@fastify/swagger');
  const hooks: Record<string, (...args: unknown[]) => unknown> = {};
  let swagger: Swagger | undefined;
  const recorder = {
    addHook: (name: string, fn: (...args: unknown[]) => unknown) => void (hooks[name] = fn),
    decorate: (_name: string, fn: Swagger) => void (swagger = fn),
    getSchemas: () => app.getSchemas(),
  };
  await new Promise<void>((resolve, reject) =>
    fastifySwagger(recorder as unknown as FastifyInstance, swaggerOptions(ctx), (e?: Error) =>
      e ? reject(e) : resolve(),
    ),
  );
  for (const route of routes) hooks.onRoute?.(route);
  for (const instance of instances) await hooks.onRegister?.(instance);
  await new Promise<void>((resolve) => (hooks.onReady ? hooks.onReady(resolve) : resolve()));
  if (!swagger) throw new Error('@fastify/swagger did not decorate the context');
  return swagger;
}

async function docsPages(ctx: DocsContext, swagger: Swagger): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: fastifyCompress }, { default: fastifySwaggerUi }] = await Promise.all([
    import('fastify'),
    import('@fastify/compress'),
    import('@fastify/swagger-ui'),
  ]);
  const pages = Fastify();
  // Stands in for @fastify/swagger (which Swagger UI depends on): the document of the app's context.
  await pages.register(
    fp(async (app: FastifyInstance) => void app.decorate('swagger', swagger), { name: '@fastify/swagger' }),
  );
  await pages.register(fastifyCompress);
  await pages.register(fastifySwaggerUi, {
    routePrefix: `${ctx.prefix}/api/doc`,
    theme: { title: `${ctx.title} API` },
  });
  await pages.ready();
  return pages;
}

/** The docs of one context: `collect` is registered first (it sees every route declared after
 *  it in the context), `pages` last. */
export function apiDocs(ctx: DocsContext): { collect: FastifyPluginAsync; pages: FastifyPluginAsync } {
  const routes: RouteOptions[] = [];
  const instances: FastifyInstance[] = [];
  let app: FastifyInstance | null = null;
  const collect = fp(
    async (context) => {
      app = context;
      context.addHook('onRoute', (route) => void routes.push(route));
      context.addHook('onRegister', (instance) => void instances.push(instance));
    },
    { name: 'edgeblocks-api-docs' },
  );
  let pagesReady: Promise<FastifyInstance> | null = null;
  const load = async () => docsPages(ctx, await buildSwagger(ctx, app!, routes, instances));
  const pages: FastifyPluginAsync = async (docs) => {
    const serve = async (req: FastifyRequest, reply: FastifyReply) => {
      pagesReady ??= load().catch((e: unknown) => {
        pagesReady = null;
        throw e;
      });
      const res = await (await pagesReady).inject({
        method: req.method as 'GET',
        url: req.url,
        headers: req.headers as IncomingHttpHeaders as Record<string, string>,
      });
      if (res.statusCode === 404) return reply.callNotFound();
      for (const [name, value] of Object.entries(res.headers))
        if (!OWN_HEADERS.has(name) && value !== undefined) void reply.header(name, value);
      return reply.code(res.statusCode).send(res.rawPayload.length ? res.rawPayload : undefined);
    };
    docs.get(`${ctx.prefix}/api/doc`, { schema: { hide: true, querystring: PageQuery } }, serve);
    docs.get(`${ctx.prefix}/api/doc/*`, { schema: { hide: true, querystring: PageQuery, params: PagePath } }, serve);
  };
  return { collect, pages };
}
