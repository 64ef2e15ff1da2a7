// The variables systemd itself gives a service's ExecStart, besides the unit's Environment= and
// EnvironmentFile= (unit-environment.ts): the manager's DefaultEnvironment=, those it sets from
// the unit's settings (StateDirectory=, User=...), and those it cannot be known here (set only
// once the service runs, or taken from the manager's own environment), refused by name. Read
// from the files under a root, for the reader of the command line (unit-command-line.ts), under
// its rule: no import but node's own and unit-environment.ts, since the installer runs it from a
// release before anything is installed (scripts/unit-environment.mjs).
import { readFileSync } from 'node:fs';
import { defaultEnvironment, expandSpecifiers, unsetEnvironment, words } from './unit-environment.js';

/** A variable systemd itself sets for the service: its value, or why it is not known from the unit's files. */
export type ManagerVariable = { value: string } | { refused: string };

/** The directory settings of a system service, the variable naming their paths, and where they are made (systemd.exec(5)). */
const DIRECTORIES: Array<[setting: string, variable: string, under: string]> = [
  ['RuntimeDirectory', 'RUNTIME_DIRECTORY', '/run'],
  ['StateDirectory', 'STATE_DIRECTORY', '/var/lib'],
  ['CacheDirectory', 'CACHE_DIRECTORY', '/var/cache'],
  ['LogsDirectory', 'LOGS_DIRECTORY', '/var/log'],
  ['ConfigurationDirectory', 'CONFIGURATION_DIRECTORY', '/etc'],
];

/** Variables systemd sets (systemd.exec(5), "Environment variables in spawned processes") whose value exists only once it starts the service. */
const RUN_TIME = [
  'INVOCATION_ID',
  'MAINPID',
  'MANAGERPID',
  'SYSTEMD_EXEC_PID',
  'LISTEN_FDS',
  'LISTEN_PID',
  'LISTEN_FDNAMES',
  'NOTIFY_SOCKET',
  'WATCHDOG_PID',
  'WATCHDOG_USEC',
  'JOURNAL_STREAM',
  'CREDENTIALS_DIRECTORY',
  'LOG_NAMESPACE',
  'TERM',
  'XDG_RUNTIME_DIR',
  'XDG_SEAT',
  'XDG_VTNR',
  'SERVICE_RESULT',
  'EXIT_CODE',
  'EXIT_STATUS',
  'MONITOR_SERVICE_RESULT',
  'MONITOR_EXIT_CODE',
  'MONITOR_EXIT_STATUS',
  'MONITOR_INVOCATION_ID',
  'MONITOR_UNIT',
  'PIDFILE',
  'TRIGGER_UNIT',
  'TRIGGER_PATH',
  'TRIGGER_TIMER_REALTIME_USEC',
  'TRIGGER_TIMER_MONOTONIC_USEC',
  'MEMORY_PRESSURE_WATCH',
  'MEMORY_PRESSURE_WRITE',
  'FDSTORE',
  'REMOTE_ADDR',
  'REMOTE_PORT',
];

/** The line of `user` (a name or a uid) in the passwd file under `root`, or null. */
function passwdEntry(root: string, user: string): { name: string; home: string; shell: string } | null {
  // systemd knows root without asking the user database.
  if (user === 'root' || user === '0') return { name: 'root', home: '/root', shell: '/bin/sh' };
  let text: string;
  try {
    text = readFileSync(`${root}/etc/passwd`, 'utf8');
  } catch {
    return null;
  }
  for (const line of text.split('\n')) {
    const [name, , uid, , , home, shell] = line.split(':');
    if (name !== undefined && (name === user || (/^\d+$/.test(user) && uid === user)))
      return { name, home: home ?? '', shell: (shell ?? '').trim() };
  }
  return null;
}

