// Which routes are served without a session when auth is on: a route says so itself
// (`config: {public: true}`), or every route of a context does (`publicRoutes`). The auth guard
// (src/auth/guard.ts) reads the flag of the route the router matched; anything else is refused.
import { isWrite } from './access.js';
import type { FastifyInstance, FastifySchema } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without a session when auth is on. */
    public?: boolean;
  }
}

export const PUBLIC = { public: true } as const;

/** Mark every route registered in `app` (and the contexts below it) as public. Call before registering them. */
export function publicRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, ...PUBLIC };
  });
}

/** One row of the route table: what was registered, whether it is public, whether it changes something (access.ts), and its input schemas. */
export interface RouteRow {
  method: string;
  url: string;
  public: boolean;
  write: boolean;
  schema: FastifySchema;
}

/**
 * The route table: every route registered on `app` from now on (with the HEAD routes fastify
 * adds). Read when asked, since hooks of inner contexts (publicRoutes) run after this one.
 */
export function routeTable(app: FastifyInstance): () => RouteRow[] {
  const routes: Array<{
    method: string | string[];
    url: string;
    config?: { public?: boolean; reads?: boolean };
    schema?: FastifySchema;
  }> = [];
  app.addHook('onRoute', (route) => void routes.push(route));
  return () =>
    routes.flatMap((r) =>
      [r.method].flat().map((method) => ({
        method,
        url: r.url,
        public: r.config?.public === true,
        write: isWrite(method, r.config),
        schema: r.schema ?? {},
      })),
    );
}
