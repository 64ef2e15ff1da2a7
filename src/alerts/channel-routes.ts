// REST for the channels, under the controller prefix: GET /alerts/channels lists every kind with
// where its channel comes from and its settings without the secrets; PUT /alerts/channels/<kind>
// sets one up from the dashboard (one route per kind, its body the kind's own schema with the
// secrets optional: left out = keep, null = remove); DELETE /alerts/channels/<kind> removes it.
// PUT and DELETE are ordinary write routes: with auth on they need a login, like every other change.
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../api/errors.js';
import { NoBody } from '../api/route-validation.js';
import { requestRole } from '../shared/roles.js';
import { ChannelConflictError, ChannelNotFoundError } from './channel-store.js';
import { CHANNELS } from './channels/index.js';
import { secretFields, type ChannelDef } from './channels/types.js';
import type { AlertsApi } from './routes-api.js';
import { SchemaError } from './schema-check.js';

const tags = ['alerts'];

/** The body of PUT /alerts/channels/<name>: the kind's schema with every secret optional and nullable. */
export function channelInputSchema(def: ChannelDef): TObject {
  const secrets = secretFields(def.schema);
  const properties = Object.fromEntries(
    Object.entries(def.schema.properties).map(([k, s]): [string, TSchema] =>
      secrets.includes(k) ? [k, Type.Optional(Type.Union([s as TSchema, Type.Null()]))] : [k, s as TSchema],
    ),
  );
  return Type.Object(properties, { additionalProperties: false });
}

function asHttp(e: unknown): never {
  if (e instanceof SchemaError) throw new HttpError(422, e.message, e.issues);
  if (e instanceof ChannelConflictError) throw new HttpError(409, e.message);
  if (e instanceof ChannelNotFoundError) throw new HttpError(404, e.message);
  throw e;
}

export function channelRoutes(app: FastifyInstance, alerts: AlertsApi): void {
  app.get(
    '/alerts/channels',
    {
      schema: {
        tags,
        summary:
          'Every channel kind: whether it is set up, from the config file (read-only here) or the dashboard, its settings without the secrets (to a viewer, none of its settings: addresses and hosts are for admins), and its schema',
      },
    },
    async (req) => ({ channels: alerts.channelStore.view({ settings: requestRole(req) !== 'viewer' }) }),
  );
  for (const def of CHANNELS) {
    app.put<{ Body: Record<string, unknown> }>(
      `/alerts/channels/${def.name}`,
      {
        schema: {
          tags,
          summary: `Set up or replace the dashboard's ${def.name} channel (${def.title}). A secret left out keeps the stored one; null removes it. 409 when the config file sets it.`,
          body: channelInputSchema(def),
        },
      },
      async (req) => {
        try {
          alerts.saveChannel(def.name, req.body);
        } catch (e) {
          asHttp(e);
        }
        return { channel: alerts.channelStore.view().find((c) => c.name === def.name) };
      },
    );
    app.delete(
      `/alerts/channels/${def.name}`,
      {
        schema: {
          tags,
          summary: `Remove the dashboard's ${def.name} channel (messages waiting for it are dropped). 409 when the config file sets it.`,
          body: NoBody,
        },
      },
      async () => {
        try {
          alerts.removeChannel(def.name);
        } catch (e) {
          asHttp(e);
        }
        return { removed: def.name };
      },
    );
  }
}
