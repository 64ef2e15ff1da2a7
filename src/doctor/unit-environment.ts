// The environment a systemd service starts with: Environment= and EnvironmentFile= (whose values
// win, as in systemd) of its unit and of its drop-ins (`systemctl edit edgeblocks`), over the
// manager's DefaultEnvironment= (system.conf), less UnsetEnvironment=; and the
// [Service] settings its command line is read from (unit-command-line.ts), read from the
// files rather than asked of systemctl: they are there under another root (an SD card, the
// installer's DESTDIR) and without a running systemd, and the installer reloads systemd before
// its restart, so the files are what the service gets. The one reader of it: `sudo edgeblocks
// doctor`, `sudo edgeblocks user` and plain `sudo edgeblocks check` (sudo passes none of the
// service's environment), and
// the installer's check of a new release (scripts/unit-environment.mjs runs this file and unit-command-line.ts). No import
// but node's own (fs): the installer runs it from a release before anything is installed, and the check
// loads it beside the bundle without loading the config's modules twice.
import { readdirSync, readFileSync, statSync } from 'node:fs';

export interface UnitVariable {
  value: string;
  /** The file that sets it, as a path on the machine (without `root`). */
  from: string;
}

/** Drop-in directories: /etc before /run before the vendor ones; one file of a name counts. */
const DIRS = [
  '/etc/systemd/system.control',
  '/run/systemd/system.control',
  '/run/systemd/transient',
  '/etc/systemd/system',
  '/run/systemd/system',
  '/usr/local/lib/systemd/system',
  '/usr/lib/systemd/system',
  '/lib/systemd/system',
];

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", s: ' ' };

/** The words of a setting's value: quotes group, a backslash escapes (its specifiers left: expandSpecifiers). */
export function words(text: string): string[] {
  const out: string[] = [];
  let word: string | null = null;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + (ESCAPES[text[i + 1]!] ?? text[i + 1]);
      i++;
    } else if (quote) {
      if (c === quote) quote = null;
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word = word ?? '';
    } else if (/\s/.test(c)) {
      if (word !== null) out.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (word !== null) out.push(word);
  return out;
}

