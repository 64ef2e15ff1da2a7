// MQTT over websocket at /eventbus, on any HTTP(S) server: each connection is served by the
// embedded broker, or piped byte for byte to the external broker.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, createWebSocketStream, type WebSocket } from 'ws';
import { crossSiteRefusal } from '../api/csrf.js';
import { serveUpgrade } from '../api/upgrade-routes.js';
import type { Logger } from '../log.js';
import { normalOrigin } from '../origin.js';
import type { EmbeddedBroker } from './broker.js';

export const EVENTBUS_PATH = '/eventbus';
const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** The embedded broker, a fresh connection to the external one, or a refusal saying why there is none. */
export type EventbusTarget = { broker: EmbeddedBroker } | { upstream: () => Duplex } | { refused: string };

export class EventbusWebsocket {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private readonly detachers: Array<() => void> = [];
  private readonly allowedOrigins: string[];

  constructor(
    private readonly target: EventbusTarget,
    private readonly log: Logger,
    /** With auth on: whether an upgrade request carries a valid session or token. */
    private readonly allowUpgrade: (req: IncomingMessage) => boolean = () => true,
    allowedOrigins: readonly string[] = [],
  ) {
    this.allowedOrigins = allowedOrigins.map(normalOrigin);
  }

  get clients(): number {
    return this.wss.clients.size;
  }

  /** Serve upgrades of `server` for /eventbus (other paths are other listeners' or refused 404). */
  attach(server: Pick<Server, 'on' | 'off'>): void {
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if ('refused' in this.target) {
        const reason = this.target.refused;
        socket.end(`HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`);
        return;
      }
      const refused = crossSiteRefusal(req.headers, this.allowedOrigins);
      if (refused) {
        this.log.warn({ origin: req.headers.origin, referer: req.headers.referer }, `eventbus websocket ${refused}`);
        socket.end(`HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(refused)}\r\n\r\n${refused}`);
        return;
      }
      if (!this.allowUpgrade(req)) {
        socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(ws, req));
    };
    this.detachers.push(serveUpgrade(server, EVENTBUS_PATH, onUpgrade));
  }

  close(): void {
    for (const detach of this.detachers.splice(0)) detach();
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }

  private serve(ws: WebSocket, req: IncomingMessage): void {
    const stream = createWebSocketStream(ws);
    stream.on('error', (err) => this.log.debug({ err: err.message }, 'eventbus websocket error'));
    if ('broker' in this.target) {
      this.target.broker.handle(stream, req);
      return;
    }
    if (!('upstream' in this.target)) return;
    let upstream: Duplex;
    try {
      upstream = this.target.upstream();
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'eventbus: cannot reach the broker');
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
