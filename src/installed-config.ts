// The configuration a tool beside the installed service reads (`edgeblocks check`, `edgeblocks
// doctor`, `edgeblocks user`): loadConfig's, with what the installed unit gives the service (its
// effective ExecStart's flags, its EDGEBLOCKS_ variables) as the service gets them.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ArgumentError, parseFlags } from './cli-args.js';
import { SETTINGS, type ConfigKey } from './config-schema.js';
import {
  configFlagTable,
  configValues,
  DEFAULTS,
  INSTALLED_CONFIG,
  INSTALLED_DATA_DIR,
  loadConfig,
  type Config,
  type ParsedArgs,
} from './config.js';
import { inRoot, isUnder } from './shared/in-root.js';
import { homeWorkingDirectory } from './shared/working-directory.js';
import { ConfigError } from './shared/errors.js';

/** Where the installed service keeps its config file and data dir (scripts/install-pi.sh, systemd/edgeblocks.service). */
export const INSTALLED = { config: INSTALLED_CONFIG, dataDir: INSTALLED_DATA_DIR } as const;

/**
 * The configuration a tool beside the installed service reads (`edgeblocks user`, `edgeblocks
 * doctor`, `edgeblocks check`): loadConfig's, with the service's config file and data dir under
 * `root` as the defaults when the service is installed there (its config file or data dir exists:
 * the data dir is made by the first start), so that `sudo edgeblocks user add NAME` adds the user
 * the service finds (not one in ./data of the current directory). A flag, variable or file
 * setting wins. `unit` holds the EDGEBLOCKS_ variables the installed unit and its drop-ins give
 * the service: they count where the tool's own environment has none, and the unit's
 * EDGEBLOCKS_DATA_DIR (EDGEBLOCKS_CONFIG) only where the unit's --data-dir (--config) is taken
 * too, so that it is refused as the service's start refuses it. `commandLine` is the unit's
 * effective ExecStart (a drop-in may replace it): its --config and --data-dir are the service's
 * file and dir, and its other flags count where the tool has neither a flag nor a variable of
 * its own; with neither its --config nor the unit's EDGEBLOCKS_CONFIG, the service reads no config
 * file (its defaults), and neither does the tool; with no --data-dir there, the service's data dir
 * is its file's dataDir, the unit's EDGEBLOCKS_DATA_DIR or ./data, a relative one found from its
 * working directory, and so is the tool's. Under a root, links are followed as on that system
 * (src/shared/in-root.ts).
 */
