// MQTT over websocket at /eventbus, a fastify route (src/api/upgrade-routes.ts) on the HTTP port
// and, handed over, the TLS gateway: each connection is served by the embedded broker, or piped
// byte for byte to the external broker. Host, origin and auth were checked by the app's
// onRequest hooks before the upgrade.
import type { FastifyPluginAsync } from 'fastify';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, type WebSocket } from 'ws';
import { websocketRoute } from '../api/upgrade-routes.js';
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';
import type { EmbeddedBroker } from './broker.js';

export const EVENTBUS_PATH = '/eventbus';

/** The embedded broker, a fresh connection to the external one, or a refusal saying why there is none. */
export type EventbusTarget = { broker: EmbeddedBroker } | { upstream: () => Duplex } | { refused: string };

export class EventbusWebsocket {
  private readonly open = new Set<WebSocket>();
  private target: EventbusTarget = { refused: 'the message bus is not started yet' };

  /** Each connection can fail the same way: one line a minute. */
  private readonly warnings: WarningLimiter;

  constructor(private readonly log: Logger) {
    this.warnings = new WarningLimiter(log);
  }

  get clients(): number {
    return this.open.size;
  }

  /** Where connections go from now on (set when the broker or the bridge is up). */
  serveTo(target: EventbusTarget): void {
    this.target = target;
  }

  /** The /eventbus route (register at the root). */
  readonly routes: FastifyPluginAsync = async (app) => {
    websocketRoute(
      app,
      EVENTBUS_PATH,
      { refusal: () => ('refused' in this.target ? { status: 503, message: this.target.refused } : null) },
      (ws, req) => this.serve(ws, req.raw),
    );
  };

  /** Ends every connection and refuses new ones. */
  close(): void {
    this.target = { refused: 'the message bus is stopping' };
    for (const ws of this.open) ws.terminate();
    this.open.clear();
  }

  private serve(ws: WebSocket, req: Parameters<EmbeddedBroker['handle']>[1]): void {
    this.open.add(ws);
    ws.once('close', () => this.open.delete(ws));
    const stream = createWebSocketStream(ws);
    stream.on('error', (err) => this.log.debug({ err: err.message }, 'eventbus websocket error'));
    const target = this.target;
    if ('broker' in target) {
      target.broker.handle(stream, req);
      return;
    }
    if (!('upstream' in target)) return void ws.terminate();
    let upstream: Duplex;
    try {
      upstream = target.upstream();
    } catch (e) {
      this.warnings.warn('upstream', { err: (e as Error).message }, 'eventbus: cannot reach the broker');
      ws.terminate();
      return;
    }
    const closeBoth = () => {
      stream.destroy();
      upstream.destroy();
    };
    upstream.on('error', (err) => {
      this.log.debug({ err: err.message }, 'eventbus: broker connection failed');
      closeBoth();
    });
    upstream.on('close', closeBoth);
    stream.on('close', closeBoth);
    stream.pipe(upstream);
    upstream.pipe(stream);
  }
}
