// The configuration: defaults < JSON file < environment < command-line flags, all checked
// with the one schema in config-schema.ts; here the rules that span keys or need a parser.
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ArgumentError, parseFlags, type FlagTable, type ParsedFlags } from './cli-args.js';
import {
  checkConfigDocument,
  checkEnv,
  checkSetting,
  ConfigSchema,
  configFlags,
  configHelp,
  DEFAULTS,
  issueKey,
  SETTINGS,
  type Config,
  type ConfigIssue,
  type ConfigKey,
  type ValueSource,
} from './config-schema.js';
import { normalHost, normalOrigin } from './api/origin.js';
import { isValidCron } from './service/backup-schedule.js';
import { durationSeconds } from './shared/duration.js';
import { inRoot } from './shared/in-root.js';
import { ConfigError } from './shared/errors.js';
import { parseJsonFile } from './shared/json.js';
import { sharedPortProblem } from './shared/port-in-use.js';
import { unreadableFile } from './shared/unreadable.js';

export { DEFAULTS, type Config } from './config-schema.js';

export { ConfigError } from './shared/errors.js';

function refuse(issue: ConfigIssue): never {
  throw new ConfigError(issueKey(issue), issue.message);
}

export interface ParsedArgs {
  values: Partial<Record<ConfigKey, string>>;
  help: boolean;
  version: boolean;
  /** `edgeblocks check`: read the configuration as a start does, say whether it holds, start nothing. */
  check: boolean;
  /** `check --root DIR`: the installed service's files under DIR (an SD card, the installer's DESTDIR). */
  root?: string;
}

/** The service's own words besides flags: `edgeblocks help`, `edgeblocks version`, `edgeblocks check`. */
const WORDS = ['help', 'version', 'check'];

/** The config flags (from the schema) plus `--help`/`-h` and `--version`/`-v`. */
export function configFlagTable(): FlagTable {
  const table: FlagTable = { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } };
  for (const [flag, key] of configFlags())
    table[flag.slice(2)] = { type: ConfigSchema.properties[key].type === 'boolean' ? 'boolean' : 'string' };
  return table;
}

/** Config values by key from parsed flags. */
export function configValues(values: ParsedFlags['values']): ParsedArgs['values'] {
  const out: ParsedArgs['values'] = {};
  for (const [flag, key] of configFlags()) {
    const value = values[flag.slice(2)];
    if (value !== undefined) out[key] = String(value);
  }
  return out;
}

export function parseArgs(argv: string[]): ParsedArgs {
  let parsed: ParsedFlags;
  try {
    parsed = parseFlags(argv, { ...configFlagTable(), root: { type: 'string' } });
  } catch (e) {
    if (e instanceof ArgumentError) throw new ConfigError(e.arg, e.message.slice(e.arg.length + 2));
    throw e;
  }
  const extra = parsed.positionals.find((p) => !WORDS.includes(p));
  if (extra !== undefined) {
    // `--auth yes`: a word after a switch was meant as its value; refused as the same word from env or file is.
    const switchKey = (flag = '') => {
      const key = configFlags().get(flag);
      return key && ConfigSchema.properties[key].type === 'boolean' ? key : undefined;
    };
    const at = argv.findIndex((word, i) => word === extra && switchKey(argv[i - 1]));
    const key = at > 0 ? switchKey(argv[at - 1]) : undefined;
    if (key) {
      const checked = checkSetting(key, extra, `flag ${argv[at - 1]}`);
      if (checked.issue) refuse(checked.issue);
    }
    throw new ConfigError(
      JSON.stringify(extra),
      `unexpected argument; commands: help, version, user, doctor, check (see --help)`,
    );
  }
  const check = parsed.positionals.includes('check');
  const root = typeof parsed.values.root === 'string' ? parsed.values.root : undefined;
  if (root !== undefined && !check)
    throw new ConfigError(
      '--root',
      'goes with check only: edgeblocks check --root DIR (and edgeblocks doctor --root DIR)',
    );
  return {
    values: configValues(parsed.values),
    help: parsed.values.help === true || parsed.positionals.includes('help'),
    version: parsed.values.version === true || parsed.positionals.includes('version'),
    check,
    ...(root !== undefined ? { root } : {}),
  };
}

export const INSTALLED_CONFIG = 'etc/edgeblocks/config.json';
export const INSTALLED_DATA_DIR = 'var/lib/edgeblocks';