export function loadInstalledConfig(
  args: ParsedArgs['values'],
  env: NodeJS.ProcessEnv = process.env,
  root = '/',
  unit: ReadonlyMap<string, { value: string; from?: string }> = new Map(),
  commandLine: { args: string[]; from: string; unread?: string | null; workingDirectory?: string | null } | null = null,
): Config {
  // A relative path the service is given, found as it finds it: from its working directory.
  const fromWorkingDirectory = (value: string, what: string) => {
    if (path.posix.isAbsolute(value)) return value;
    if (commandLine?.workingDirectory === null) throw new ConfigError('ExecStart', homeWorkingDirectory(what));
    return path.posix.resolve(commandLine?.workingDirectory ?? '/', value);
  };
  const flags = commandLine === null ? {} : unitFlags(commandLine);
  // The config file the unit gives the service: its ExecStart's --config or, with none there, its
  // EDGEBLOCKS_CONFIG (found from its working directory when relative, as the service finds it).
  const unitVariable = commandLine !== null && flags.config === undefined ? unit.get('EDGEBLOCKS_CONFIG') : undefined;
  const unitFile =
    flags.config ??
    (unitVariable === undefined
      ? undefined
      : fromWorkingDirectory(
          unitVariable.value,
          `the ExecStart in ${commandLine?.from} gives no --config, so the service reads the relative EDGEBLOCKS_CONFIG ${JSON.stringify(unitVariable.value)}`,
        ));
  const installedConfig = path.join(path.resolve(root), unitFile ?? INSTALLED.config);
  const installedData = path.join(path.resolve(root), flags.dataDir ?? INSTALLED.dataDir);
  const onSystem = path.resolve(root) === '/' ? undefined : path.resolve(root);
  // Under a root, its links are that system's (/var/lib/edgeblocks -> /data/eb is ROOT/data/eb).
  const under = (p: string) => {
    try {
      return inRoot(onSystem!, p);
    } catch (e) {
      throw new ConfigError('--root', (e as Error).message);
    }
  };
  const exists = (p: string) => existsSync(onSystem === undefined ? p : under(p));
  const withFile = { ...args };
  const dataDirGiven = args.dataDir !== undefined || env.EDGEBLOCKS_DATA_DIR !== undefined;
  // The unit's ExecStart gives no --config and it no EDGEBLOCKS_CONFIG (a drop-in's ExecStart
  // without one): the service reads no config file, its defaults, so neither does the tool; a data
  // dir of the tool's own does not change that, only a config file of its own.
  const readsNone =
    commandLine !== null && unitFile === undefined && args.config === undefined && env.EDGEBLOCKS_CONFIG === undefined;
  if (withFile.config === undefined && env.EDGEBLOCKS_CONFIG === undefined && exists(installedConfig) && !readsNone)
    withFile.config = installedConfig;
  const file = withFile.config ?? env.EDGEBLOCKS_CONFIG;
  // The installed service's config file goes with its unit's --data-dir: given here as the unit
  // gives it, so that a dataDir in that file (or the unit's EDGEBLOCKS_DATA_DIR) is refused as
  // the service's start refuses it.
  // Installed: the installer writes the config file; the data dir comes with the first start.
  const installed = exists(installedConfig) || exists(installedData);
  // A root holding no install (a card's boot partition, an empty dir) would check ./data and the
  // defaults and call them valid: not what was asked.
  if (!installed && path.resolve(root) !== '/' && file === undefined && !dataDirGiven)
    throw new ConfigError(
      '--root',
      `${root}: no edgeblocks is installed there (neither ${INSTALLED.config} nor ${INSTALLED.dataDir}); give the root of the installed system (an SD card's root partition, not its boot one), or --config and --data-dir`,
    );
  const asService = !dataDirGiven && installed && (file === undefined || path.resolve(file) === installedConfig);
  // The unit's ExecStart gives no --data-dir (a drop-in's): the service's data dir is its config
  // file's dataDir, the unit's EDGEBLOCKS_DATA_DIR or its default ./data, found from its working
  // directory, so the tool takes the same, not the installed one.
  const ownDataDir =
    commandLine !== null &&
    flags.dataDir === undefined &&
    args.config === undefined &&
    env.EDGEBLOCKS_CONFIG === undefined &&
    !dataDirGiven;
  if (asService && !ownDataDir) withFile.dataDir = installedData;
  // The unit's EDGEBLOCKS_CONFIG beside the unit's own --config, refused by loadConfig as the
  // service's start refuses it when they name different files.
  // A relative one is compared as the service reads it: from its working directory on that system.
  const unitsFile = file !== undefined && path.resolve(file) === installedConfig;
  const withUnit: NodeJS.ProcessEnv = { ...env };
  const asServiceReads = (name: string, value: string) =>
    name === 'EDGEBLOCKS_CONFIG'
      ? fromWorkingDirectory(value, `the service is given the relative EDGEBLOCKS_CONFIG ${JSON.stringify(value)}`)
      : value;
  for (const [name, { value }] of unit)
    if (name === 'EDGEBLOCKS_DATA_DIR' ? asService || ownDataDir : name !== 'EDGEBLOCKS_CONFIG' || unitsFile)
      withUnit[name] ??= asServiceReads(name, value);
  // The unit's other flags, where the tool has no flag or variable of its own for the setting.
  const taken = new Set<ConfigKey>();
  for (const { key, schema } of SETTINGS) {
    const value = flags[key];
    if (value === undefined || key === 'config' || key === 'dataDir' || withFile[key] !== undefined) continue;
    if (schema.env !== undefined && env[schema.env] !== undefined) continue;
    withFile[key] = value;
    taken.add(key);
  }
  // The unit's config file not there (its own /etc/edgeblocks/config.json deleted, or a drop-in's
  // --config or EDGEBLOCKS_CONFIG naming another): the service's start refuses it (it cannot read
  // the file), so it is said here, not checked as a fresh install with no file yet (the installer
  // writes the file before the unit, and checks its release with --config).
  if (
    commandLine !== null &&
    unitFile !== undefined &&
    args.config === undefined &&
    env.EDGEBLOCKS_CONFIG === undefined &&
    !exists(installedConfig)
  ) {
    const where =
      flags.config !== undefined
        ? `the ExecStart in ${commandLine.from}`
        : `EDGEBLOCKS_CONFIG in ${unitVariable?.from ?? 'the unit'}`;
    throw new ConfigError(
      flags.config !== undefined ? '--config' : 'EDGEBLOCKS_CONFIG',
      `${unitFile}, the config file ${where} gives the service, does not exist: the service cannot read it and refuses to start; write that file, or name the one that is there (sudo systemctl edit edgeblocks)`,
    );
  }
  let config: Config;
  try {
    config = loadConfig(withFile, withUnit, { root: onSystem });
  } catch (e) {
    // The refusal of a flag is keyed "port (flag --port)": one the unit gave is named with its file.
    const setting = SETTINGS.find(
      (s) => taken.has(s.key) && (e as ConfigError).key === `${s.key} (flag ${s.schema.flag})`,
    );
    if (e instanceof ConfigError && setting)
      e.message += `; the service gets ${setting.schema.flag} from the ExecStart in ${commandLine!.from} (sudo systemctl edit edgeblocks)`;
    throw e;
  }
  if (ownDataDir && !path.isAbsolute(config.dataDir)) {
    const onThatSystem = fromWorkingDirectory(
      config.dataDir,
      `the ExecStart in ${commandLine?.from} gives no --data-dir, so the service's data dir is the relative ${JSON.stringify(config.dataDir)}`,
    );
    config.dataDir = onSystem === undefined ? onThatSystem : path.join(onSystem, onThatSystem);
  } else if (!dataDirGiven && config.dataDir === DEFAULTS.dataDir && installed) config.dataDir = installedData;
  // A relative certificate or key the service is given (by its config file or unit) is found
  // from the directory systemd starts it in, not from the one this tool runs in.
  if (commandLine !== null && (asService || unitsFile))
    for (const key of ['httpsCert', 'httpsKey'] as const) {
      const value = config[key];
      const own =
        args[key] !== undefined || env[key === 'httpsCert' ? 'EDGEBLOCKS_HTTPS_CERT' : 'EDGEBLOCKS_HTTPS_KEY'];
      if (typeof value === 'string' && value !== '' && !path.isAbsolute(value) && !own)
        config[key] = fromWorkingDirectory(
          value,
          `the service's config file gives the relative ${key} ${JSON.stringify(value)}`,
        );
    }
  if (onSystem !== undefined && isUnder(onSystem, path.resolve(config.dataDir))) config.dataDir = under(config.dataDir);
  return config;
}

