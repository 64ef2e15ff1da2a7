// The request guard: with auth on, every request needs a session cookie or an API token, except
//  - the login contract under /auth/ (status, login, refresh, logout): how a client gets in;
//  - GET/HEAD outside the API prefixes: the static UI files, which hold no data and show the login.
// Websocket upgrades never reach fastify's hooks: installUpgradeGuard refuses them first.
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from '../api/errors.js';
import type { Auth } from './auth.js';
import { answerUpgrade } from '../api/upgrade-routes.js';

export const AUTH_PREFIX = '/auth/';

/** Whether a request may pass without a session. `protectedPrefixes` are the API prefixes, e.g. `/edge-one`. */
export function isOpenRoute(method: string, url: string, protectedPrefixes: string[]): boolean {
  const path = url.split('?')[0]!;
  if (path.startsWith(AUTH_PREFIX)) return true;
  if (method !== 'GET' && method !== 'HEAD') return false;
  return !protectedPrefixes.some((p) => path === p || path.startsWith(p.endsWith('/') ? p : `${p}/`));
}

/** Install the guard on the root instance, before the API contexts are registered. */
export function installAuthGuard(app: FastifyInstance, auth: Auth, protectedPrefixes: string[]): void {
  if (!auth.enabled) return;
  app.decorateRequest('user', null);
  app.addHook('onRequest', async (req, reply) => {
    if (isOpenRoute(req.method, req.url, protectedPrefixes)) return;
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
