// Liveness and status.
import type { FastifyPluginAsync } from 'fastify';

export type StatusProvider = () => Record<string, unknown>;

export function systemRoutes(status: StatusProvider): FastifyPluginAsync {
  return async (app) => {
    const ping = {
      schema: {
        tags: ['system'],
        summary: 'Liveness check',
        response: { 200: { type: 'object', properties: { ping: { type: 'string' } } } },
      },
    };
    app.get('/system/ping', ping, async () => ({ ping: 'pong' }));
    app.post('/system/ping', ping, async () => ({ ping: 'pong' }));
    const statusRoute = {
      schema: {
        tags: ['system'],
        summary:
          'Service status: version, uptime, connections, hardware, records kept aside, and the Spark status description',
      },
    };
    app.get('/system/status', statusRoute, async () => status());
    app.post('/system/status', statusRoute, async () => status());
  };
}
