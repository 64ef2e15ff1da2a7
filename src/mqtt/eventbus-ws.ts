// MQTT over websocket at /eventbus, a fastify route (src/api/upgrade-routes.ts) on the HTTP port
// and, handed over, the TLS gateway: each connection is served by the embedded broker, or piped
// byte for byte to the external broker (with auth on, less what the user may not publish:
// bridge-publishes.ts). Host, origin and auth were checked by the app's onRequest hooks before
// the upgrade.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, type WebSocket } from 'ws';
import { websocketRoute } from '../api/upgrade-routes.js';
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';
import type { EmbeddedBroker } from './broker.js';
import type { withoutRefusedPublishes as WithoutRefused } from './bridge-publishes.js';
import { requestUser, type Role } from '../shared/roles.js';
import { MQTT_CLIENT_QUEUE_BYTES } from '../shared/limits.js';
import { CLOSE_GRACE_MS, SlowClients } from '../shared/slow-clients.js';

export const EVENTBUS_PATH = '/eventbus';

/** The embedded broker, a fresh connection to the external one, or a refusal saying why there is none. */
export type EventbusTarget = { broker: EmbeddedBroker } | { upstream: () => Duplex } | { refused: string };

export class EventbusWebsocket {
  private readonly open = new Set<WebSocket>();
  private target: EventbusTarget = { refused: 'the message bus is not started yet' };

  /** Each connection can fail the same way: one line a minute. */
  private readonly warnings: WarningLimiter;
  /** Publishes through the bridge dropped by the write rule (bridge-publishes.ts). */
  refusedPublishes = 0;
  /**
   * What the external broker sends a bridged client waits for it up to MQTT_CLIENT_QUEUE_BYTES, as
   * for a subscriber of the embedded broker. Piped, a client that stopped reading would stop the
   * bridge reading from the broker, and its backlog would pile up there, for ever.
   */
  private readonly slow: SlowClients;
  /**
   * The write rule on the bridge, loaded with the first bridged connection of a user: most
   * installs never bridge with auth on, and each module a start loads is read from the SD card.
   */
  private writeRule: Promise<typeof import('./bridge-publishes.js')> | null = null;

  /** `roleOf`: a user's role now (auth on); the bridge holds bridged users to it. */
  constructor(
    private readonly log: Logger,
    private readonly roleOf: (user: string) => Role | null = () => null,
  ) {
    this.warnings = new WarningLimiter(log);
    this.slow = new SlowClients(MQTT_CLIENT_QUEUE_BYTES, (reason) =>
      this.warnings.warn('slow', { reason }, `eventbus: a bridged client ${reason}`),
    );
  }

  /** Bridged clients closed for not reading (slow-clients.ts). */
  get slowClosed(): number {
    return this.slow.closed;
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
      (ws, req) => this.serve(ws, req),
    );
  };

  /** Ends every connection and refuses new ones. */
  close(): void {
    this.target = { refused: 'the message bus is stopping' };
    for (const ws of this.open) ws.terminate();
    this.open.clear();
  }

  private serve(ws: WebSocket, req: FastifyRequest): void {
    this.open.add(ws);
    ws.once('close', () => this.open.delete(ws));
    const stream = createWebSocketStream(ws);
    stream.on('error', (err) => this.log.debug({ err: err.message }, 'eventbus websocket error'));
    const target = this.target;
    if ('broker' in target) {
      target.broker.handle(stream, req.raw);
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
    let toBroker: Duplex | null = null;
    const closeBoth = () => {
      stream.destroy();
      toBroker?.destroy();
      upstream.destroy();
    };
    upstream.on('error', (err) => {
      this.log.debug({ err: err.message }, 'eventbus: broker connection failed');
      closeBoth();
    });
    upstream.on('close', closeBoth);
    stream.on('close', closeBoth);
    const connect = (through: Duplex) => {
      toBroker = through;
      if (through !== stream)
        through.on('error', (err) => {
          this.warnings.warn('not mqtt', { err: err.message }, `eventbus: closed a connection: ${err.message}`);
          closeBoth();
        });
      through.pipe(upstream);
      upstream.on('data', (chunk: Buffer) => {
        if (stream.destroyed) return;
        const slow = this.slow.check(stream.writableLength + ws.bufferedAmount);
        if (!slow) return void stream.write(chunk);
        upstream.destroy();
        ws.close(1008, 'too slow: the client did not read what was sent');
        setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
      });
    };
    const user = requestUser(req);
    if (!user) return connect(stream);
    // Both streams hold what arrives until they are piped.
    this.writeRule ??= import('./bridge-publishes.js');
    this.writeRule.then(
      ({ withoutRefusedPublishes }) => {
        if (!stream.destroyed && !upstream.destroyed)
          connect(stream.pipe(this.withoutRefused(withoutRefusedPublishes, user)));
      },
      (err: Error) => {
        this.writeRule = null; // the next connection tries again
        this.warnings.warn(
          'write rule',
          { err: err.message },
          `eventbus: cannot check what users publish: ${err.message}`,
        );
        closeBoth();
      },
    );
  }

  private withoutRefused(filter: typeof WithoutRefused, user: string) {
    return filter({
      user,
      roleOf: this.roleOf,
      onRefused: (topic, why, will) => {
        this.refusedPublishes++;
        const what = will ? 'the last will' : 'a publish';
        this.warnings.warn(
          'refused publish',
          { topic, who: `user ${user}`, reason: why, will: will === true },
          `eventbus: dropped ${what} on ${topic} by user ${user} before the broker: ${why}`,
        );
      },
    });
  }
}
