// One configuration schema: defaults < JSON file < environment < command-line flags.
import { readFileSync } from 'node:fs';
import type { GpioLineConfig } from '../drivers/gpio/types.js';
import { normalHost, normalOrigin } from './origin.js';
import { isValidCron } from './service/backup-schedule.js';
import { firstUnknownKey, unknownKeyMessage } from '../drivers/closest-name.js';
import { parseDuration, QueryError } from './history/timeframe.js';
import { parseAlertSettings, type AlertSettings } from './alerts/settings.js';

type Kind = 'string' | 'int' | 'port' | 'bool' | 'level' | 'hardware' | 'gpio' | 'strings' | 'alerts';

interface Option {
  key: keyof Config;
  flag?: string;
  env?: string;
  kind: Kind;
  help: string;
}

export interface Config {
  config?: string;
  serviceId: string;
  host: string;
  port: number;
  httpsPort: number;
  dataDir: string;
  mqttUrl: string;
  mqttPort: number;
  topicRoot: string;
  hardware: 'linux' | 'sim';
  simConfig?: string;
  emitInterval: number;
  logLevel: string;
  mqttUsername?: string;
  mqttPassword?: string;
  mqttCa?: string;
  mqttCert?: string;
  mqttKey?: string;
  mqttRejectUnauthorized: boolean;
  httpsCert?: string;
  httpsKey?: string;
  gpio: GpioLineConfig[];
  gpioChipLabel?: string;
  w1Root: string;
  i2cBuses: string[];
  serialPorts: string[];
  backupSchedule: string;
  backupKeep: number;
  auth: boolean;
  homeAssistant: boolean;
  logFormat: 'auto' | 'json' | 'pretty';
  allowedOrigins: string[];
  allowedHosts: string[];
  history: 'embedded' | 'victoria' | 'off';
  historyUrl?: string;
  historyRetention: string;
  historyMaxBytes: number;
  historyFlushInterval: number;
  /** Alert channels, heartbeat, timings and starting rules (schema: src/alerts/settings.ts). */
  alerts?: AlertSettings;
}

export const DEFAULTS: Config = {
  serviceId: 'edge-one',
  host: '0.0.0.0',
  port: 5000,
  httpsPort: 443,
  dataDir: './data',
  mqttUrl: 'embedded',
  mqttPort: 1883,
  topicRoot: 'svc',
  hardware: 'linux',
  emitInterval: 5000,
  logLevel: 'info',
  mqttRejectUnauthorized: true,
  gpio: [],
  w1Root: '/sys/bus/w1/devices',
  i2cBuses: [],
  serialPorts: [],
  backupSchedule: '0 * * * *',
  backupKeep: 48,
  auth: false,
  homeAssistant: false,
  logFormat: 'auto',
  allowedOrigins: [],
  allowedHosts: [],
  history: 'embedded',
  historyRetention: '365d',
  historyMaxBytes: 512 * 1024 * 1024,
  historyFlushInterval: 60000,
};

