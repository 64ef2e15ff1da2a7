// REST under the controller prefix. Nothing here returns a channel's secret (its URL included).
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { HttpError } from '../api/errors.js';
import { NoBody } from '../api/route-validation.js';
import type { AlertsApi } from './routes-api.js';
import { channelRoutes } from './channel-routes.js';
import { CHANNELS } from './channels/index.js';
import { RulesSchema } from './rules.js';

const tags = ['alerts'];

export function alertRoutes(alerts: AlertsApi): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/alerts',
      {
        schema: {
          tags,
          summary:
            'Active alerts, the last events (fired, resolved, acknowledged, delivered or not and why), the outbox',
        },
      },
      async () => ({
        ...alerts.status(),
        active: alerts.active(),
        history: alerts.history(),
      }),
    );
    app.post<{ Querystring: { channel?: string } }>(
      '/alerts/test',
      {
        schema: {
          tags,
          summary:
            'Send a test message to every channel now (or, with ?channel=<name>, to that one: for the heartbeat, one call); answers what each said',
          querystring: Type.Object(
            { channel: Type.Optional(Type.Union(CHANNELS.map((c) => Type.Literal(c.name)))) },
            { additionalProperties: false },
          ),
          body: NoBody,
        },
      },
      async (req) => {
        const only = req.query.channel;
        const results = await alerts.sendTest(only);
        if (only && !results.length) throw new HttpError(404, `no ${only} channel is set up`);
        return { channels: results };
      },
    );
    channelRoutes(app, alerts);
    app.post<{ Body: { key: string } }>(
      '/alerts/acknowledge',
      {
        schema: {
          tags,
          summary: 'Acknowledge an active alert (stops its reminders)',
          body: Type.Object({ key: Type.String({ minLength: 1, maxLength: 300 }) }, { additionalProperties: false }),
        },
      },
      async (req) => {
        if (!alerts.acknowledge(req.body.key)) throw new HttpError(404, `no active alert with key '${req.body.key}'`);
        return { key: req.body.key, acknowledged: true };
      },
    );
    app.get(
      '/alerts/rules',
      {
        schema: {
          tags,
          summary: 'The effective alert rules, the stored rules document, and its error if it is not valid',
        },
      },
      async () => alerts.currentRules(),
    );
    app.put<{ Body: Static<typeof RulesSchema> }>(
      '/alerts/rules',
      {
        schema: {
          tags,
          summary:
            'Replace the rules document (datastore {namespace: <service id>, id: "alerts"}); times in seconds, temperatures in degC',
          description: 'What the document leaves out comes from the config file, else the defaults shown here.',
          body: RulesSchema,
        },
      },
      async (req) => ({ rules: alerts.setRules(req.body) }),
    );
  };
}