/** NAME=VALUE lines of an environment file: # and ; comments, a value in quotes may span lines. */
function environmentFile(text: string, from: string, env: Map<string, UnitVariable>): void {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.trim();
    if (!l || l[0] === '#' || l[0] === ';') continue;
    const eq = l.indexOf('=');
    if (eq < 1) continue;
    const name = l.slice(0, eq).trim();
    let value = l.slice(eq + 1).trim();
    const q = value[0];
    if (q === '"' || q === "'") {
      while (!(value.length > 1 && value.endsWith(q) && !value.endsWith(`\\${q}`)) && i + 1 < lines.length)
        value += `\n${lines[++i]}`;
      value = value.slice(1, value.endsWith(q) ? -1 : undefined);
      if (q === '"') value = value.replace(/\\(["\\$`])/g, '$1').replace(/\\\n/g, '');
    } else {
      while (value.endsWith('\\') && i + 1 < lines.length) value = value.slice(0, -1) + lines[++i]!.trim();
    }
    env.set(name, { value, from });
  }
}

/**
 * The lines of a unit file with their continuations joined (a line ending in a backslash goes on
 * in the next, the backslash becoming a space); a comment line (# or ; first) inside a continued
 * line is left out, as systemd.syntax(7) says, not joined into the value.
 */
export function logicalLines(text: string): string[] {
  const out: string[] = [];
  let open: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const first = raw.trimStart()[0];
    if (open !== null && (first === '#' || first === ';')) continue;
    const line: string = (open ?? '') + raw;
    if (line.endsWith('\\')) open = `${line.slice(0, -1)} `;
    else {
      out.push(line);
      open = null;
    }
  }
  if (open !== null) out.push(open);
  return out;
}

function readText(p: string): string | null {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The [Service] settings of a unit as systemd reads them: `unitFile` (shown as `unitName`), then
 * its drop-ins (`service`.d/ and service.d/ in each directory of DIRS under `root`, one file of a
 * name counting, the first directory's) in the lexical order of their names; each as key, value
 * and the file, in that order. Null when the unit file cannot be read.
 */
export function serviceSettings(
  root: string,
  service: string,
  unitFile: string,
  unitName: string,
): Array<{ key: string; value: string; from: string }> | null {
  const unitText = readText(unitFile);
  if (unitText === null) return null;
  const dropIns = new Map<string, string>();
  for (const sub of [`${service}.d`, 'service.d'])
    for (const dir of DIRS) {
      let names: string[] = [];
      try {
        names = readdirSync(`${root}${dir}/${sub}`);
      } catch {}
      for (const n of names) if (n.endsWith('.conf') && !dropIns.has(n)) dropIns.set(n, `${dir}/${sub}/${n}`);
    }
  const sources: Array<[string, string]> = [
    [unitName, unitText],
    ...[...dropIns.keys()]
      .sort()
      .map((n): [string, string] => [dropIns.get(n)!, readText(root + dropIns.get(n)) ?? '']),
  ];
  const out: Array<{ key: string; value: string; from: string }> = [];
  for (const [from, text] of sources) {
    let section = '';
    for (const line of logicalLines(text)) {
      const l = line.trim();
      if (!l || l[0] === '#' || l[0] === ';') continue;
      if (l[0] === '[') {
        section = l;
        continue;
      }
      const eq = l.indexOf('=');
      if (section !== '[Service]' || eq < 0) continue;
      out.push({ key: l.slice(0, eq).trim(), value: l.slice(eq + 1).trim(), from });
    }
  }
  return out;
}

/** Specifiers of a system unit whose value is known without the running system (systemd.unit(5)). */
function specifiers(service: string): Record<string, string> {
  const name = service.replace(/\.service$/, '');
  return {
    '%': '%',
    S: '/var/lib',
    C: '/var/cache',
    L: '/var/log',
    t: '/run',
    E: '/etc',
    T: '/tmp',
    V: '/var/tmp',
    n: service,
    N: name,
    p: name,
    P: name,
  };
}

/**
 * `text` with its specifiers expanded as systemd expands them in `service`'s settings that take
 * them (ExecStart=, WorkingDirectory=, StateDirectory=, User=, UnsetEnvironment=...; the table of
 * systemd.unit(5)): %% a %, %S /var/lib, %n the unit's name...; one whose value depends on the
 * running system (%h, %u, %H...) is given to `unknown` (the specifier, as written), and replaced
 * by what it returns (by default left as written).
 */
export function expandSpecifiers(
  text: string,
  service: string,
  unknown: (specifier: string) => string = (s) => s,
): string {
  const known = specifiers(service);
  return text.replace(/%(.?)/g, (all, c: string) => known[c] ?? unknown(all));
}

/** Where systemd reads its manager's settings (systemd-system.conf(5)): the file, then drop-ins. */
const SYSTEM_CONF = '/etc/systemd/system.conf';
/** Drop-in directories of system.conf, the first one's file of a name counting. */
const SYSTEM_CONF_DIRS = [
  '/etc/systemd/system.conf.d',
  '/run/systemd/system.conf.d',
  '/usr/local/lib/systemd/system.conf.d',
  '/usr/lib/systemd/system.conf.d',
  '/lib/systemd/system.conf.d',
];

/**
 * The manager's DefaultEnvironment= under `root`, which systemd gives every service below the
 * variables it sets for the service and the unit's own: the [Manager] lines of system.conf, then
 * of its drop-ins in the order of their names, the assignments of each line added (a later one
 * of a name wins) and an empty DefaultEnvironment= clearing those before it; each with the file
 * that sets it.
 */
export function defaultEnvironment(root: string): Map<string, UnitVariable> {
  const dropIns = new Map<string, string>();
  for (const dir of SYSTEM_CONF_DIRS) {
    let names: string[] = [];
    try {
      names = readdirSync(`${root}${dir}`);
    } catch {}
    for (const n of names) if (n.endsWith('.conf') && !dropIns.has(n)) dropIns.set(n, `${dir}/${n}`);
  }
  const files = [SYSTEM_CONF, ...[...dropIns.keys()].sort().map((n) => dropIns.get(n)!)];
  let out = new Map<string, UnitVariable>();
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(`${root}${file}`, 'utf8');
    } catch {
      continue;
    }
    let section = '';
    for (const line of logicalLines(text)) {
      const l = line.trim();
      if (!l || l[0] === '#' || l[0] === ';') continue;
      if (l[0] === '[') section = l;
      const eq = l.indexOf('=');
      if (section !== '[Manager]' || eq < 0 || l.slice(0, eq).trim() !== 'DefaultEnvironment') continue;
      const value = l.slice(eq + 1).trim();
      if (value === '') out = new Map();
      for (const w of words(value)) {
        const at = w.indexOf('=');
        if (at > 0) out.set(w.slice(0, at), { value: w.slice(at + 1), from: file });
      }
    }
  }
  return out;
}

/**
 * Whether UnsetEnvironment= of `settings` takes a variable (with its value; null when not known
 * here) out of what the service gets (systemd.exec(5)): every list of the unit and its drop-ins
 * in order, an empty one clearing those before it; a NAME takes the variable whatever its value,
 * a NAME=VALUE only that assignment. systemd applies it last, over Environment=,
 * EnvironmentFile=, DefaultEnvironment= and the variables it sets itself, whichever file set
 * them and in whatever order, and before it expands ExecStart's variables.
 */
export function unsetEnvironment(
  settings: ReadonlyArray<{ key: string; value: string }>,
  service: string,
): (name: string, value: string | null) => boolean {
  let unset: string[] = [];
  for (const { key, value } of settings)
    if (key !== 'UnsetEnvironment') continue;
    else if (value.trim() === '') unset = [];
    else unset.push(...words(value).map((w) => expandSpecifiers(w, service)));
  return (name, value) => unset.some((u) => u === name || (value !== null && u === `${name}=${value}`));
}

/**
 * The variables `service` starts with, by name: from `unitFile` (shown as `unitName`) and the
 * drop-ins under `root` ('' for this machine), less those its UnsetEnvironment= takes out (the
 * names it sets are in `assigned`, taken or not). Null when the unit file cannot be read.
 */
export function unitEnvironment(
  root: string,
  service: string,
  unitFile: string,
  unitName: string,
  assigned?: Set<string>,
): Map<string, UnitVariable> | null {
  const settings = serviceSettings(root, service, unitFile, unitName);
  if (settings === null) return null;
  const env = assignedEnvironment(root, settings, service);
  for (const name of env.keys()) assigned?.add(name);
  const unset = unsetEnvironment(settings, service);
  for (const [name, { value }] of env) if (unset(name, value)) env.delete(name);
  return env;
}

/**
 * The variables `service` starts with that its unit's files and the manager's decide, by name:
 * DefaultEnvironment= of system.conf and its drop-ins under `root` (defaultEnvironment), which
 * systemd gives every service, below the unit's Environment= and EnvironmentFile=
 * (unitEnvironment), less those UnsetEnvironment= takes out, as systemd's last step. Not those
 * systemd sets for the service itself (STATE_DIRECTORY, USER...: manager-variables.ts), which
 * are none of the EDGEBLOCKS_ ones. Null when the unit file cannot be read.
 */
export function serviceEnvironment(
  root: string,
  service: string,
  unitFile: string,
  unitName: string,
): Map<string, UnitVariable> | null {
  const settings = serviceSettings(root, service, unitFile, unitName);
  if (settings === null) return null;
  const env = defaultEnvironment(root);
  for (const [name, variable] of assignedEnvironment(root, settings, service)) env.set(name, variable);
  const unset = unsetEnvironment(settings, service);
  for (const [name, { value }] of env) if (unset(name, value)) env.delete(name);
  return env;
}

/**
 * The variables Environment= and EnvironmentFile= of `settings` set, by name (the files under
 * `root`), the specifiers of `service` in both expanded as systemd does (not in the files' lines).
 */
function assignedEnvironment(
  root: string,
  settings: ReadonlyArray<{ key: string; value: string; from: string }>,
  service: string,
): Map<string, UnitVariable> {
  let assigned: Array<[string, string, string]> = [];
  let files: string[] = [];
  for (const { key, value, from } of settings) {
    if (key === 'Environment') {
      if (!value) assigned = [];
      for (const w of words(value).map((word) => expandSpecifiers(word, service))) {
        const at = w.indexOf('=');
        if (at > 0) assigned.push([w.slice(0, at), w.slice(at + 1), from]);
      }
    } else if (key === 'EnvironmentFile') {
      if (!value) files = [];
      else files.push(expandSpecifiers(value.replace(/^-/, ''), service));
    }
  }
  const env = new Map<string, UnitVariable>();
  for (const [name, value, from] of assigned) env.set(name, { value, from });
  for (const file of files) {
    const text = readText(root + file);
    if (text !== null) environmentFile(text, file, env);
  }
  return env;
}

/** The EDGEBLOCKS_ variables of `env`: the service's settings (docs/configuration.md). */
export function edgeblocksVariables(env: Map<string, UnitVariable>): Map<string, UnitVariable> {
  return new Map([...env].filter(([name]) => /^EDGEBLOCKS_[A-Za-z0-9_]*$/.test(name)));
}

export const SERVICE_UNIT = 'edgeblocks.service';

/**
 * The EDGEBLOCKS_ variables the installed unit under `root` and its drop-ins give the service (over
 * DefaultEnvironment= of system.conf, less UnsetEnvironment=: serviceEnvironment), for
 * a tool beside it (`sudo edgeblocks doctor`, plain `edgeblocks check`: sudo passes none of
 * them), less those the tool's own environment sets (they win). Not EDGEBLOCKS_CONFIG when the
 * tool is given a config file of its own, nor EDGEBLOCKS_DATA_DIR when it is given a data dir of
 * its own: beside the unit's --config and --data-dir, which the tool takes otherwise,
 * loadConfig refuses one that differs, as the service's start does.
 */
export function serviceVariables(
  root: string,
  own: { dataDir?: boolean; config?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): Map<string, UnitVariable> {
  const unit = `${root.replace(/\/+$/, '')}/etc/systemd/system/${SERVICE_UNIT}`;
  const found = serviceEnvironment(root.replace(/\/+$/, ''), SERVICE_UNIT, unit, `/etc/systemd/system/${SERVICE_UNIT}`);
  const vars = edgeblocksVariables(found ?? new Map());
  if (own.config) vars.delete('EDGEBLOCKS_CONFIG');
  if (own.dataDir) vars.delete('EDGEBLOCKS_DATA_DIR');
  for (const name of [...vars.keys()]) if (env[name] !== undefined) vars.delete(name);
  return vars;
}

/** Why a --root DIR is no root (a misspelt one would be taken as an empty system), or null. */
export function notARoot(dir: string): string | null {
  try {
    return statSync(dir).isDirectory() ? null : 'not a directory';
  } catch {
    return 'no such directory';
  }
}