export interface LoadOptions {
  /**
   * The system the config file and the environment describe lies under this directory (`doctor
   * --root`, `check --root`, the installer's DESTDIR): the data dir they spell out as on that
   * system (/var/lib/edgeblocks) is compared with the flag's inside it.
   */
  root?: string;
}

/** Resolve the configuration. Throws ConfigError naming the key on any bad value. */
export function loadConfig(
  args: ParsedArgs['values'],
  env: NodeJS.ProcessEnv = process.env,
  options: LoadOptions = {},
): Config {
  const cfg: Record<string, unknown> = structuredClone(DEFAULTS);
  const file = args.config ?? env.EDGEBLOCKS_CONFIG;
  if (args.config !== undefined && env.EDGEBLOCKS_CONFIG !== undefined)
    refuseTwo(
      CONFIG_FILE,
      [
        {
          dir: env.EDGEBLOCKS_CONFIG,
          onSystem: true,
          says: `EDGEBLOCKS_CONFIG is ${JSON.stringify(env.EDGEBLOCKS_CONFIG)}`,
          fix: 'unset EDGEBLOCKS_CONFIG (on a Pi, remove it from the drop-in: sudo systemctl edit edgeblocks)',
        },
        { dir: args.config, onSystem: false, says: `--config gives ${JSON.stringify(args.config)}`, fix: '' },
      ],
      options.root,
    );
  const dataDirs: Place[] = [];
  if (file !== undefined) {
    let bytes: Buffer;
    try {
      // Under a root, the file's links are that system's.
      bytes = readFileSync(options.root === undefined ? file : inRoot(options.root, path.resolve(file)));
    } catch (e) {
      throw new ConfigError('config', unreadableFile(file, file, e));
    }
    const parsed = parseJsonFile(bytes, file);
    if (!parsed.ok) throw new ConfigError('config', parsed.reason);
    const json = parsed.value;
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      throw new ConfigError('config', `${file} must hold a JSON object`);
    const { values, issues } = checkConfigDocument(json as Record<string, unknown>);
    const first = issues[0];
    if (first)
      throw new ConfigError(issueKey(first), first.unknownKey ? `${first.message} (in ${file})` : first.message);
    Object.assign(cfg, values);
    cfg.config = file;
    if (typeof values.dataDir === 'string')
      dataDirs.push({
        dir: values.dataDir,
        onSystem: true,
        says: `${file} sets dataDir ${JSON.stringify(values.dataDir)}`,
        fix: `remove dataDir from ${file}`,
      });
  }
  const take = (key: ConfigKey, raw: string | undefined, source: ValueSource) => {
    if (raw === undefined || key === 'config') return;
    const checked = checkSetting(key, raw, source);
    if (checked.issue) refuse(checked.issue);
    cfg[key] = checked.value;
  };
  const fromEnv = checkEnv(env);
  if (fromEnv.issues[0]) refuse(fromEnv.issues[0]);
  Object.assign(cfg, fromEnv.values);
  for (const { key, schema } of SETTINGS) take(key, args[key], `flag ${schema.flag}`);
  if (env.EDGEBLOCKS_DATA_DIR !== undefined)
    dataDirs.push({
      dir: env.EDGEBLOCKS_DATA_DIR,
      onSystem: true,
      says: `EDGEBLOCKS_DATA_DIR is ${JSON.stringify(env.EDGEBLOCKS_DATA_DIR)}`,
      fix: 'unset EDGEBLOCKS_DATA_DIR (on a Pi, remove it from the drop-in: sudo systemctl edit edgeblocks)',
    });
  if (args.dataDir !== undefined)
    dataDirs.push({
      dir: args.dataDir,
      onSystem: false,
      says: `--data-dir gives ${JSON.stringify(args.dataDir)}`,
      fix: '',
    });
  refuseTwo(DATA_DIR, dataDirs, options.root);
  const config = cfg as unknown as Config;
  // Under a root, a dir spelt as on that system (the file's, the variable's) is that system's.
  const winner = dataDirs.at(-1);
  if (options.root !== undefined && winner?.onSystem && path.isAbsolute(winner.dir))
    config.dataDir = path.join(options.root, winner.dir);
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
  const clash = sharedPortProblem(config);
  if (clash) throw clash;
  if (!isValidCron(config.backupSchedule))
    throw new ConfigError('backupSchedule', `${JSON.stringify(config.backupSchedule)} is not a valid cron expression`);
  checkHistoryConfig(config, args.history !== undefined || env.EDGEBLOCKS_HISTORY !== undefined);
  return config;
}

