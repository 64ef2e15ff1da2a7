// The `alerts` section of the config file: channels (with their secrets; each kind's schema is
// its own, channels/index.ts), the delivery timings and the starting rules. Channel secrets are
// never logged or served (channel-store.ts shows only whether they are set).
import { Type, type Static, type TObject, type TOptional } from '@sinclair/typebox';
import { CHANNELS } from './channels/index.js';
import { MAX_TIMER_MS } from '../shared/limits.js';
import { remindHours, RulesSchema } from './rules.js';
import { checked } from './schema-check.js';
import { UNITS } from '../../drivers/schema-check.js';

const strict = { additionalProperties: false } as const;

/** One optional key per channel kind (channels/index.ts), with the kind's own schema. */
const channelSettings = Object.fromEntries(CHANNELS.map((c) => [c.name, Type.Optional(c.schema)])) as Record<
  string,
  TOptional<TObject>
>;

const BaseSettingsSchema = Type.Object(
  {
    mqtt: Type.Boolean({ default: true, description: 'retained list of active alerts on <root>/alerts/<service id>' }),
    remindHours: Type.Optional(
      remindHours({
        description: 'reminder interval in hours while an alert is active; the starting value of the rule remindHours',
      }),
    ),
    checkIntervalMs: Type.Integer({
      minimum: 50,
      maximum: 3_600_000,
      default: 1000,
      unit: UNITS.milliseconds,
      description: 'how often conditions are evaluated',
    }),
    retryBaseMs: Type.Integer({
      minimum: 10,
      maximum: MAX_TIMER_MS,
      default: 5000,
      unit: UNITS.milliseconds,
      description: 'first retry delay; doubles per attempt',
    }),
    retryMaxMs: Type.Integer({ minimum: 10, maximum: MAX_TIMER_MS, default: 600000, unit: UNITS.milliseconds }),
    sendTimeoutMs: Type.Integer({ minimum: 100, maximum: MAX_TIMER_MS, default: 15000, unit: UNITS.milliseconds }),
    outboxLimit: Type.Integer({
      minimum: 10,
      default: 1000,
      description: 'messages waiting at most; the oldest is dropped beyond it',
    }),
    maxAgeHours: Type.Number({
      exclusiveMinimum: 0,
      default: 48,
      unit: UNITS.hours,
      description: 'a message still undelivered after this is dropped',
    }),
    historyLimit: Type.Integer({ minimum: 10, default: 200 }),
    rules: Type.Optional(RulesSchema),
  },
  strict,
);

export const AlertSettingsSchema = Type.Object(
  { ...channelSettings, ...BaseSettingsSchema.properties },
  strict,
) as unknown as typeof BaseSettingsSchema;

/** The timings, rules and MQTT switch, and each configured channel's settings under its name (checked by its schema). */
export type AlertSettings = Static<typeof BaseSettingsSchema> & { readonly [channel: string]: unknown };

export function parseAlertSettings(raw: unknown): AlertSettings {
  return checked(AlertSettingsSchema, raw, 'alerts');
}
