// The Swagger page of one API context at `<prefix>/api/doc`, in a context of its own so only the
// documentation is compressed (block reads stay uncompressed: they are small or already cached).
// The OpenAPI document itself is built by @fastify/swagger on the first request, not at start.
import fastifyCompress from '@fastify/compress';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyPluginAsync } from 'fastify';

export function docsPlugin(ctx: { prefix: string; title: string }): FastifyPluginAsync {
  return async (docs) => {
    await docs.register(fastifyCompress);
    await docs.register(fastifySwaggerUi, { routePrefix: `${ctx.prefix}/api/doc`, theme: { title: `${ctx.title} API` } });
  };
}
