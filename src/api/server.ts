// The HTTP application: one fastify instance with a JSON parser that names bad bodies, the
// shared error envelope, and one encapsulated context per documented API (each with its own
// Swagger page).
import fastifyWebsocket from '@fastify/websocket';
import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyServerOptions,
} from 'fastify';
import type { Logger } from '../log.js';
import { apiDocs } from './docs.js';
import { frameworkErrors, HttpError, installErrorHandling } from './errors.js';
import { installHttpHints } from './http-hints.js';
import { lazyChildLogger } from './lazy-logger.js';
import { indexRoute } from './index-route.js';
import { FASTIFY_TIMEOUTS } from './timeouts.js';
import { PUBLIC, publicRoutes, routeTable, type RouteRow } from './public-routes.js';
import { parseJson, utf8Problem } from '../shared/json.js';
import { BODY_LIMIT, WEBSOCKET_MAX_FRAME_BYTES } from '../shared/limits.js';
import { refusePlainRouteUpgrades } from './upgrade-routes.js';
import { compileRouteInput, NoQuery, PageQuery } from './route-validation.js';

export interface ApiContext {
  /** URL prefix of the context, e.g. `/edge-one` or `/history`. */
  prefix: string;
  title: string;
  description: string;
  plugins: FastifyPluginAsync[];
  /** Served without a session when auth is on (the login contract). */
  public?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with its method and whether it is public (for the auth guard's tests and the index). */
    routeTable(): RouteRow[];
  }
}

/** A guard adds root hooks (auth, origin checks) before any route exists, so every route gets them. */
export type Guard = (app: FastifyInstance) => void;

/**
 * `roots` are plugins at the root, outside every API prefix (the dashboard); when none of them
 * answers `GET /`, a JSON index of the APIs does.
 */
export async function buildServer(
  log: Logger,
  contexts: ApiContext[],
  opts: Partial<FastifyServerOptions> = {},
  guards: Guard[] = [],
  roots: FastifyPluginAsync[] = [],
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: log,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyChildLogger,
    bodyLimit: BODY_LIMIT,
    ...FASTIFY_TIMEOUTS,
    // A bad %-escape or an over-long path parameter: refused in the error envelope, not fastify's own.
    frameworkErrors,
    // Each route's input is checked against its own TypeBox schema (route-validation.ts, not Ajv);
    // responses are serialised as they are, so no field is ever dropped by a response schema.
    // Given as factories, so contexts that add shared schemas get them too.
    schemaController: {
      compilersFactory: {
        buildValidator: () => compileRouteInput as never,
        buildSerializer: () => () => (data: unknown) => JSON.stringify(data),
      },
    },
    ...opts,
  });
  // A route that declares no query string takes none.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema };
    route.schema.querystring ??= NoQuery;
  });
  app.decorate('routeTable', routeTable(app));
  installErrorHandling(app);
  // Websocket upgrades go through the router and the guards' hooks like any request; close()
  // ends open sockets at once (a close handshake would wait for the client).
  await app.register(fastifyWebsocket, {
    options: { maxPayload: WEBSOCKET_MAX_FRAME_BYTES },
    preClose(done) {
      for (const ws of this.websocketServer.clients) ws.terminate();
      done();
    },
  });
  for (const guard of guards) guard(app);
  refusePlainRouteUpgrades(app);
  installHttpHints(app);
  app.removeContentTypeParser('application/json');
  // The route's own limits (body-limits.ts): a backup body may be larger and deeper than others.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const notUtf8 = utf8Problem('the body', body as Buffer);
    if (notUtf8) return done(new HttpError(400, notUtf8), undefined);
    const text = (body as Buffer).toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    const { bodyLimit, config } = req.routeOptions;
    const parsed = parseJson(text, {
      maxBytes: bodyLimit ?? BODY_LIMIT,
      what: 'the body',
      maxDepth: config?.jsonDepth,
      // A refusal quotes a number a double cannot hold as sent (errors.ts), a backup load's messages too.
      sent: true,
      // A backup uploaded to be stored is written as sent (stored-backups.ts).
      keepText: config?.keepText === true,
    });
    if (!parsed.ok) return done(new HttpError(parsed.problem === 'too large' ? 413 : 400, parsed.reason), undefined);
    done(null, parsed.value);
  });
  for (const ctx of contexts) {
    await app.register(async (child) => {
      if (ctx.public) publicRoutes(child);
      const docs = apiDocs(ctx);
      await child.register(docs.collect);
      for (const plugin of ctx.plugins) await child.register(plugin, { prefix: ctx.prefix });
      await child.register(docs.pages);
    });
  }
  for (const root of roots) await app.register(root);
  const index = { schema: { hide: true, querystring: PageQuery }, config: PUBLIC };
  app.get('/api', index, indexRoute(contexts));
  if (!app.hasRoute({ method: 'GET', url: '/' })) app.get('/', index, indexRoute(contexts));
  return app;
}
