// The request guard: with auth on, every request needs a session cookie or an API token, unless
// the route the router matched says it is public (`config.public`, see src/api/public-routes.ts): the
// login contract under /auth/, the API index and the dashboard's static files, which hold no data
// and show the login. The decision is made on the matched route, never on the raw URL (the router
// decodes `%65dge-one` to `edge-one`; a guard reading the raw text would not), and a request that
// matched nothing (a 404) is refused like any other: refuse by default.
// Websocket upgrades (/eventbus, the history stream) are routes too and pass the same hook.
// A viewer (src/shared/roles.ts) is refused every write with 403 naming its role: a route that is not GET or
// HEAD changes something unless it says it only reads (src/api/access.ts). The upgrades are GETs:
// what a viewer may do on /eventbus is the embedded broker's to decide (src/mqtt/acl.ts).
import type { FastifyInstance } from 'fastify';
import { errorBody } from '../api/errors.js';
import type { Auth } from './auth.js';
import type {} from '@fastify/websocket';
import '../api/public-routes.js';
import { isWrite } from '../api/access.js';
import { mayWrite, writeRefusal } from '../shared/roles.js';

/** Install the guard on the root instance, before the API contexts are registered. */
export function installAuthGuard(app: FastifyInstance, auth: Auth): void {
  if (!auth.enabled) return;
  app.decorateRequest('user', null);
  app.decorateRequest('role', null);
  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.config.public === true) return;
    const grant = auth.grantOf(req.headers);
    if (grant) {
      const role = auth.roleOf(grant.user) ?? 'viewer';
      Object.assign(req, { user: grant.user, role });
      if (!mayWrite(role) && isWrite(req.method, req.routeOptions.config))
        return reply
          .status(403)
          .send(errorBody(403, writeRefusal(grant.user, role, `${req.method} ${req.url.split('?')[0]}`)));
      // Held until the answer is done (or, for a websocket, the socket closes): an event stream
      // or a websocket ends when its session or user does.
      auth.holdWhileOpen(grant, req.ws ? req.raw.socket : reply.raw, () => req.raw.socket.destroy());
      return;
    }
    reply.header('www-authenticate', 'Bearer realm="edgeblocks"');
    return reply
      .status(401)
      .send(
        errorBody(
          401,
          'login required: POST /auth/login {username, password} for a session cookie, or send "Authorization: Bearer <token>" (edgeblocks user token NAME)',
        ),
      );
  });
}
