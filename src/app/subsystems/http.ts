// The HTTP app: every API context and root plugin (dashboard, /eventbus) behind one chain of
// onRequest hooks (host, cross-site, auth) that covers requests, event streams and websocket
// upgrades alike. Listens at start; close() ends streams and websockets.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { AddressInfo } from 'node:net';
import { StalledAnswers } from '../../api/answer-stall.js';
import { installCrossSiteGuard } from '../../api/csrf.js';
import { installHostGuard } from '../../api/host-guard.js';
import { buildServer, type ApiContext } from '../../api/server.js';
import type { Auth } from '../../auth/auth.js';
import { installAuthGuard } from '../../auth/guard.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { hostProblem, isAddressInUse, portInUseMessage, PortInUseError } from '../../shared/port-in-use.js';
import type { StorageHealth } from '../../store/storage-health.js';
import type { Subsystem } from '../lifecycle.js';

export interface HttpParts {
  contexts: ApiContext[];
  /** Plugins at the root, outside every API prefix. */
  roots: FastifyPluginAsync[];
}

export class HttpSubsystem implements Subsystem {
  readonly name = 'http';
  readonly phase = 'listen';
  /** Base URL of the controller API once listening, else ''. */
  url = '';

  private built: FastifyInstance | null = null;
  private stalled: StalledAnswers | null = null;

  constructor(
    private readonly config: Config,
    private readonly log: Logger,
  ) {}

  /** The fastify app (after build()). */
  get server(): FastifyInstance {
    if (!this.built) throw new Error('the HTTP app is not built yet');
    return this.built;
  }

  /** Register every route behind the guards; once, before start(). */
  async build(auth: Auth, storage: StorageHealth, parts: HttpParts): Promise<void> {
    const { config, log } = this;
    const stalled = (this.stalled = new StalledAnswers(log.child({ module: 'http' })));
    const guards = [
      (app: FastifyInstance) => installHostGuard(app, config),
      (app: FastifyInstance) =>
        app.addHook('onError', (_req, _reply, err, done) => {
          storage.noteError(err);
          done();
        }),
      (app: FastifyInstance) => installCrossSiteGuard(app, config.allowedOrigins),
      (app: FastifyInstance) => installAuthGuard(app, auth),
      // Not a guard: answers the client stops taking are cut (answer-stall.ts), on every route.
      (app: FastifyInstance) => stalled.install(app),
    ];
    this.built = await buildServer(log.child({ module: 'http' }), parts.contexts, {}, guards, parts.roots);
  }

  async start(): Promise<void> {
    const { config, log, server } = this;
    await server.listen({ host: config.host, port: config.port }).catch((e: unknown) => {
      throw isAddressInUse(e)
        ? new PortInUseError(portInUseMessage('HTTP', config.host, config.port, 'port', '; 0 picks a free one'))
        : (hostProblem(e, config.host) ?? e);
    });
    const addr = server.server.address() as AddressInfo;
    const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    this.url = `http://${host}:${addr.port}/${config.serviceId}`;
    log.info(
      { port: addr.port, host: config.host },
      `http listening on http://${config.host}:${addr.port} (docs: /${config.serviceId}/api/doc)`,
    );
  }

  status(): Record<string, unknown> {
    return { http: { stalledAnswers: this.stalled?.cut ?? 0 } };
  }

  async stop(): Promise<void> {
    await this.built?.close();
  }
}
