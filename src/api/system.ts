// Liveness and status.
import { READS } from './access.js';
import type { FastifyPluginAsync } from 'fastify';
import { NoBody } from './route-validation.js';

export type StatusProvider = () => Record<string, unknown>;

export function systemRoutes(status: StatusProvider): FastifyPluginAsync {
  return async (app) => {
    const ping = {
      tags: ['system'],
      summary: 'Liveness check',
      response: { 200: { type: 'object', properties: { ping: { type: 'string' } } } },
    };
    app.get('/system/ping', { schema: ping }, async () => ({ ping: 'pong' }));
    app.post('/system/ping', { schema: { ...ping, body: NoBody }, config: READS }, async () => ({ ping: 'pong' }));
    const statusRoute = {
      tags: ['system'],
      summary:
        'Service status: version, uptime, connections, hardware, records kept aside, and the Spark status description',
    };
    app.get('/system/status', { schema: statusRoute }, async () => status());
    app.post('/system/status', { schema: { ...statusRoute, body: NoBody }, config: READS }, async () => status());
  };
}