/**
 * The variables systemd gives `service` besides its Environment= and EnvironmentFile= (which win
 * over all of these), which its ExecStart may use, each over the one before as in systemd
 * (systemd.exec(5), "Environment variables in spawned processes"): DefaultEnvironment= of the
 * manager (defaultEnvironment); then those systemd sets for the service itself: the paths of its
 * StateDirectory= and the other directory settings (each name below its place, joined by ':'),
 * and USER, LOGNAME, HOME and SHELL of its User= (from the passwd file under `root`; HOME and
 * SHELL left unset where systemd leaves them: a home of /, a nologin shell); then those its
 * PassEnvironment= takes from the manager's own environment. Refused by name: those that exist
 * only while it runs (INVOCATION_ID, MAINPID...), those that depend on the running system (PATH
 * and LANG, unless DefaultEnvironment= sets them) and PassEnvironment='s, which no file holds.
 * Less those UnsetEnvironment= takes out (unsetEnvironment), as systemd's last step.
 */
export function managerVariables(
  root: string,
  service: string,
  settings: Array<{ key: string; value: string; from: string }>,
): Map<string, ManagerVariable> {
  const out = new Map<string, ManagerVariable>();
  for (const name of ['PATH', 'LANG'])
    out.set(name, { refused: "which systemd sets from the running system's settings, not the unit's" });
  for (const [name, { value }] of defaultEnvironment(root)) out.set(name, { value });
  for (const name of RUN_TIME) out.set(name, { refused: 'which systemd sets only when it starts the service' });
  let unknown: string | null = null;
  const specified = (value: string) => expandSpecifiers(value, service, (all) => ((unknown = all), ''));
  const last = (key: string) => settings.reduce<string>((v, s) => (s.key === key ? s.value : v), '');
  for (const [setting, variable, under] of DIRECTORIES) {
    let dirs: string[] = [];
    unknown = null;
    for (const { key, value } of settings)
      if (key !== setting) continue;
      else if (value.trim() === '') dirs = [];
      else for (const word of words(value)) dirs.push(`${under}/${specified(word).split(':')[0]}`);
    if (unknown) out.set(variable, { refused: `which names its ${setting}= with the specifier ${unknown}` });
    else if (dirs.length) out.set(variable, { value: dirs.join(':') });
  }
  unknown = null;
  const user = specified(last('User').trim());
  if (/^(1|yes|true|on)$/i.test(last('DynamicUser').trim())) {
    for (const name of ['USER', 'LOGNAME', 'HOME', 'SHELL'])
      out.set(name, { refused: 'which systemd sets for the dynamic user it makes at each start (DynamicUser=)' });
  } else if (unknown) {
    for (const name of ['USER', 'LOGNAME', 'HOME', 'SHELL'])
      out.set(name, { refused: `which systemd sets from User=, named with the specifier ${unknown}` });
  } else if (user !== '') {
    const entry = passwdEntry(root, user);
    const missing = {
      refused: `which systemd takes from the user database for User=${user}, and ${root}/etc/passwd has no such user`,
    };
    const name = entry?.name ?? (/^\d+$/.test(user) ? null : user);
    for (const v of ['USER', 'LOGNAME']) out.set(v, name === null ? missing : { value: name });
    if (!entry) for (const v of ['HOME', 'SHELL']) out.set(v, missing);
    else {
      if (entry.home.startsWith('/') && entry.home !== '/') out.set('HOME', { value: entry.home });
      if (entry.shell.startsWith('/') && !/\/(nologin|false)$/.test(entry.shell))
        out.set('SHELL', { value: entry.shell });
    }
  }
  // PassEnvironment= (the last list; an empty one clears): the manager's own variables, not in any file.
  let passed = new Map<string, string>();
  for (const { key, value, from } of settings)
    if (key !== 'PassEnvironment') continue;
    else if (value.trim() === '') passed = new Map();
    else for (const name of words(value)) passed.set(name, from);
  for (const [name, from] of passed)
    out.set(name, {
      refused: `which PassEnvironment= (${from}) passes from systemd's own environment, not known from the unit's files`,
    });
  // UnsetEnvironment= takes them out too (a NAME=VALUE one only that value; a refused one by its name).
  const unset = unsetEnvironment(settings, service);
  for (const [name, v] of out) if (unset(name, 'value' in v ? v.value : null)) out.delete(name);
  return out;
}