export const OPTIONS: Option[] = [
  { key: 'config', flag: '--config', env: 'EDGEBLOCKS_CONFIG', kind: 'string', help: 'JSON config file with the same keys' },
  { key: 'serviceId', flag: '--service-id', env: 'EDGEBLOCKS_SERVICE_ID', kind: 'string', help: 'the {service_id} in routes and topics' },
  { key: 'host', flag: '--host', env: 'EDGEBLOCKS_HOST', kind: 'string', help: 'HTTP bind address' },
  { key: 'port', flag: '--port', env: 'EDGEBLOCKS_PORT', kind: 'port', help: 'controller HTTP port (0 = pick a free one)' },
  { key: 'httpsPort', flag: '--https-port', env: 'EDGEBLOCKS_HTTPS_PORT', kind: 'port', help: 'TLS gateway port (REST + /eventbus); 0 = off' },
  { key: 'dataDir', flag: '--data-dir', env: 'EDGEBLOCKS_DATA_DIR', kind: 'string', help: 'SQLite database, TLS key/cert, backups' },
  { key: 'mqttUrl', flag: '--mqtt-url', env: 'EDGEBLOCKS_MQTT_URL', kind: 'string', help: "'embedded' or mqtt://host:port of an external broker" },
  { key: 'mqttPort', flag: '--mqtt-port', env: 'EDGEBLOCKS_MQTT_PORT', kind: 'port', help: 'TCP port of the embedded broker (0 = free port)' },
  { key: 'topicRoot', flag: '--topic-root', env: 'EDGEBLOCKS_TOPIC_ROOT', kind: 'string', help: 'MQTT topic root' },
  { key: 'hardware', flag: '--hardware', env: 'EDGEBLOCKS_HARDWARE', kind: 'hardware', help: "'linux' (probe real buses) or 'sim'" },
  { key: 'simConfig', flag: '--sim-config', env: 'EDGEBLOCKS_SIM_CONFIG', kind: 'string', help: 'devices and plant for sim (default: built-in demo)' },
  { key: 'emitInterval', flag: '--emit-interval', env: 'EDGEBLOCKS_EMIT_INTERVAL', kind: 'int', help: 'state/history cadence in ms' },
  { key: 'logLevel', flag: '--log-level', env: 'EDGEBLOCKS_LOG_LEVEL', kind: 'level', help: 'pino level' },
  { key: 'mqttUsername', env: 'EDGEBLOCKS_MQTT_USERNAME', kind: 'string', help: 'external broker user name' },
  { key: 'mqttPassword', env: 'EDGEBLOCKS_MQTT_PASSWORD', kind: 'string', help: 'external broker password' },
  { key: 'mqttCa', env: 'EDGEBLOCKS_MQTT_CA', kind: 'string', help: 'CA certificate file for mqtts://' },
  { key: 'mqttCert', env: 'EDGEBLOCKS_MQTT_CERT', kind: 'string', help: 'client certificate file' },
  { key: 'mqttKey', env: 'EDGEBLOCKS_MQTT_KEY', kind: 'string', help: 'client key file' },
  { key: 'mqttRejectUnauthorized', env: 'EDGEBLOCKS_MQTT_REJECT_UNAUTHORIZED', kind: 'bool', help: 'verify the broker certificate' },
  { key: 'httpsCert', env: 'EDGEBLOCKS_HTTPS_CERT', kind: 'string', help: 'gateway certificate file (default: self-signed, generated)' },
  { key: 'httpsKey', env: 'EDGEBLOCKS_HTTPS_KEY', kind: 'string', help: 'gateway key file' },
  { key: 'gpio', kind: 'gpio', help: 'GPIO lines: [{name, line, direction, activeLow, safeState}] (file only)' },
  { key: 'gpioChipLabel', env: 'EDGEBLOCKS_GPIO_CHIP_LABEL', kind: 'string', help: 'gpiochip label of the header (default: auto)' },
  { key: 'w1Root', env: 'EDGEBLOCKS_W1_ROOT', kind: 'string', help: 'kernel w1 devices directory' },
  { key: 'i2cBuses', env: 'EDGEBLOCKS_I2C_BUSES', kind: 'strings', help: 'I2C buses to probe for DS2482 (default: every /dev/i2c-*)' },
  { key: 'serialPorts', env: 'EDGEBLOCKS_SERIAL_PORTS', kind: 'strings', help: 'serial ports with DS2480B adapters' },
  { key: 'backupSchedule', env: 'EDGEBLOCKS_BACKUP_SCHEDULE', kind: 'string', help: 'cron expression for scheduled backups' },
  { key: 'backupKeep', env: 'EDGEBLOCKS_BACKUP_KEEP', kind: 'int', help: 'scheduled backups kept' },
  { key: 'auth', flag: '--auth', env: 'EDGEBLOCKS_AUTH', kind: 'bool', help: 'require a login (users: edgeblocks user add NAME)' },
  { key: 'homeAssistant', flag: '--home-assistant', env: 'EDGEBLOCKS_HOME_ASSISTANT', kind: 'bool', help: 'publish Home Assistant MQTT discovery' },
  { key: 'logFormat', flag: '--log-format', env: 'EDGEBLOCKS_LOG_FORMAT', kind: 'string', help: "'pretty' (one line per event), 'json', or 'auto' (pretty on a terminal)" },
  { key: 'allowedOrigins', env: 'EDGEBLOCKS_ALLOWED_ORIGINS', kind: 'strings', help: 'web origins besides this host that may change things, e.g. http://brewblox.local' },
  { key: 'allowedHosts', env: 'EDGEBLOCKS_ALLOWED_HOSTS', kind: 'strings', help: "Host names besides localhost, this machine's name and IP addresses the controller answers to (a proxy or Docker service name); * = any" },
  { key: 'history', flag: '--history', env: 'EDGEBLOCKS_HISTORY', kind: 'string', help: "history store: 'embedded' (data dir), 'victoria' (--history-url) or 'off'" },
  { key: 'historyUrl', flag: '--history-url', env: 'EDGEBLOCKS_HISTORY_URL', kind: 'string', help: 'VictoriaMetrics base URL, e.g. http://host:8428 (implies --history victoria)' },
  { key: 'historyRetention', env: 'EDGEBLOCKS_HISTORY_RETENTION', kind: 'string', help: 'embedded history kept at most, e.g. 365d' },
  { key: 'historyMaxBytes', env: 'EDGEBLOCKS_HISTORY_MAX_BYTES', kind: 'int', help: 'embedded history size cap; oldest data goes first' },
  { key: 'alerts', kind: 'alerts', help: 'alert channels (ntfy, webhook, email), heartbeat and rules; see README "Alerts" (file only)' },
  { key: 'historyFlushInterval', env: 'EDGEBLOCKS_HISTORY_FLUSH_INTERVAL', kind: 'int', help: 'ms between embedded history writes (a crash loses at most this)' },
];

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class ConfigError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`);
    this.name = 'ConfigError';
  }
}

function parse(opt: Option, raw: unknown, source: string): unknown {
  const where = `${opt.key} (${source})`;
  const fail = (msg: string): never => {
    throw new ConfigError(where, msg);
  };
  const fromText = typeof raw === 'string' && source !== 'file';
  switch (opt.kind) {
    case 'string':
      if (typeof raw !== 'string' || raw === '') fail(`must be a non-empty string, got ${JSON.stringify(raw)}`);
      return raw;
    case 'int':
    case 'port': {
      const n = fromText ? Number(raw) : raw;
      if (typeof n !== 'number' || !Number.isInteger(n) || (fromText && (raw as string).trim() === '')) fail(`must be an integer, got ${JSON.stringify(raw)}`);
      const v = n as number;
      if (opt.kind === 'port' && (v < 0 || v > 65535)) fail(`must be a port number 0-65535, got ${v}`);
      if (opt.kind === 'int' && v <= 0) fail(`must be positive, got ${v}`);
      return v;
    }
    case 'bool':
      if (typeof raw === 'boolean') return raw;
      if (fromText && ['true', '1', 'yes'].includes(raw as string)) return true;
      if (fromText && ['false', '0', 'no'].includes(raw as string)) return false;
      return fail(`must be true or false, got ${JSON.stringify(raw)}`);
    case 'level':
      if (typeof raw !== 'string' || !LEVELS.includes(raw)) fail(`must be one of ${LEVELS.join(', ')}, got ${JSON.stringify(raw)}`);
      return raw;
    case 'hardware':
      if (raw !== 'linux' && raw !== 'sim') fail(`must be 'linux' or 'sim', got ${JSON.stringify(raw)}`);
      return raw;
    case 'strings': {
      const list = fromText ? (raw as string).split(',').map((s) => s.trim()).filter(Boolean) : raw;
      if (!Array.isArray(list)) fail('must be a list of non-empty strings');
      const bad = (list as unknown[]).findIndex((s) => typeof s !== 'string' || s === '');
      if (bad >= 0) throw new ConfigError(`${opt.key}[${bad}]`, `must be a non-empty string (a device path), got ${JSON.stringify((list as unknown[])[bad])}`);
      return list;
    }
    case 'gpio':
      return parseGpio(raw, fail);
    case 'alerts':
      try {
        return parseAlertSettings(raw);
      } catch (e) {
        return fail((e as Error).message.replace(/^alerts: /, ''));
      }
  }
}

const GPIO_KEYS = ['name', 'line', 'direction', 'activeLow', 'safeState'];

function parseGpio(raw: unknown, fail: (msg: string) => never): GpioLineConfig[] {
  if (!Array.isArray(raw)) fail('must be an array of {name, line, direction, activeLow, safeState}');
  const names = new Set<string>();
  return (raw as unknown[]).map((item, i) => {
    const o = item as Record<string, unknown>;
    if (typeof o !== 'object' || o === null) fail(`[${i}] must be an object`);
    const unknown = firstUnknownKey(o, GPIO_KEYS);
    if (unknown !== undefined) throw new ConfigError(`gpio[${i}].${unknown}`, unknownKeyMessage(unknown, GPIO_KEYS));
    if (typeof o.name !== 'string' || o.name === '') fail(`[${i}].name must be a non-empty string`);
    if (names.has(o.name as string)) fail(`[${i}].name '${String(o.name)}' is used twice`);
    names.add(o.name as string);
    if (typeof o.line !== 'number' || !Number.isInteger(o.line) || o.line < 0 || o.line > 127) fail(`[${i}].line must be a GPIO line number 0-127`);
    const direction = o.direction ?? 'out';
    if (direction !== 'out' && direction !== 'in') fail(`[${i}].direction must be 'out' or 'in'`);
    for (const k of ['activeLow', 'safeState']) if (o[k] !== undefined && typeof o[k] !== 'boolean') fail(`[${i}].${k} must be true or false`);
    return {
      name: o.name as string,
      line: o.line as number,
      direction: direction as 'out' | 'in',
      activeLow: (o.activeLow as boolean | undefined) ?? false,
      safeState: (o.safeState as boolean | undefined) ?? false,
    };
  });
}

export interface ParsedArgs {
  values: Partial<Record<keyof Config, string>>;
  help: boolean;
  version: boolean;
}

export function parseArgs(argv: string[]): ParsedArgs {
  const out: ParsedArgs = { values: {}, help: false, version: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      out.help = true;
      continue;
    }
    if (arg === '--version' || arg === '-v') {
      out.version = true;
      continue;
    }
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const opt = OPTIONS.find((o) => o.flag === flag);
    if (!opt) throw new ConfigError(arg, `unknown option; see --help`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(flag, 'needs a value');
    out.values[opt.key] = value;
  }
  return out;
}

/** Resolve the configuration. Throws ConfigError naming the key on any bad value. */
export function loadConfig(args: ParsedArgs['values'], env: NodeJS.ProcessEnv = process.env): Config {
  const cfg: Record<string, unknown> = { ...DEFAULTS };
  const file = args.config ?? env.EDGEBLOCKS_CONFIG;
  if (file !== undefined) {
    let text: string;
    let json: unknown;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new ConfigError('config', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new ConfigError('config', `${file} is not valid JSON: ${(e as Error).message}`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ConfigError('config', `${file} must hold a JSON object`);
    for (const [key, raw] of Object.entries(json)) {
      const opt = OPTIONS.find((o) => o.key === key);
      if (!opt || key === 'config') throw new ConfigError(key, `${unknownKeyMessage(key, OPTIONS.map((o) => o.key).filter((k) => k !== 'config'))} (in ${file})`);
      cfg[key] = parse(opt, raw, 'file');
    }
    cfg.config = file;
  }
  for (const opt of OPTIONS) {
    if (opt.env && env[opt.env] !== undefined && opt.key !== 'config') cfg[opt.key] = parse(opt, env[opt.env], `env ${opt.env}`);
  }
  for (const opt of OPTIONS) {
    const raw = args[opt.key];
    if (raw !== undefined && opt.key !== 'config') cfg[opt.key] = parse(opt, raw, `flag ${opt.flag}`);
  }
  const config = cfg as unknown as Config;
  if (config.mqttUrl !== 'embedded' && !/^(mqtts?|wss?|tcp|ssl):\/\/[^/]+/.test(config.mqttUrl)) {
    throw new ConfigError('mqttUrl', `must be 'embedded' or a URL like mqtt://host:1883, got ${JSON.stringify(config.mqttUrl)}`);
  }
  for (const o of config.allowedOrigins) {
    try {
      normalOrigin(o);
    } catch (e) {
      throw new ConfigError('allowedOrigins', (e as Error).message);
    }
  }
  for (const h of config.allowedHosts) {
    try {
      normalHost(h);
    } catch (e) {
      throw new ConfigError('allowedHosts', (e as Error).message);
    }
  }
  if (!isValidCron(config.backupSchedule)) throw new ConfigError('backupSchedule', `${JSON.stringify(config.backupSchedule)} is not a valid cron expression`);
  if (!['auto', 'json', 'pretty'].includes(config.logFormat)) throw new ConfigError('logFormat', `must be 'auto', 'json' or 'pretty', got ${JSON.stringify(config.logFormat)}`);
  checkHistoryConfig(config, args.history !== undefined || env.EDGEBLOCKS_HISTORY !== undefined);
  if (!/^[\w.~-]+$/.test(config.serviceId)) throw new ConfigError('serviceId', 'may hold only letters, digits, _ - . ~');
  if (!/^[\w.~-]+(\/[\w.~-]+)*$/.test(config.topicRoot)) throw new ConfigError('topicRoot', 'must be a topic path without wildcards');
  return config;
}

