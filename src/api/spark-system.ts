// Spark service endpoints the Brewblox UI calls: the enabled setting, service restart, and
// clear "not applicable" answers for what only a Spark's own hardware can do.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { HttpError } from './errors.js';
import { NoBody } from './route-validation.js';

export interface SparkSystemDeps {
  enabled(): boolean;
  setEnabled(enabled: boolean): Promise<boolean>;
  /** Graceful restart: stop, then exit for the supervisor (systemd) to start the service again. */
  restart(): void;
}

const NOT_APPLICABLE: Record<string, string> = {
  '/system/flash': 'there is no controller firmware to flash: edgeblocks is the controller; update the package instead',
  '/system/usb': 'there is no USB-connected controller: the buses of this host are used directly',
  '/system/mdns': 'there is no controller to discover over mDNS: edgeblocks is the controller',
  '/system/reboot/controller': 'there is no separate controller to reboot; use system/reboot/service',
};

export function sparkSystemRoutes(deps: SparkSystemDeps): FastifyPluginAsync {
  return async (app) => {
    const tags = ['system'];
    const enabledSchema = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });
    app.get(
      '/settings/enabled',
      { schema: { tags, summary: 'Whether control is enabled', response: { 200: enabledSchema } } },
      async () => ({ enabled: deps.enabled() }),
    );
    app.put<{ Body: Static<typeof enabledSchema> }>(
      '/settings/enabled',
      {
        schema: {
          tags,
          summary: 'Enable or disable control; disabled drives every output safe (persisted)',
          body: enabledSchema,
          response: { 200: enabledSchema },
        },
      },
      async (req) => ({ enabled: await deps.setEnabled(req.body.enabled) }),
    );
    app.post(
      '/system/reboot/service',
      {
        schema: {
          tags,
          summary: 'Restart the service: outputs safe, then exit for systemd to restart it',
          body: NoBody,
        },
      },
      async (_req, reply) => {
        await reply.send({});
        setImmediate(() => deps.restart());
        return reply;
      },
    );
    for (const [path, message] of Object.entries(NOT_APPLICABLE)) {
      app.post(path, { schema: { tags, summary: `Not applicable: ${message}`, body: NoBody } }, async () => {
        throw new HttpError(409, `not applicable: ${message}`);
      });
    }
  };
}
