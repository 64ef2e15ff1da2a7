// The configuration's one schema (file + environment + flags). Validation, defaults, the text
// coercion of env and flag values, "did you mean" and `--help` all come from it; the service
// (config.ts), `edgeblocks user` and the failsafe read a config file with it. Kept free of the
// service's modules so the failsafe compiles with only this and the drivers.
import { FormatRegistry, Type, type Static, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { closestName, unknownKeyMessage } from '../drivers/closest-name.js';
import { GpioLineSchema, parseGpioLineConfigs } from '../drivers/gpio/line-config.js';
import { checkAgainst, type SchemaIssue, UNITS, type Wording } from '../drivers/schema-check.js';
import { AlertSettingsSchema } from './alerts/settings.js';
import { MAX_TIMER_MS } from './shared/limits.js';
import { PORT_SETTINGS } from './shared/port-in-use.js';
import { SERVICE_ID_MAX_LENGTH, SERVICE_ID_PATTERN, SERVICE_ID_RULE, TOPIC_ROOT_PATTERN } from './shared/service-id.js';

/** Where a setting can also come from, besides the file. */
interface Source extends Wording {
  flag?: string;
  env?: string;
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const literals = <const T extends string>(values: readonly T[], options: object) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as TUnion<Array<TLiteral<T>>>;
const text = (
  options: Source & { description: string; default?: string; pattern?: string; format?: string; maxLength?: number },
) => Type.String({ minLength: 1, ...options });
/**
 * A URL setting is read as the service uses it (URL.canParse): its pattern looks only at its start,
 * so a port past 65535, a host left out or an unclosed bracket passed `edgeblocks check` and the
 * start stopped with "Invalid URL" (or every history write failed).
 */
const URL_FORMAT = 'config-url';
if (!FormatRegistry.Has(URL_FORMAT)) FormatRegistry.Set(URL_FORMAT, (v) => v === 'embedded' || URL.canParse(v));
const port = (options: Source & { description: string; default: number }) =>
  Type.Integer({ minimum: 0, maximum: 65535, ...options });
const positive = (options: Source & { description: string; default: number }) =>
  Type.Integer({ minimum: 1, ...options });
/** Milliseconds a timer is set to: at most MAX_TIMER_MS. */
const milliseconds = (options: Source & { description: string; default: number }) =>
  Type.Integer({
    minimum: 1,
    maximum: MAX_TIMER_MS,
    unit: UNITS.milliseconds,
    ...options,
  });
/** A size in bytes. */
const bytes = (options: Source & { description: string; default: number }) =>
  Type.Integer({
    minimum: 1,
    unit: UNITS.bytes,
    ...options,
  });
const flag = (options: Source & { description: string; default: boolean }) => Type.Boolean(options);
const paths = (options: Source & { description: string }) =>
  Type.Array(Type.String({ minLength: 1 }), { default: [], ...options });

export const ConfigSchema = Type.Object(
  {
    config: Type.Optional(
      text({ flag: '--config', env: 'EDGEBLOCKS_CONFIG', description: 'JSON config file with the same keys' }),
    ),
    serviceId: text({
      flag: '--service-id',
      env: 'EDGEBLOCKS_SERVICE_ID',
      description: `the {service_id} in routes and topics: ${SERVICE_ID_RULE}`,
      default: 'edge-one',
      pattern: SERVICE_ID_PATTERN,
      maxLength: SERVICE_ID_MAX_LENGTH,
      errorMessage: `must be ${SERVICE_ID_RULE}`,
    }),
    host: text({ flag: '--host', env: 'EDGEBLOCKS_HOST', description: 'HTTP bind address', default: '0.0.0.0' }),
    port: port({ ...PORT_SETTINGS.port, description: 'controller HTTP port (0 = pick a free one)' }),
    httpsPort: port({ ...PORT_SETTINGS.httpsPort, description: 'TLS gateway port (REST + /eventbus); 0 = off' }),
    dataDir: text({
      flag: '--data-dir',
      env: 'EDGEBLOCKS_DATA_DIR',
      description: 'SQLite database, TLS key/cert, backups',
      default: './data',
    }),
    mqttUrl: text({
      flag: '--mqtt-url',
      env: 'EDGEBLOCKS_MQTT_URL',
      description: "'embedded' or mqtt://host:port of an external broker",
      default: 'embedded',
      pattern: '^(embedded|(mqtts?|wss?|tcp|ssl)://[^/]+.*)$',
      format: URL_FORMAT,
      errorMessage: "must be 'embedded' or a URL like mqtt://host:1883",
    }),
    mqttPort: port({ ...PORT_SETTINGS.mqttPort, description: 'TCP port of the embedded broker (0 = free port)' }),
    topicRoot: text({
      flag: '--topic-root',
      env: 'EDGEBLOCKS_TOPIC_ROOT',
      description: 'MQTT topic root',
      default: 'svc',
      pattern: TOPIC_ROOT_PATTERN,
      errorMessage: 'must be a topic path without wildcards',
    }),
    hardware: literals(['linux', 'sim'], {
      flag: '--hardware',
      env: 'EDGEBLOCKS_HARDWARE',
      description: "'linux' (probe real buses) or 'sim'",
      default: 'linux',
    }),
    simConfig: Type.Optional(
      text({
        flag: '--sim-config',
        env: 'EDGEBLOCKS_SIM_CONFIG',
        description: 'devices and plant for sim (default: built-in demo)',
      }),
    ),
    emitInterval: milliseconds({
      flag: '--emit-interval',
      env: 'EDGEBLOCKS_EMIT_INTERVAL',
      description: 'state/history cadence in ms',
      default: 5000,
    }),
    logLevel: literals(LEVELS, {
      flag: '--log-level',
      env: 'EDGEBLOCKS_LOG_LEVEL',
      description: 'pino level',
      default: 'info',
    }),
    mqttUsername: Type.Optional(text({ env: 'EDGEBLOCKS_MQTT_USERNAME', description: 'external broker user name' })),
    mqttPassword: Type.Optional(text({ env: 'EDGEBLOCKS_MQTT_PASSWORD', description: 'external broker password' })),
    mqttCa: Type.Optional(text({ env: 'EDGEBLOCKS_MQTT_CA', description: 'CA certificate file for mqtts://' })),
    mqttCert: Type.Optional(text({ env: 'EDGEBLOCKS_MQTT_CERT', description: 'client certificate file' })),
    mqttKey: Type.Optional(text({ env: 'EDGEBLOCKS_MQTT_KEY', description: 'client key file' })),
    mqttRejectUnauthorized: flag({
      env: 'EDGEBLOCKS_MQTT_REJECT_UNAUTHORIZED',
      description: 'verify the broker certificate',
      default: true,
    }),
    httpsCert: Type.Optional(
      text({ env: 'EDGEBLOCKS_HTTPS_CERT', description: 'gateway certificate file (default: self-signed, generated)' }),
    ),
    httpsKey: Type.Optional(text({ env: 'EDGEBLOCKS_HTTPS_KEY', description: 'gateway key file' })),
    gpio: Type.Array(GpioLineSchema, {
      default: [],
      description: 'GPIO lines: [{name, line, direction, activeLow, safeState}] (file only)',
    }),
    gpioChipLabel: Type.Optional(
      text({ env: 'EDGEBLOCKS_GPIO_CHIP_LABEL', description: 'gpiochip label of the header (default: auto)' }),
    ),
    w1Root: text({
      env: 'EDGEBLOCKS_W1_ROOT',
      description: 'kernel w1 devices directory',
      default: '/sys/bus/w1/devices',
    }),
    i2cBuses: paths({
      env: 'EDGEBLOCKS_I2C_BUSES',
      description: 'I2C buses to probe for DS2482 (default: every /dev/i2c-*)',
    }),
    serialPorts: paths({ env: 'EDGEBLOCKS_SERIAL_PORTS', description: 'serial ports with DS2480B adapters' }),
    backupSchedule: text({
      env: 'EDGEBLOCKS_BACKUP_SCHEDULE',
      description: 'cron expression for scheduled backups',
      default: '0 * * * *',
    }),
    backupKeep: positive({ env: 'EDGEBLOCKS_BACKUP_KEEP', description: 'scheduled backups kept', default: 48 }),
    auth: flag({
      flag: '--auth',
      env: 'EDGEBLOCKS_AUTH',
      description: 'require a login (users: edgeblocks user add NAME)',
      default: false,
    }),
    homeAssistant: flag({
      flag: '--home-assistant',
      env: 'EDGEBLOCKS_HOME_ASSISTANT',
      description: 'publish Home Assistant MQTT discovery',
      default: false,
    }),
    logFormat: literals(['auto', 'json', 'pretty'], {
      flag: '--log-format',
      env: 'EDGEBLOCKS_LOG_FORMAT',
      description: "'pretty' (one line per event), 'json', or 'auto' (pretty on a terminal)",
      default: 'auto',
    }),
    allowedOrigins: paths({
      env: 'EDGEBLOCKS_ALLOWED_ORIGINS',
      description: 'web origins besides this host that may change things, e.g. http://brewblox.local',
    }),
    publicUrl: Type.Optional(
      text({
        flag: '--public-url',
        env: 'EDGEBLOCKS_PUBLIC_URL',
        description:
          "the dashboard address other controllers link to, e.g. http://fermenter-2.local:5000/ (default: this machine's name and the HTTP port)",
        pattern: '^https?://[^/]+',
        format: URL_FORMAT,
        errorMessage: 'must be an http:// or https:// URL',
      }),
    ),
    allowedHosts: paths({
      env: 'EDGEBLOCKS_ALLOWED_HOSTS',
      description:
        "Host names besides localhost, this machine's name and IP addresses the controller answers to (a proxy or Docker service name); * = any",
    }),
    history: literals(['embedded', 'victoria', 'off'], {
      flag: '--history',
      env: 'EDGEBLOCKS_HISTORY',
      description: "history store: 'embedded' (data dir), 'victoria' (--history-url) or 'off'",
      default: 'embedded',
    }),
    historyUrl: Type.Optional(
      text({
        flag: '--history-url',
        env: 'EDGEBLOCKS_HISTORY_URL',
        description: 'VictoriaMetrics base URL, e.g. http://host:8428 (implies --history victoria)',
        pattern: '^https?://[^/]+',
        format: URL_FORMAT,
        errorMessage: 'must be an http:// or https:// URL',
      }),
    ),
    historyIngest: literals(['all', 'own'], {
      flag: '--history-ingest',
      env: 'EDGEBLOCKS_HISTORY_INGEST',
      description:
        "history messages stored: 'all' (every publisher on <root>/history/#) or 'own' (this controller's only: several controllers sharing one VictoriaMetrics, docs/fleet.md)",
      default: 'all',
    }),
    historyRetention: text({
      env: 'EDGEBLOCKS_HISTORY_RETENTION',
      description: 'embedded history kept at most, e.g. 365d',
      default: '365d',
    }),
    historyMaxBytes: bytes({
      env: 'EDGEBLOCKS_HISTORY_MAX_BYTES',
      description: 'embedded history size cap; oldest data goes first',
      default: 512 * 1024 * 1024,
    }),
    historyFlushInterval: milliseconds({
      env: 'EDGEBLOCKS_HISTORY_FLUSH_INTERVAL',
      description: 'ms between embedded history writes (a crash loses at most this)',
      default: 60000,
    }),
    alerts: Type.Optional({
      ...AlertSettingsSchema,
      description:
        'alert channels (ntfy, email, webhook, heartbeat; also set up on the dashboard) and rules; see docs/alerts.md (file only)',
    }),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;
export type ConfigKey = keyof Config;

/** Every setting with its schema (flag, env, description, default). */
export const SETTINGS = Object.entries(ConfigSchema.properties).map(([key, schema]) => ({
  key: key as ConfigKey,
  schema: schema as TSchema & Source,
}));

/** The defaults, from the schema. */
export const DEFAULTS = Value.Default(ConfigSchema, {}) as Config;

/** Keys a config file may hold (`config` names the file; it is not in it). */
export const FILE_KEYS = SETTINGS.map((s) => s.key).filter((k) => k !== 'config');

export type ValueSource = 'file' | `env ${string}` | `flag ${string}`;

/**
 * A value from text (env or flag) to the schema's type: numbers and booleans as JSON writes
 * them ("5000", "true"), lists comma-separated. What does not convert is left as text and
 * refused by the schema like the same text in the file.
 */
export function fromText(schema: TSchema, raw: string): unknown {
  if (schema.type === 'array')
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (schema.type === 'integer' || schema.type === 'number')
    return /^\s*-?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : raw;
  if (schema.type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
  return raw;
}

export interface ConfigIssue extends SchemaIssue {
  source: ValueSource;
}

/** `port (flag --port)` for a top-level value, the path alone for a value inside one (`gpio[0].line`) or a key that is not a setting. */
export function issueKey(issue: ConfigIssue): string {
  return issue.unknownKey || issue.path.includes('.') || issue.path.includes('[')
    ? issue.path
    : `${issue.path} (${issue.source})`;
}

/** One setting checked against its schema; text from env and flags is converted first. */
export function checkSetting(
  key: ConfigKey,
  raw: unknown,
  source: ValueSource,
): { value: unknown; issue?: undefined } | { issue: ConfigIssue; value?: undefined } {
  const schema = ConfigSchema.properties[key] as TSchema;
  const value = source !== 'file' && typeof raw === 'string' ? fromText(schema, raw) : raw;
  if (key === 'gpio') {
    const { lines, issues } = parseGpioLineConfigs(value, 'gpio');
    return issues[0] ? { issue: { ...issues[0], unknownKey: false, source } } : { value: lines };
  }
  const checked = checkAgainst(schema, value, key);
  return checked.issue ? { issue: { ...checked.issue, source } } : { value: checked.value };
}

/**
 * EDGEBLOCKS_ variables that are not settings: the doctor's API token (src/doctor/service.ts) and
 * the plain modules for a CPU profile (src/service/app-module.ts).
 */
const OTHER_ENV = ['EDGEBLOCKS_TOKEN', 'EDGEBLOCKS_MODULES'];

/**
 * The test suite's own variables (EDGEBLOCKS_TEST_SLOWDOWN, the generators' seeds) are all named
 * under this prefix, which the service leaves to the tests: one exported in a developer's shell
 * does not stop the service or the demo (docs/development.md).
 */
export const TEST_ENV_PREFIX = 'EDGEBLOCKS_TEST_';

/**
 * The settings the service's EDGEBLOCKS_ variables give (over the file's), and their problems, one
 * per variable. The service refuses the first; the failsafe, run by systemd with the service's
 * environment, reports them all and uses the rest.
 */
export function checkEnv(env: NodeJS.ProcessEnv): { values: Partial<Config>; issues: ConfigIssue[] } {
  const values: Record<string, unknown> = {};
  const issues: ConfigIssue[] = [];
  // A misspelt variable would be a setting silently not made, as a misspelt flag or file key would.
  const known = [...SETTINGS.flatMap((s) => (s.schema.env ? [s.schema.env] : [])), ...OTHER_ENV];
  for (const name of Object.keys(env))
    if (name.startsWith('EDGEBLOCKS_') && !name.startsWith(TEST_ENV_PREFIX) && !known.includes(name)) {
      const near = closestName(name, known);
      const message = `unknown variable;${near ? ` did you mean "${near}"?` : ''} see edgeblocks --help`;
      issues.push({ path: name, message, unknownKey: true, source: `env ${name}` });
    }
  for (const { key, schema } of SETTINGS) {
    const raw = schema.env && key !== 'config' ? env[schema.env] : undefined;
    if (raw === undefined) continue;
    const checked = checkSetting(key, raw, `env ${schema.env}`);
    if (checked.issue) issues.push(checked.issue);
    else values[key] = checked.value;
  }
  return { values: values as Partial<Config>, issues };
}

/**
 * Every problem of a config file's object, one per key, and the values that passed. The service
 * refuses the file on the first problem; the failsafe reports them all and uses the rest.
 */
export function checkConfigDocument(json: Record<string, unknown>): { values: Partial<Config>; issues: ConfigIssue[] } {
  const values: Record<string, unknown> = {};
  const issues: ConfigIssue[] = [];
  for (const [key, raw] of Object.entries(json)) {
    if (!(FILE_KEYS as string[]).includes(key)) {
      issues.push({ path: key, message: unknownKeyMessage(key, FILE_KEYS), unknownKey: true, source: 'file' });
      continue;
    }
    const checked = checkSetting(key as ConfigKey, raw, 'file');
    if (checked.issue) issues.push(checked.issue);
    else values[key] = checked.value;
  }
  return { values: values as Partial<Config>, issues };
}

/** The flag table for the argument parser: `--port` -> `port`. */
export function configFlags(): Map<string, ConfigKey> {
  return new Map(SETTINGS.filter((s) => s.schema.flag).map((s) => [s.schema.flag!, s.key]));
}

/** A flag as `--help` and the docs show it: a true/false setting's as the switch it is, `--[no-]auth`. */
export function flagLabel(schema: TSchema & Source): string | undefined {
  return schema.flag && schema.type === 'boolean' ? `--[no-]${schema.flag.slice(2)}` : schema.flag;
}

/** `--help`: every setting's flag (or file key), env variable, description and default. */
export function configHelp(): string {
  const rows = SETTINGS.map(({ key, schema }) => {
    const fallback = (DEFAULTS as Record<string, unknown>)[key];
    const shown =
      typeof fallback === 'boolean' && schema.flag ? (fallback ? 'on' : 'off') : JSON.stringify(fallback ?? null);
    return `  ${(flagLabel(schema) ?? `(file) ${key}`).padEnd(22)} ${(schema.env ?? '').padEnd(36)} ${schema.description} [${shown}]`;
  });
  return [
    '  flag                   env                                  meaning [default]',
    ...rows,
    '',
    '  A switch (--[no-]auth) is on with --auth, off with --no-auth; --auth=false and --auth false work too.',
  ].join('\n');
}
