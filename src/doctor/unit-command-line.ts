// The command line a systemd service starts with: the effective ExecStart (a drop-in may replace
// it), its specifiers and variables expanded and its relative paths found from WorkingDirectory=,
// as systemd does, and whether the failsafe's ExecStopPost= reads the same config file. Read from
// the unit's files by the reader of its environment (unit-environment.ts), with the variables
// systemd itself gives the service (manager-variables.ts), under the same rule: no import but
// node's own and those files, since the installer runs it from a release before anything is
// installed (scripts/unit-environment.mjs).
import path from 'node:path';
import { homeWorkingDirectory } from '../shared/working-directory.js';
import { type ManagerVariable, managerVariables } from './manager-variables.js';
import {
  expandSpecifiers,
  SERVICE_UNIT,
  serviceSettings,
  type UnitVariable,
  unitEnvironment,
  words,
} from './unit-environment.js';
/** The command line a unit's service starts with: the words of its ExecStart, and the file that sets it. */
export interface UnitCommandLine {
  /** The program's arguments: after env and its settings, node, its options and the script when the program is node. */
  args: string[];
  /** The file whose ExecStart= it is, as a path on the machine. */
  from: string;
  /** More than one ExecStart= is left: systemd refuses to start such a service. */
  several: boolean;
  /** Why its words cannot be read as systemd gives them (a specifier not worked out here); null when they can. */
  unread: string | null;
  /**
   * The directory systemd starts the service in: the last WorkingDirectory= (its specifiers
   * expanded), or / when none is set; null for ~ (the home of User=, not worked out here). A
   * relative path the service is given (--config, --data-dir, its default ./data, httpsCert in its
   * config file) is found from there, not from the directory a tool runs in.
   */
  workingDirectory: string | null;
  /** What systemd does with the line that its writer may not expect (a variable it leaves empty), naming the file. */
  warnings: string[];
}

/** Options of node (and env) whose value is the next word when not given with =. */
const NODE_VALUE =
  /^(-r|--require|--import|--loader|--experimental-loader|--env-file|-C|--conditions|--inspect-port|--debug-port|--title|--input-type|--icu-data-dir|--openssl-config|--redirect-warnings|--diagnostic-dir|--report-dir|--report-directory|--report-filename|--report-signal|--heapsnapshot-signal|--cpu-prof-dir|--cpu-prof-name|--heap-prof-dir|--heap-prof-name|--secure-heap|--secure-heap-min|--tls-cipher-list|--tls-keylog|--unhandled-rejections|--use-largepages|--disable-proto|--dns-result-order|--experimental-policy|--policy-integrity|--experimental-default-type|--watch-path|--max-http-header-size)$/;
const ENV_VALUE = /^(-u|--unset|-C|--chdir|-S|--split-string)$/;

/** Where the arguments of `argv` begin: after `env` (its options and NAME=value words), node, its options and the script. */
function argumentsAt(argv: string[]): number {
  const base = (w: string | undefined) => (w ?? '').split('/').at(-1) ?? '';
  let at = 0;
  if (base(argv[0]) === 'env') {
    at = 1;
    while (at < argv.length && (argv[at]!.startsWith('-') || /^[^=]+=/.test(argv[at]!)))
      at += ENV_VALUE.test(argv[at]!) ? 2 : 1;
  }
  if (!/^node(js)?[0-9.]*$/.test(base(argv[at]))) return at + 1;
  at++;
  while (at < argv.length && argv[at]!.startsWith('-') && argv[at] !== '--') at += NODE_VALUE.test(argv[at]!) ? 2 : 1;
  if (argv[at] === '--') at++;
  return at + 1;
}

/**
 * The words of an ExecStart as the service gets them: each word's specifiers (%S, %t, %%...) and
 * then its variables (${NAME} within a word, $NAME as a word of its own split at whitespace, $$
 * a $) from the unit's environment and those systemd sets for it (managerVariables), as systemd
 * expands them: a variable neither sets is empty, as in systemd, with a warning naming it; or why
 * not, naming a specifier or a variable that depends on the running system, so that no wrong
 * path is ever read for the service's.
 */
