// The `alerts` section of the config file: channels (with their secrets), the heartbeat, the
// delivery timings and the starting rules. Secrets live only here; nothing of this section is
// logged or served except channel names.
import { Type, type Static } from '@sinclair/typebox';
import { RulesSchema } from './rules.js';
import { checked } from './schema-check.js';

const url = (description: string) => Type.String({ pattern: '^https?://[^/\\s]+', description });
const strict = { additionalProperties: false } as const;

export const NtfySchema = Type.Object(
  {
    url: url('topic URL, e.g. https://ntfy.sh/my-brewery-5f3a'),
    token: Type.Optional(Type.String({ minLength: 1, description: 'access token (Bearer); secret' })),
  },
  strict,
);

export const WebhookSchema = Type.Object(
  {
    url: url('receives a JSON POST per message'),
    headers: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]+$' }), Type.String(), {
        description: 'extra headers (e.g. X-Gotify-Key); secret',
      }),
    ),
  },
  strict,
);

export const EmailSchema = Type.Object(
  {
    host: Type.String({ minLength: 1 }),
    port: Type.Integer({ minimum: 1, maximum: 65535, default: 587 }),
    secure: Type.Boolean({
      default: false,
      description: 'TLS from the start (port 465); false: STARTTLS when offered',
    }),
    requireTls: Type.Boolean({ default: false, description: 'refuse to send without STARTTLS' }),
    rejectUnauthorized: Type.Boolean({ default: true }),
    user: Type.Optional(Type.String({ minLength: 1 })),
    password: Type.Optional(Type.String({ description: 'secret' })),
    from: Type.String({ minLength: 3 }),
    to: Type.Union([Type.String({ minLength: 3 }), Type.Array(Type.String({ minLength: 3 }), { minItems: 1 })]),
  },
  strict,
);

export const AlertSettingsSchema = Type.Object(
  {
    ntfy: Type.Optional(NtfySchema),
    webhook: Type.Optional(WebhookSchema),
    email: Type.Optional(EmailSchema),
    mqtt: Type.Boolean({ default: true, description: 'retained list of active alerts on <root>/alerts/<service id>' }),
    heartbeat: Type.Optional(
      Type.Object(
        {
          url: url('called while control runs (healthchecks.io, Uptime Kuma push)'),
          intervalSeconds: Type.Number({ minimum: 1, default: 300 }),
        },
        strict,
      ),
    ),
    remindHours: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description: 'reminder interval while an alert is active; the starting value of the rule remindHours',
      }),
    ),
    checkIntervalMs: Type.Integer({ minimum: 50, default: 1000, description: 'how often conditions are evaluated' }),
    retryBaseMs: Type.Integer({ minimum: 10, default: 5000, description: 'first retry delay; doubles per attempt' }),
    retryMaxMs: Type.Integer({ minimum: 10, default: 600000 }),
    sendTimeoutMs: Type.Integer({ minimum: 100, default: 15000 }),
    outboxLimit: Type.Integer({
      minimum: 10,
      default: 1000,
      description: 'messages waiting at most; the oldest is dropped beyond it',
    }),
    maxAgeHours: Type.Number({
      exclusiveMinimum: 0,
      default: 48,
      description: 'a message still undelivered after this is dropped',
    }),
    historyLimit: Type.Integer({ minimum: 10, default: 200 }),
    rules: Type.Optional(RulesSchema),
  },
  strict,
);

export type AlertSettings = Static<typeof AlertSettingsSchema>;

export function parseAlertSettings(raw: unknown): AlertSettings {
  return checked(AlertSettingsSchema, raw, 'alerts');
}
