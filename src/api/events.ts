// Server-sent events for the dashboard (and any client without MQTT): the same state and patch
// messages the MQTT emission publishes, on `GET /{service_id}/events`. A `state` event goes out
// at once and then every emit interval; a `patch` event after every block change. Independent
// of the broker, so the page stays live while an external broker is away.
import type { FastifyPluginAsync } from 'fastify';
import type { BlockRuntime, ChangeEvent } from '../runtime/runtime.js';

/** How long a browser waits before reconnecting after the stream drops (the SSE `retry` field). */
const RETRY_MS = 2000;

export interface EventSourceDeps {
  runtime: BlockRuntime;
  status: () => Record<string, unknown>;
  intervalMs: number;
}

export function eventRoutes(deps: EventSourceDeps): FastifyPluginAsync {
  const { runtime, status, intervalMs } = deps;
  return async (app) => {
    // GET only: a HEAD of an endless stream would never end (Node sends no headers for it until end()).
    app.get('/events', { exposeHeadRoute: false, schema: { tags: ['system'], summary: 'Server-sent events: `state` (every emit interval and on connect) and `patch` (after every change), as on MQTT' } }, (req, reply) => {
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
      const send = (event: string, data: unknown) => {
        if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      const sendState = () => {
        try {
          send('state', { status: status(), blocks: runtime.readAll(), relations: runtime.relations(), claims: runtime.claims() });
        } catch (e) {
          req.log.error({ err: e }, 'event stream: state not sent');
        }
      };
      const onChange = (ev: ChangeEvent) => send('patch', { changed: ev.changed.map((b) => runtime.toJson(b)), deleted: ev.deleted });
      res.write(`retry: ${RETRY_MS}\n\n`);
      sendState();
      const timer = setInterval(sendState, intervalMs);
      runtime.on('change', onChange);
      const close = () => {
        clearInterval(timer);
        runtime.off('change', onChange);
      };
      req.raw.on('close', close);
      app.addHook('onClose', async () => {
        close();
        res.end();
      });
    });
  };
}
