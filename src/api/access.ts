// Which routes change something (issue 45.8): every method but GET and HEAD does, unless the route
// says it only reads (`config: {reads: true}`): the Brewblox API reads with POST (blocks/read,
// datastore/get, the timeseries queries). The auth guard refuses a write by a viewer with 403
// naming the role (src/auth/guard.ts, the rule in src/shared/roles.ts); the route table shows the flag.
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST (or other method) that changes nothing: a viewer may call it. */
    reads?: boolean;
  }
}

export const READS = { reads: true } as const;

/** Whether a request to a route with this method and config changes something. */
export function isWrite(method: string, config: { reads?: boolean } | undefined): boolean {
  return !(method === 'GET' || method === 'HEAD' || config?.reads === true);
}

/** Mark every route registered in `app` (and the contexts below it) as read-only. Call before registering them. */
export function readRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, ...READS };
  });
}