function expand(
  raw: string[],
  service: string,
  env: ReadonlyMap<string, UnitVariable>,
  manager: ReadonlyMap<string, ManagerVariable>,
  from: string,
): { words: string[]; unread: string | null; warnings: string[] } {
  const out: string[] = [];
  const warnings: string[] = [];
  let unread: string | null = null;
  const refuse = (what: string, why = 'which edgeblocks does not work out') => {
    unread ??= `the ExecStart in ${from} uses ${what}, ${why}: write the value itself there (sudo systemctl edit edgeblocks)`;
    return '';
  };
  // The unit's Environment= first (it wins in systemd), then systemd's own; undefined when neither sets it.
  const value = (name: string): string | undefined => {
    const set = env.get(name)?.value;
    if (set !== undefined) return set;
    const own = manager.get(name);
    if (own === undefined) return undefined;
    return 'refused' in own ? refuse(`$${name}`, own.refused) : own.value;
  };
  // systemd makes a variable the unit does not set empty (a $NAME word goes, a ${NAME} is ''): so is it here, said.
  const unset = (name: string, word: string) => {
    warnings.push(
      `the ExecStart in ${from} uses $${name}, which no Environment= or EnvironmentFile= of the unit sets, nor systemd for it: systemd makes it empty, so the service gets ${JSON.stringify(word)}; set it there or write the value itself (sudo systemctl edit edgeblocks)`,
    );
    return '';
  };
  for (const word of raw) {
    const specified = expandSpecifiers(word, service, (all) => refuse(`the specifier ${all}`));
    const lone = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(specified);
    if (lone) {
      const set = value(lone[1]!);
      if (set === undefined) unset(lone[1]!, '');
      else out.push(...set.split(/\s+/).filter(Boolean));
      continue;
    }
    const missing: string[] = [];
    const expanded = specified.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_all, name: string | undefined) => {
      if (name === undefined) return '$';
      const set = value(name);
      if (set === undefined) missing.push(name);
      return set ?? '';
    });
    for (const name of missing) unset(name, expanded);
    out.push(expanded);
  }
  return { words: out, unread, warnings };
}

/** The service's flags whose value is a path, found from its working directory when relative. */
const PATH_FLAGS = new Set(['--config', '--data-dir', '--https-cert', '--https-key', '--sim-config']);

/**
 * `args` with the relative values of PATH_FLAGS resolved from `cwd`, as the service resolves
 * them; or why not (a working directory not known here, with a relative path given).
 */
function resolvePaths(args: string[], cwd: string | null, from: string): { args: string[]; unread: string | null } {
  let unread: string | null = null;
  const resolve = (flag: string, value: string) => {
    if (value === '' || value.startsWith('/')) return value;
    if (cwd === null) {
      unread ??= homeWorkingDirectory(`the ExecStart in ${from} gives the relative ${flag} ${JSON.stringify(value)}`);
      return value;
    }
    return path.posix.resolve(cwd, value);
  };
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const eq = word.indexOf('=');
    if (PATH_FLAGS.has(word) && i + 1 < args.length) {
      out.push(word, resolve(word, args[++i]!));
    } else if (eq > 0 && PATH_FLAGS.has(word.slice(0, eq))) {
      out.push(`${word.slice(0, eq)}=${resolve(word.slice(0, eq), word.slice(eq + 1))}`);
    } else out.push(word);
  }
  return { args: out, unread };
}

/**
 * The directory systemd starts the service in (systemd.exec(5) WorkingDirectory=): the last one
 * set (an empty one unsets), its - prefix dropped and specifiers expanded; / when none is set;
 * null for ~ (the home of User=, not worked out here).
 */
function workingDirectory(settings: Array<{ key: string; value: string }>, service: string): string | null {
  let dir = '';
  for (const { key, value } of settings) if (key === 'WorkingDirectory') dir = value;
  dir = dir.replace(/^-/, '');
  if (dir === '') return '/';
  if (dir.startsWith('~')) return null;
  return path.posix.resolve('/', expandSpecifiers(dir, service));
}

/**
 * The ExecStart `service` starts with, as systemd works it out: the unit's, then its drop-ins'
 * in order, each line added and an empty `ExecStart=` clearing those before it (how a drop-in
 * replaces the command line: `sudo systemctl edit edgeblocks`), its specifiers and variables
 * expanded (expand). Null without a unit file or an ExecStart left.
 */