/**
 * A place that names the data dir (the config file, EDGEBLOCKS_DATA_DIR, --data-dir) or the config
 * file (EDGEBLOCKS_CONFIG, --config), in the order they win in.
 */
interface Place {
  dir: string;
  /** Spelt as on the system the config describes (the file, the unit's environment), not as the tool running here sees it. */
  onSystem: boolean;
  /** "FILE sets dataDir X", for the refusal. */
  says: string;
  /** How to take this place out. */
  fix: string;
}

/** What refuseTwo names: the key, the thing, and the flag the installed service's unit gives it. */
interface OnePlace {
  key: ConfigKey;
  thing: string;
  unit: string;
}

const DATA_DIR: OnePlace = { key: 'dataDir', thing: 'data dir', unit: `--data-dir /${INSTALLED_DATA_DIR}` };
const CONFIG_FILE: OnePlace = { key: 'config', thing: 'config file', unit: `--config /${INSTALLED_CONFIG}` };

/**
 * The data dir is set in one place, and so is the config file. The installed service is started
 * with `--config` and `--data-dir` (its unit's ExecStart), which would win over
 * EDGEBLOCKS_CONFIG and EDGEBLOCKS_DATA_DIR in a drop-in and over the file's `dataDir`; the user
 * and doctor commands take the same ones (loadInstalledConfig), so any two places that name
 * different dirs (or files) are refused here, by the start, `edgeblocks check` and those commands
 * alike, rather than leave users, backups or a doctor's report in a dir the service never reads,
 * or a brewer editing a file the service never reads.
 */
function refuseTwo(what: OnePlace, places: Place[], root: string | undefined): void {
  for (let i = 0; i < places.length; i++)
    for (let j = i + 1; j < places.length; j++) {
      const [lower, higher] = [places[i]!, places[j]!];
      if (onePlace(lower, higher, root)) continue;
      throw new ConfigError(
        what.key,
        `${lower.says}, but ${higher.says} (on a Pi, the service's unit gives ${what.unit}); set the ${what.thing} in one place: ${lower.fix}, or give both the same ${what.thing.split(' ').at(-1)}`,
      );
    }
}

/** Two places name one dir or file: spelt alike, or one a link to the other; under a root, as on that system too. */
function onePlace(a: Place, b: Place, root: string | undefined): boolean {
  const spellings = (p: Place) =>
    root !== undefined && p.onSystem && path.isAbsolute(p.dir) ? [p.dir, path.join(root, p.dir)] : [p.dir];
  return spellings(a).some((x) => spellings(b).some((y) => path.resolve(x) === path.resolve(y) || same(x, y, root)));
}

/** Both exist and are one (the installed dir a link to where the data was moved); under a root, its links are that system's. */
function same(a: string, b: string, root: string | undefined): boolean {
  const real = (p: string) => realpathSync(root !== undefined ? inRoot(root, path.resolve(p)) : p);
  try {
    return real(a) === real(b);
  } catch {
    return false;
  }
}

function checkHistoryConfig(config: Config, historyGiven: boolean): void {
  if (config.historyUrl !== undefined && !historyGiven && config.history === 'embedded') config.history = 'victoria';
  if (config.history === 'victoria' && !/^https?:\/\/[^/]+/.test(config.historyUrl ?? ''))
    throw new ConfigError(
      'historyUrl',
      `--history victoria needs --history-url http://host:8428, got ${JSON.stringify(config.historyUrl ?? null)}`,
    );
  const retention = durationSeconds(config.historyRetention);
  if (retention.error !== undefined) throw new ConfigError('historyRetention', retention.error);
  if (retention.seconds < 3600) throw new ConfigError('historyRetention', 'must be at least 1h');
}

export function helpText(): string {
  return [
    'Usage: edgeblocks [options]',
    '       edgeblocks help|version',
    "       edgeblocks check [--config FILE] [--data-dir DIR] [--root DIR]    (the config file, EDGEBLOCKS_ variables and data dir as a start reads them: users with auth on, the database schema; exit 2 names what it refuses; nothing is written. Given neither FILE nor DIR, it checks what the installed service uses: /etc/edgeblocks/config.json, /var/lib/edgeblocks and its unit's EDGEBLOCKS_ variables, under --root DIR if given)",
    '       edgeblocks user add|passwd|remove|list|token ...   (users for `auth`; see edgeblocks user --help)',
    '       edgeblocks doctor [--json] [--toggle NAME]          (a self-test of the Pi and its buses; see edgeblocks doctor --help)',
    '',
    configHelp(),
  ].join('\n');
}
