// Server-sent events for the dashboard (and any client without MQTT): the same state and patch
// messages the MQTT emission publishes, on `GET /{service_id}/events`. A `state` event goes out
// at once and then every emit interval; a `patch` event after every block change. Independent
// of the broker, so the page stays live while an external broker is away.
// At stop every stream gets a last `state` with `online: false` and ends, so the page shows
// offline and the HTTP server can close (an open stream would hold it until the stop limit).
// A client that stops reading is closed once STREAM_QUEUE_BYTES wait for it (slow-clients.ts),
// with a last `closed` event saying why; the browser's EventSource then reconnects to a fresh state.
// At most MAX_EVENT_STREAMS are open at once; one more is answered 503 with the reason.
// Each state and patch is serialized once and the same string written to every client: a hundred
// clients cost one JSON.stringify per emission, and what waits for slow ones is one string, not a
// copy each (scripts/slow-clients.ts measures it).
// Both also carry `blockSet`, the block set's id (BlockPersistence.blockSet): it changes with a
// backup load, in the load's own patch, so a client that remembers blocks by nid (the graph
// following renames) tells a rename from another block that took the nid.
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';
import { ALL, type BlockRuntime, type ChangeEvent } from '../runtime/runtime.js';
import { MAX_EVENT_STREAMS, STREAM_QUEUE_BYTES } from '../shared/limits.js';
import { CLOSE_GRACE_MS, SlowClients } from '../shared/slow-clients.js';
import { errorBody } from './error-body.js';

/** How long a browser waits before reconnecting after the stream drops (the SSE `retry` field). */
const RETRY_MS = 2000;

export interface EventSourceDeps {
  runtime: BlockRuntime;
  status: () => Record<string, unknown>;
  intervalMs: number;
  log?: Pick<Logger, 'warn'>;
}

interface Client {
  /** Write a frame, or close the client when too much waits for it already. */
  send: (frame: string) => void;
  close: () => void;
}

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export class EventStreams {
  private readonly open = new Set<Client>();
  private ended = false;
  /** Streams refused because MAX_EVENT_STREAMS were open. */
  private refusedFull = 0;
  private readonly slow: SlowClients;
  private readonly warnings: WarningLimiter | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly onChange = (ev: ChangeEvent) =>
    this.broadcast(
      frame('patch', {
        changed: ev.changed.map((b) => this.deps.runtime.read(b).json()),
        deleted: ev.deleted,
        blockSet: this.deps.runtime.blockSet(),
      }),
    );

  constructor(private readonly deps: EventSourceDeps) {
    this.warnings = deps.log && new WarningLimiter(deps.log);
    this.slow = new SlowClients(STREAM_QUEUE_BYTES, (reason) =>
      this.warnings?.warn('slow', { reason }, `event stream ${reason}`),
    );
  }

  status(): { clients: number; slowClosed: number; refused: number } {
    return { clients: this.open.size, slowClosed: this.slow.closed, refused: this.refusedFull };
  }

  /** Ends every stream with an offline state; streams opened later get that state and end at once. */
  end(): void {
    this.ended = true;
    for (const stream of [...this.open]) stream.close();
  }

  /** The `state` message as it goes out now (also the dashboard's prepaint). */
  stateMessage(online = true): {
    status: Record<string, unknown>;
    blocks: unknown[];
    relations: unknown;
    claims: unknown;
    blockSet: string;
  } {
    const { runtime, status } = this.deps;
    return {
      status: online ? status() : { ...status(), online: false },
      blocks: runtime.read(ALL).json(),
      relations: runtime.relations(),
      claims: runtime.claims(),
      blockSet: runtime.blockSet(),
    };
  }

  /** A `state` frame, or null when the state cannot be read now (logged, limited). */
  private stateFrame(online = true): string | null {
    try {
      return frame('state', this.stateMessage(online));
    } catch (e) {
      this.warnings?.warn('state', { err: (e as Error).message }, 'event stream: state not sent');
      return null;
    }
  }

  private broadcast(text: string | null): void {
    if (text === null) return;
    for (const client of [...this.open]) client.send(text);
  }

  /** One emission timer and one change listener for all clients, while there are any. */
  private add(client: Client): void {
    this.open.add(client);
    if (this.open.size > 1) return;
    this.deps.runtime.on('change', this.onChange);
    this.timer = setInterval(() => this.broadcast(this.stateFrame()), this.deps.intervalMs);
  }

  /** False when the client was gone already. */
  private remove(client: Client): boolean {
    if (!this.open.delete(client)) return false;
    if (this.open.size === 0) {
      clearInterval(this.timer);
      this.deps.runtime.off('change', this.onChange);
    }
    return true;
  }

  readonly routes: FastifyPluginAsync = async (app) => {
    app.addHook('preClose', async () => this.end());
    // GET only: a HEAD of an endless stream would never end (Node sends no headers for it until end()).
    app.get(
      '/events',
      {
        exposeHeadRoute: false,
        schema: {
          tags: ['system'],
          summary:
            'Server-sent events: `state` (every emit interval and on connect) and `patch` (after every change), as on MQTT',
        },
      },
      (req, reply) => {
        if (!this.ended && this.open.size >= MAX_EVENT_STREAMS) {
          this.refusedFull++;
          const message = `${MAX_EVENT_STREAMS} event streams are open, the most this service serves at once; close one (a browser tab of the dashboard holds one) and try again`;
          this.warnings?.warn('full', { limit: MAX_EVENT_STREAMS }, `event stream refused: ${message}`);
          return void reply.code(503).header('retry-after', '10').send(errorBody(503, message));
        }
        reply.hijack();
        const res = reply.raw;
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        res.write(`retry: ${RETRY_MS}\n\n`);
        if (this.ended) {
          const last = this.stateFrame(false);
          res.end(last ?? undefined);
          return;
        }
        const client: Client = {
          send: (text) => {
            if (res.writableEnded) return;
            const slow = this.slow.check(res.writableLength);
            if (!slow) return void res.write(text);
            // Too slow: a last event with the reason, and the connection cut if the client does not take it soon.
            if (!this.remove(client)) return;
            res.end(frame('closed', { reason: slow }));
            setTimeout(() => res.destroy(), CLOSE_GRACE_MS).unref();
          },
          close: () => {
            if (!this.remove(client)) return;
            const last = this.stateFrame(false);
            res.end(last ?? undefined);
          },
        };
        req.raw.on('close', () => this.remove(client));
        const first = this.stateFrame();
        if (first !== null) res.write(first);
        this.add(client);
      },
    );
  };
}