export function unitCommandLine(
  root: string,
  service: string,
  unitFile: string,
  unitName: string,
): UnitCommandLine | null {
  let lines: Array<{ value: string; from: string }> = [];
  const settings = serviceSettings(root, service, unitFile, unitName) ?? [];
  for (const setting of settings) if (setting.key === 'ExecStart') lines = setting.value ? [...lines, setting] : [];
  const last = lines.at(-1);
  if (!last) return null;
  // Prefixes: @ (the next word is argv[0]), - : + ! !! (how it runs; no word of their own).
  const prefix = /^[-@:+!]+/.exec(last.value)?.[0] ?? '';
  const assigned = new Set<string>();
  const env = unitEnvironment(root, service, unitFile, unitName, assigned) ?? new Map<string, UnitVariable>();
  const manager = managerVariables(root, service, settings);
  // The unit's own assignment hides systemd's value of a name, even one UnsetEnvironment= then takes out.
  for (const name of assigned) manager.delete(name);
  const {
    words: all,
    unread,
    warnings,
  } = expand(words(last.value.slice(prefix.length)), service, env, manager, last.from);
  const argv = prefix.includes('@') ? [all[0] ?? '', ...all.slice(2)] : all;
  const cwd = workingDirectory(settings, service);
  const resolved = resolvePaths(argv.slice(argumentsAt(argv)), cwd, last.from);
  const failsafe = failsafeConfig(settings, resolved.args, service, env, manager, cwd);
  if (failsafe) warnings.push(failsafe);
  return {
    args: resolved.args,
    from: last.from,
    several: lines.length > 1,
    unread: unread ?? resolved.unread,
    workingDirectory: cwd,
    warnings,
  };
}

/** The last value of `flag` in `args` (`--flag V` or `--flag=V`), or undefined. */
function flagValue(args: string[], flag: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++)
    if (args[i] === flag) value = args[++i];
    else if (args[i]!.startsWith(`${flag}=`)) value = args[i]!.slice(flag.length + 1);
  return value;
}

/**
 * Why the failsafe (the ExecStopPost= running failsafe/index.js) would make safe the outputs of
 * another config file than the one the service reads: a drop-in gave ExecStart= another
 * --config and left the unit's ExecStopPost=; or null.
 */
function failsafeConfig(
  settings: Array<{ key: string; value: string; from: string }>,
  serviceArgs: string[],
  service: string,
  env: ReadonlyMap<string, UnitVariable>,
  manager: ReadonlyMap<string, ManagerVariable>,
  cwd: string | null,
): string | null {
  const config = flagValue(serviceArgs, '--config');
  if (config === undefined) return null;
  let lines: Array<{ value: string; from: string }> = [];
  for (const setting of settings) if (setting.key === 'ExecStopPost') lines = setting.value ? [...lines, setting] : [];
  for (const line of lines) {
    const prefix = /^[-@:+!]+/.exec(line.value)?.[0] ?? '';
    const { words: argv } = expand(words(line.value.slice(prefix.length)), service, env, manager, line.from);
    const at = argumentsAt(argv);
    if (!/failsafe(\/index\.js)?$/.test(argv[at - 1] ?? '')) continue;
    const theirs = flagValue(resolvePaths(argv.slice(at), cwd, line.from).args, '--config');
    if (theirs === undefined || path.posix.resolve(theirs) === path.posix.resolve(config)) continue;
    return `the service reads ${config} but its failsafe (the ExecStopPost= in ${line.from}) reads ${theirs}: after a stop or a crash it makes safe the outputs of that file, not the service's; give ExecStopPost= the same --config (an empty ExecStopPost= line, then the failsafe's line with it: sudo systemctl edit edgeblocks)`;
  }
  return null;
}

/** Why systemd refuses a unit whose drop-in adds an ExecStart= without clearing the one before; null when it does not. */
export function severalExecStart(line: UnitCommandLine | null): string | null {
  if (!line?.several) return null;
  return `${line.from} adds an ExecStart= without an empty "ExecStart=" line before it, so the service has two and systemd refuses to start it ("more than one ExecStart= setting"); begin its [Service] section with ExecStart= (sudo systemctl edit edgeblocks)`;
}

/** The command line the installed unit under `root` and its drop-ins start the service with (unitCommandLine). */
export function serviceCommandLine(root: string): UnitCommandLine | null {
  const at = root.replace(/\/+$/, '');
  return unitCommandLine(
    at,
    SERVICE_UNIT,
    `${at}/etc/systemd/system/${SERVICE_UNIT}`,
    `/etc/systemd/system/${SERVICE_UNIT}`,
  );
}
