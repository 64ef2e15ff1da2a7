// The Swagger page of one API context at `<prefix>/api/doc`, in a context of its own so only the
// documentation is compressed (block reads stay uncompressed: they are small or already cached).
// The OpenAPI document itself is built by @fastify/swagger on the first request, not at start.
// Swagger UI and compression are loaded on the first request too: they cost start time and
// memory while nobody reads the docs. They live in a small fastify instance of their own that
// answers through inject(); the routes here pass the app's hooks (auth, origin) as before.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import fp from 'fastify-plugin';

/** Headers the outer reply sets itself. */
const OWN_HEADERS = new Set(['content-length', 'connection', 'keep-alive', 'transfer-encoding', 'date']);

async function docsPages(ctx: { prefix: string; title: string }, swagger: FastifyInstance['swagger']): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: fastifyCompress }, { default: fastifySwaggerUi }] = await Promise.all([import('fastify'), import('@fastify/compress'), import('@fastify/swagger-ui')]);
  const pages = Fastify();
  // Stands in for @fastify/swagger (which Swagger UI depends on): the document of the app's context.
  await pages.register(fp(async (app: FastifyInstance) => void app.decorate('swagger', swagger), { name: '@fastify/swagger' }));
  await pages.register(fastifyCompress);
  await pages.register(fastifySwaggerUi, { routePrefix: `${ctx.prefix}/api/doc`, theme: { title: `${ctx.title} API` } });
  await pages.ready();
  return pages;
}

export function docsPlugin(ctx: { prefix: string; title: string }): FastifyPluginAsync {
  return async (docs) => {
    let pages: Promise<FastifyInstance> | null = null;
    const swagger = docs.swagger.bind(docs) as FastifyInstance['swagger'];
    const serve = async (req: FastifyRequest, reply: FastifyReply) => {
      pages ??= docsPages(ctx, swagger).catch((e: unknown) => {
        pages = null;
        throw e;
      });
      const res = await (await pages).inject({ method: req.method as 'GET', url: req.url, headers: req.headers as IncomingHttpHeaders as Record<string, string> });
      if (res.statusCode === 404) return reply.callNotFound();
      for (const [name, value] of Object.entries(res.headers)) if (!OWN_HEADERS.has(name) && value !== undefined) void reply.header(name, value);
      return reply.code(res.statusCode).send(res.rawPayload.length ? res.rawPayload : undefined);
    };
    docs.get(`${ctx.prefix}/api/doc`, { schema: { hide: true } }, serve);
    docs.get(`${ctx.prefix}/api/doc/*`, { schema: { hide: true } }, serve);
  };
}
