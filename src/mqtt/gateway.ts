// The TLS gateway (spec §1): one HTTPS port serving the controller's REST routes (handed to
// fastify's router, so routes, hooks and errors are the very same) and MQTT over websocket at
// /eventbus. A port it cannot bind is a warning, never a reason to stop the controller.
import type { FastifyInstance } from 'fastify';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { SERVER_TIMEOUTS } from '../api/timeouts.js';
import type { Logger } from '../log.js';
import type { TlsIdentity } from './tls-cert.js';
import { secureOptions, watchCertificate } from './tls-reload.js';
import { listen } from './listen.js';
import { certificateValidity } from '../shared/cert-validity.js';
import { isAddressInUse, portInUseMessage } from '../shared/port-in-use.js';

export interface GatewayStatus {
  port: number;
  listening: boolean;
  error: string | null;
  certificate: string;
  /** When the served certificate ends (ISO); null when it cannot be read as one. */
  certificateValidTo: string | null;
  /** Why browsers refuse, or will soon refuse, it (expired, ending within days, not valid yet); null when none. */
  certificateWarning: string | null;
}

export class Gateway {
  private server: Server | null = null;
  private boundPort: number | null = null;
  private error: string | null = null;
  /** Websockets (handed to the HTTP app) end with the gateway. */
  private readonly upgraded = new Set<Duplex>();
  /** The pair served: the configured files' latest valid one (tls-reload.ts). */
  private tls: TlsIdentity;
  private unwatch: (() => void) | null = null;

  constructor(
    private readonly opts: {
      host: string;
      port: number;
      tls: TlsIdentity;
      http: FastifyInstance;
      log: Logger;
      /** The configured certificate and key files, served anew when they are renewed; none for the generated pair. */
      files?: { cert: string; key: string };
    },
  ) {
    this.tls = opts.tls;
  }

  /** The bound port, or null when the gateway is not listening. */
  get port(): number | null {
    return this.boundPort;
  }

  /** Listen; on failure log why and how to fix it, and resolve anyway. */
  async start(): Promise<void> {
    const { host, port, http, log } = this.opts;
    // The pair last taken (a renewal while an earlier start ran), not the one it was made with.
    const server = createServer({ ...secureOptions(this.tls), ...SERVER_TIMEOUTS }, (req, res) =>
      http.routing(req, res),
    );
    server.keepAliveTimeout = 72_000;
    // Upgrades take the HTTP server's path: the same router and hooks (host, cross-site, auth),
    // /eventbus, the history stream, and 404 for anything else.
    server.on('upgrade', (req, socket, head) => {
      this.upgraded.add(socket);
      socket.once('close', () => this.upgraded.delete(socket));
      http.server.emit('upgrade', req, socket, head);
    });
    try {
      await listen(server, port, host);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      this.error = code;
      if (isAddressInUse(e)) {
        log.warn(
          { port, host, code },
          `https gateway off: ${portInUseMessage('HTTPS gateway', host, port, 'httpsPort', '; 0 = off')}; REST and /eventbus stay available on the HTTP port`,
        );
        server.close();
        return;
      }
      // A low port refused: the installed unit has the capability, so this is a start by hand. No
      // setcap advice: on the node binary it lets every Node program bind low ports.
      const fix =
        code === 'EACCES' || code === 'EPERM'
          ? 'ports below 1024 need CAP_NET_BIND_SERVICE, which the systemd unit grants; started by hand, choose another port with --https-port 8443, or --https-port 0 for no gateway'
          : 'choose another port with --https-port, or --https-port 0 for no gateway';
      log.warn(
        { port, host, code },
        `https gateway cannot listen on ${host}:${port} (${code}); REST and /eventbus stay available on the HTTP port: ${fix}`,
      );
      server.close();
      return;
    }
    server.on('error', (err) => log.error({ err }, 'https gateway error'));
    server.on('tlsClientError', (err) => log.debug({ err: err.message }, 'https gateway: TLS handshake failed'));
    this.server = server;
    this.boundPort = (server.address() as AddressInfo).port;
    if (this.opts.files)
      this.unwatch = watchCertificate(
        this.opts.files,
        () => this.tls,
        (tls) => {
          server.setSecureContext(secureOptions(tls));
          this.tls = tls;
        },
        log,
      );
    log.info({ host, port: this.boundPort }, `https gateway listening on ${host}:${this.boundPort}`);
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.unwatch?.();
    this.unwatch = null;
    this.boundPort = null;
    if (!server) return;
    server.closeAllConnections();
    for (const socket of this.upgraded) socket.destroy();
    this.upgraded.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  status(): GatewayStatus {
    return {
      port: this.boundPort ?? this.opts.port,
      listening: this.server !== null,
      error: this.error,
      certificate: this.tls.source,
      // Worked out at each request: a certificate that ends while the service runs (or a renewed one) shows here.
      ...certificateStatus(this.tls),
    };
  }
}

function certificateStatus(tls: TlsIdentity): Pick<GatewayStatus, 'certificateValidTo' | 'certificateWarning'> {
  const validity = certificateValidity(tls.cert, tls.source);
  return 'error' in validity
    ? { certificateValidTo: null, certificateWarning: validity.error }
    : { certificateValidTo: validity.validTo, certificateWarning: validity.warning };
}
