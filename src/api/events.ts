// Server-sent events for the dashboard (and any client without MQTT): the same state and patch
// messages the MQTT emission publishes, on `GET /{service_id}/events`. A `state` event goes out
// at once and then every emit interval; a `patch` event after every block change. Independent
// of the broker, so the page stays live while an external broker is away.
// At stop every stream gets a last `state` with `online: false` and ends, so the page shows
// offline and the HTTP server can close (an open stream would hold it until the stop limit).
// A client that stops reading is closed once STREAM_QUEUE_BYTES wait for it (slow-clients.ts),
// with a last `closed` event saying why; the browser's EventSource then reconnects to a fresh state.
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';
import { ALL, type BlockRuntime, type ChangeEvent } from '../runtime/runtime.js';
import { STREAM_QUEUE_BYTES } from '../shared/limits.js';
import { CLOSE_GRACE_MS, SlowClients } from '../shared/slow-clients.js';

/** How long a browser waits before reconnecting after the stream drops (the SSE `retry` field). */
const RETRY_MS = 2000;

export interface EventSourceDeps {
  runtime: BlockRuntime;
  status: () => Record<string, unknown>;
  intervalMs: number;
  log?: Pick<Logger, 'warn'>;
}

export class EventStreams {
  private readonly open = new Set<{ close: () => void }>();
  private ended = false;
  private readonly slow: SlowClients;

  constructor(private readonly deps: EventSourceDeps) {
    const warnings = deps.log && new WarningLimiter(deps.log);
    this.slow = new SlowClients(STREAM_QUEUE_BYTES, (reason) =>
      warnings?.warn('slow', { reason }, `event stream ${reason}`),
    );
  }

  status(): { clients: number; slowClosed: number } {
    return { clients: this.open.size, slowClosed: this.slow.closed };
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
  } {
    const { runtime, status } = this.deps;
    return {
      status: online ? status() : { ...status(), online: false },
      blocks: runtime.read(ALL).json(),
      relations: runtime.relations(),
      claims: runtime.claims(),
    };
  }

  readonly routes: FastifyPluginAsync = async (app) => {
    const { runtime, intervalMs } = this.deps;
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
        reply.hijack();
        const res = reply.raw;
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        const send = (event: string, data: unknown) => {
          if (res.writableEnded) return;
          const slow = this.slow.check(res.writableLength);
          if (slow) return stream.cut(slow);
          res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        };
        const sendState = (online = true) => {
          try {
            send('state', this.stateMessage(online));
          } catch (e) {
            req.log.error({ err: e }, 'event stream: state not sent');
          }
        };
        res.write(`retry: ${RETRY_MS}\n\n`);
        if (this.ended) {
          sendState(false);
          res.end();
          return;
        }
        let timer: NodeJS.Timeout | undefined;
        const onChange = (ev: ChangeEvent) =>
          send('patch', { changed: ev.changed.map((b) => runtime.read(b).json()), deleted: ev.deleted });
        const detach = () => {
          if (!this.open.delete(stream)) return false;
          clearInterval(timer);
          runtime.off('change', onChange);
          return true;
        };
        const stream = {
          close: () => {
            if (!detach()) return;
            sendState(false);
            res.end();
          },
          /** Too slow: a last event with the reason, and the connection cut if the client does not take it soon. */
          cut: (reason: string) => {
            if (!detach()) return;
            res.end(`event: closed\ndata: ${JSON.stringify({ reason })}\n\n`);
            setTimeout(() => res.destroy(), CLOSE_GRACE_MS).unref();
          },
        };
        this.open.add(stream);
        req.raw.on('close', detach);
        runtime.on('change', onChange);
        sendState();
        timer = setInterval(sendState, intervalMs);
      },
    );
  };
}
