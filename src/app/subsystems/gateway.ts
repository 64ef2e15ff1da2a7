// The TLS gateway (src/mqtt/gateway.ts): the HTTP app's routes and upgrades on the HTTPS port.
// A port it cannot bind, or a certificate it cannot make, is a warning: the controller runs on.
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { Gateway, type GatewayStatus } from '../../mqtt/gateway.js';
import { gatewayIdentity } from '../../mqtt/tls-cert.js';
import { writePrivateFile } from '../../store/file-modes.js';
import type { Subsystem } from '../lifecycle.js';
import type { HttpSubsystem } from './http.js';

export class GatewaySubsystem implements Subsystem {
  readonly name = 'https gateway';
  private gateway: Gateway | null = null;

  constructor(
    private readonly config: Config,
    private readonly http: HttpSubsystem,
    private readonly log: Logger,
  ) {}

  /** The bound port; null when off or not listening. */
  get port(): number | null {
    return this.gateway?.port ?? null;
  }

  async start(): Promise<void> {
    const { config, log } = this;
    if (config.httpsPort <= 0) return;
    try {
      const identity = await gatewayIdentity(
        {
          dataDir: config.dataDir,
          certFile: config.httpsCert,
          keyFile: config.httpsKey,
          writeFile: writePrivateFile,
        },
        log,
      );
      this.gateway = new Gateway({
        host: config.host,
        port: config.httpsPort,
        tls: identity,
        http: this.http.server,
        log: log.child({ module: 'mqtt' }),
        files: config.httpsCert && config.httpsKey ? { cert: config.httpsCert, key: config.httpsKey } : undefined,
      });
      await this.gateway.start();
    } catch (e) {
      log.warn({ err: (e as Error).message }, `https gateway off: ${(e as Error).message}`);
    }
  }

  async stop(): Promise<void> {
    await this.gateway?.close();
  }

  status(): { gateway: GatewayStatus | { port: 0; listening: false } } {
    return { gateway: this.gateway?.status() ?? { port: 0, listening: false } };
  }
}
