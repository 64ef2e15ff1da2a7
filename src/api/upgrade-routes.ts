// Websocket routes (/eventbus, /history/timeseries/stream) are fastify routes served by
// @fastify/websocket: an upgrade goes through the router and the one chain of onRequest hooks
// (host, cross-site, auth) like any request, on the HTTP port and (handed over) the TLS gateway.
// A route says it takes upgrades with `config.websocket`; an upgrade of any other route is
// answered 404, as is one of a path no route serves (the not-found handler). At most MAX_WEBSOCKETS
// are open at once, over all routes; one more is answered 503 with the reason.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/websocket';
import type { WebSocket } from 'ws';
import { MAX_WEBSOCKETS } from '../shared/limits.js';
import { errorBody } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route serves websocket upgrades. */
    websocket?: boolean;
  }
}

export interface WebsocketRouteOptions {
  /** Runs after the guards, before the upgrade: may refuse it (e.g. 503 while a bridge is off). */
  refusal?: (req: FastifyRequest) => { status: number; message: string } | null;
}

/** Serve websocket upgrades of `path` in `app`; a plain GET of it is 404. */
export function websocketRoute(
  app: FastifyInstance,
  path: string,
  opts: WebsocketRouteOptions,
  serve: (ws: WebSocket, req: FastifyRequest) => void,
): void {
  app.get(
    path,
    {
      websocket: true,
      exposeHeadRoute: false,
      config: { websocket: true },
      preHandler: (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
        if (!req.ws) return void reply.code(404).send(errorBody(404, `${path} serves websocket upgrades only`));
        if (app.websocketServer.clients.size >= MAX_WEBSOCKETS)
          return void reply
            .code(503)
            .header('retry-after', '10')
            .type('text/plain')
            .send(
              `${MAX_WEBSOCKETS} websockets are open, the most this service serves at once; close one (a browser tab of the Brewblox UI holds one) and try again`,
            );
        const refused = opts.refusal?.(req);
        if (refused) return void reply.code(refused.status).type('text/plain').send(refused.message);
        done();
      },
    },
    serve,
  );
}

/** Answer 404 to an upgrade of a route that serves none (install on the root, once). */
export function refusePlainRouteUpgrades(app: FastifyInstance): void {
  app.addHook('preHandler', (req, reply, done) => {
    if (req.ws && req.routeOptions.config.websocket !== true)
      return void reply.code(404).send(errorBody(404, `${req.url} serves no websocket upgrades`));
    done();
  });
}
