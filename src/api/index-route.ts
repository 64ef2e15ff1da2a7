// A small JSON index of the APIs and their docs at GET /api, and at GET / when no dashboard is
// served there, so a first `curl localhost:5000/` shows where to go instead of a 404.
import type { RouteHandlerMethod } from 'fastify';
import { VERSION } from '../shared/version.js';

/** What the index shows of an API context (server.ts's ApiContext; not imported: server.ts imports this). */
interface IndexedContext {
  prefix: string;
  title: string;
  description: string;
}

export function indexRoute(contexts: IndexedContext[]): RouteHandlerMethod {
  const body = {
    name: 'edgeblocks',
    version: VERSION,
    apis: contexts.map((c) => ({
      title: c.title,
      description: c.description,
      prefix: c.prefix,
      docs: `${c.prefix}/api/doc`,
      openapi: `${c.prefix}/api/doc/json`,
    })),
    hint: 'every API call is a POST with a JSON body (content-type: application/json); the docs pages list them all',
  };
  return async () => body;
}
