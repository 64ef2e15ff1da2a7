// The request guard: with auth on, every request needs a session cookie or an API token, unless
// the route the router matched says it is public (`config.public`, see src/api/public-routes.ts): the
// login contract under /auth/, the API index and the dashboard's static files, which hold no data
// and show the login. The decision is made on the matched route, never on the raw URL (the router
// decodes `%65dge-one` to `edge-one`; a guard reading the raw text would not), and a request that
// matched nothing (a 404) is refused like any other: refuse by default.
// Websocket upgrades never reach fastify's hooks: installUpgradeGuard refuses them first.
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from '../api/errors.js';
import type { Auth } from './auth.js';
import { answerUpgrade } from '../api/upgrade-routes.js';
import '../api/public-routes.js';

/** Install the guard on the root instance, before the API contexts are registered. */
export function installAuthGuard(app: FastifyInstance, auth: Auth): void {
  if (!auth.enabled) return;
  app.decorateRequest('user', null);
  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.config.public === true) return;
    const grant = auth.grantOf(req.headers);
    if (grant) {
      (req as unknown as { user: string }).user = grant.user;
      // Held until the answer is done: an event stream ends when its session or user does.
      auth.holdWhileOpen(grant, reply.raw, () => req.raw.socket.destroy());
      return;
    }
    reply.header('www-authenticate', 'Bearer realm="edgeblocks"');
    return reply.status(401).send(errorBody(401, 'login required: POST /auth/login {username, password} for a session cookie, or send "Authorization: Bearer <token>" (edgeblocks user token NAME)'));
  });
}

/**
 * Refuse every websocket upgrade (/eventbus, /history/timeseries/stream, ...) without a session
 * or token, before any other upgrade listener sees it (those then find the socket closed). No
 * websocket is part of the login contract or the static UI. Listeners may check again.
 */
export function installUpgradeGuard(server: Pick<Server, 'prependListener'>, auth: Auth): void {
  if (!auth.enabled) return;
  server.prependListener('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const grant = auth.grantOf(req.headers);
    if (grant) return auth.holdWhileOpen(grant, socket, () => socket.destroy());
    answerUpgrade(socket, 401);
    socket.destroy();
  });
}