/**
 * The part of the unit's command line `line` that says which config file the service reads (its
 * --config, and why its words are not worked out), for a tool given a data dir of its own and no
 * config file: the unit's other flags are not the tool's, but its config file still is.
 */
export function unitConfigOnly<L extends { args: string[]; from: string }>(line: L): L {
  const args: string[] = [];
  for (let i = 0; i < line.args.length; i++)
    if (line.args[i] === '--config') args.push(...line.args.slice(i, ++i + 1));
    else if (line.args[i]!.startsWith('--config=')) args.push(line.args[i]!);
  return { ...line, args };
}

/** The config flags of a unit's ExecStart, by key; one the service's start would refuse is refused naming the file. */
function unitFlags(commandLine: { args: string[]; from: string; unread?: string | null }): ParsedArgs['values'] {
  // Its words not worked out (a specifier or variable): refused rather than read as another path.
  if (commandLine.unread) throw new ConfigError('ExecStart', commandLine.unread);
  try {
    const { values, positionals } = parseFlags(commandLine.args, configFlagTable());
    if (positionals[0] !== undefined)
      throw new ArgumentError(JSON.stringify(positionals[0]), 'unexpected argument; the service takes none');
    return configValues(values);
  } catch (e) {
    if (!(e instanceof ArgumentError)) throw e;
    throw new ConfigError(
      e.arg,
      `${e.message.slice(e.arg.length + 2)}, in the ExecStart in ${commandLine.from} (sudo systemctl edit edgeblocks)`,
    );
  }
}

/**
 * "; the service gets NAME from FILE (...)" for a refusal of a setting the installed service takes
 * from its unit (`unit`: variable to the file that sets it), where the message names the variable
 * or the refused setting is that variable's; else ''.
 */
export function unitOrigin(e: unknown, unit: ReadonlyMap<string, { from: string }>): string {
  if (!(e instanceof Error)) return '';
  // By its key, not its class: a check's refusal may come from the bundle's copy of ConfigError.
  const key = (e as { key?: unknown }).key;
  const env = SETTINGS.find((s) => s.key === key)?.schema.env;
  const set = [...unit].find(([name]) => new RegExp(`\\b${name}\\b`).test(e.message) || name === env);
  return set ? `; the service gets ${set[0]} from ${set[1].from} (sudo systemctl edit edgeblocks)` : '';
}

/**
 * Why the installed config file is not the service's, when its unit's command line (`commandLine`,
 * the service's own) gives no --config and it no EDGEBLOCKS_CONFIG, so that `config` holds none
 * though /etc/edgeblocks/config.json is there under `root`: the service starts on its defaults
 * and the brewer's edits to that file do nothing. Null otherwise.
 */
export function installedConfigUnread(config: Config, commandLine: { from: string } | null, root = '/'): string | null {
  const file = path.join(path.resolve(root), INSTALLED.config);
  if (commandLine === null || config.config !== undefined || !existsSync(file)) return null;
  return `the ExecStart in ${commandLine.from} gives no --config, nor the unit EDGEBLOCKS_CONFIG, so the service reads no config file and starts on its defaults: /${INSTALLED.config} is not read; give it --config /${INSTALLED.config} there (sudo systemctl edit edgeblocks)`;
}
