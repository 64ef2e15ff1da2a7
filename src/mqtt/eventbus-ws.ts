// MQTT over websocket at /eventbus, on any HTTP(S) server: each connection is served by the
// embedded broker, or piped byte for byte to the external broker.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, createWebSocketStream, type WebSocket } from 'ws';
import { answerUpgrade, serveUpgrade } from '../api/upgrade-routes.js';
import type { Logger } from '../log.js';
import type { EmbeddedBroker } from './broker.js';

export const EVENTBUS_PATH = '/eventbus';
const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** The embedded broker, a fresh connection to the external one, or a refusal saying why there is none. */
export type EventbusTarget = { broker: EmbeddedBroker } | { upstream: () => Duplex } | { refused: string };

export class EventbusWebsocket {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private readonly detachers: Array<() => void> = [];

  constructor(
    private readonly target: EventbusTarget,
    private readonly log: Logger,
  ) {}

  get clients(): number {
    return this.wss.clients.size;
  }

  /** Serve upgrades of `server` for /eventbus (other paths are other listeners' or refused 404). */
  attach(server: Pick<Server, 'on' | 'off'>): void {
    // Origin and auth were checked by the server's upgrade guards (installCrossSiteUpgradeGuard,
    // installUpgradeGuard), which run before any path's listener.
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if ('refused' in this.target) return answerUpgrade(socket, 503, this.target.refused);
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