function checkHistoryConfig(config: Config, historyGiven: boolean): void {
  if (config.historyUrl !== undefined && !historyGiven && config.history === 'embedded') config.history = 'victoria';
  if (!['embedded', 'victoria', 'off'].includes(config.history)) throw new ConfigError('history', `must be 'embedded', 'victoria' or 'off', got ${JSON.stringify(config.history)}`);
  if (config.history === 'victoria' && !/^https?:\/\/[^/]+/.test(config.historyUrl ?? '')) throw new ConfigError('historyUrl', `--history victoria needs --history-url http://host:8428, got ${JSON.stringify(config.historyUrl ?? null)}`);
  try {
    if (parseDuration(config.historyRetention, 'historyRetention') < 3600) throw new QueryError('must be at least 1h');
  } catch (e) {
    throw new ConfigError('historyRetention', (e as Error).message);
  }
}

export function helpText(): string {
  const rows = OPTIONS.map((o) => `  ${(o.flag ?? `(file) ${o.key}`).padEnd(20)} ${(o.env ?? '').padEnd(36)} ${o.help} [${JSON.stringify(DEFAULTS[o.key] ?? null)}]`);
  return ['Usage: edgeblocks [options]', '       edgeblocks user add|passwd|remove|list|token ...   (users for `auth`; see edgeblocks user --help)', '', '  flag                 env                                  meaning [default]', ...rows].join('\n');
}
