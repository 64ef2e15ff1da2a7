// `edgeblocks user add|passwd|remove|list|token`: manage the users file in the data dir. The
// password comes from a prompt on a terminal, or the first line of stdin otherwise (scripts).
// Usage errors exit 2, a users file that cannot be read exits 1; the file is never rewritten then.
// A users file another writer holds is waited for (users-lock.ts), then exits 1, unchanged.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { ArgumentError, parseFlags } from '../cli-args.js';
import { ConfigError, configFlagTable, configValues } from '../config.js';
import { loadInstalledConfig, unitOrigin } from '../installed-config.js';
import { serviceCommandLine } from '../doctor/unit-command-line.js';
import { serviceVariables, type UnitVariable } from '../doctor/unit-environment.js';
import { DEFAULT_ROLE, isRole, ROLES, type Role } from '../shared/roles.js';
import { UsersFile } from './users.js';
import { checkUserName, UserNameError, UsersFileError } from './users-format.js';
import { LOCK_WAIT_MS, UsersFileBusy } from './users-lock.js';
import { becomeOwnerOf, unusableFileError } from '../store/file-modes.js';

export const MIN_PASSWORD_LENGTH = 8;

const USAGE = `Usage: edgeblocks user <command> [options]
  add NAME [--role admin|viewer]
                   add a user (password from the prompt, or the first line of stdin); an admin
                   (the default) reads and changes everything, a viewer only reads
  role NAME admin|viewer
                   change a user's role (takes effect within a second, sessions stay)
  passwd NAME      change a user's password (ends the user's sessions and connections, revokes the token)
  remove NAME      remove a user (ends the user's sessions and connections, revokes the token;
                   not the last one while auth is on)
  list             list the users
  token NAME       make an API token for scripts (replaces the previous one; shown once)
  token NAME --revoke
Options: --data-dir DIR, --config FILE (as for the service; the users file is DIR/users.json).
The installed service's /etc/edgeblocks/config.json and /var/lib/edgeblocks are the defaults
when they exist, with the EDGEBLOCKS_ variables its unit and drop-ins set: on a Pi, sudo
edgeblocks user add NAME adds the user the service finds.`;

class UsageError extends Error {}

interface Io {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

async function readStdinLine(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += chunk.toString();
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0]!;
}

async function prompt(io: Io, question: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk, _enc, cb) {
      if (!muted) io.stderr.write(chunk.toString());
      cb();
    },
  });
  const rl = createInterface({ input: io.stdin, output, terminal: true });
  try {
    return await new Promise<string>((resolve) => {
      rl.question(question, (answer) => resolve(answer));
      muted = true;
    });
  } finally {
    rl.close();
    io.stderr.write('\n');
  }
}

async function readPassword(io: Io, name: string): Promise<string> {
  let password: string;
  if (io.stdin.isTTY) {
    password = await prompt(io, `password for ${name}: `);
    if ((await prompt(io, 'again: ')) !== password) throw new UsageError('the passwords differ; nothing was changed');
  } else {
    password = await readStdinLine(io.stdin);
  }
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new UsageError(`the password must have at least ${MIN_PASSWORD_LENGTH} characters; nothing was changed`);
  return password;
}

/** The name of user `uid` from /etc/passwd, else `uid N`. */
function userName(uid: number): string {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (id === String(uid) && name) return name;
    }
  } catch {
    // no passwd file: the number
  }
  return `uid ${uid}`;
}

/**
 * A permission error on a data dir that belongs to another user (the service's, 0700), the command
 * run without root: the fix is sudo (the command then works as that user, file-modes.ts), not a
 * chown that would take the dir from the service. Null otherwise.
 */
function otherOwnerLine(e: unknown, dataDir: string, argv: string[]): string | null {
  const uid = process.getuid?.();
  if (uid === undefined || uid === 0) return null;
  let owner: number;
  try {
    owner = statSync(dataDir).uid;
  } catch {
    return null;
  }
  if (owner === uid) return null;
  const err = e as NodeJS.ErrnoException;
  let me: string;
  try {
    me = userInfo().username;
  } catch {
    me = `uid ${uid}`;
  }
  const file = path.resolve(typeof err.path === 'string' ? err.path : dataDir);
  return `cannot use ${file} (${err.code}: ${err.syscall ?? 'access'} as user ${me}): the data dir ${path.resolve(dataDir)} belongs to ${userName(owner)}; run the command as root, which works as that user: sudo edgeblocks user ${argv.join(' ')}`;
}

/** Run `edgeblocks user ...` (argv after `user`); returns the exit code. */
export async function runUserCommand(
  argv: string[],
  io: Io = process,
  env: NodeJS.ProcessEnv = process.env,
  /** Where the installed service's config and data dir are looked for (tests: a laid-out root). */
  root = '/',
): Promise<number> {
  let dataDir = '.';
  let fromUnit = new Map<string, UnitVariable>();
  try {
    if (argv.length === 0) {
      io.stderr.write(USAGE + '\n');
      return 2;
    }
    const { version: _notHere, ...serviceFlags } = configFlagTable();
    const { values, positionals: positional } = parseFlags(argv, {
      ...serviceFlags,
      revoke: { type: 'boolean' },
      role: { type: 'string' },
    });
    if (values.help === true || positional[0] === 'help') {
      io.stdout.write(USAGE + '\n');
      return 0;
    }
    const revoke = values.revoke === true;
    const [command, name, ...rest] = positional;
    const [newRole, ...extra] = command === 'role' ? rest : [undefined, ...rest];
    const { role: roleFlag, ...configFlags } = values;
    // The variables the unit and its drop-ins give the service (sudo passes none of them), as the
    // doctor and `check` take them: a setting the service's start refuses is refused here too.
    const own = configValues(configFlags);
    fromUnit = serviceVariables(root, { dataDir: own.dataDir !== undefined, config: own.config !== undefined }, env);
    const config = loadInstalledConfig(own, env, root, fromUnit, serviceCommandLine(root));
    const needsName = ['add', 'passwd', 'remove', 'token', 'role'];
    if (!command || (!needsName.includes(command) && command !== 'list'))
      throw new UsageError(`unknown command ${JSON.stringify(command ?? '')}\n${USAGE}`);
    if (needsName.includes(command) && name === undefined)
      throw new UsageError(`\`edgeblocks user ${command}\` needs a user name`);
    if (extra.length || (command === 'list' && name !== undefined))
      throw new UsageError(
        `unexpected argument ${JSON.stringify(extra[0] ?? name)} (a user name with spaces is not allowed)`,
      );
    if (revoke && command !== 'token') throw new UsageError('--revoke goes with `token`');
    if (roleFlag !== undefined && command !== 'add')
      throw new UsageError('--role goes with `add`; use `user role NAME ROLE`');
    const role = command === 'role' ? newRole : (roleFlag ?? DEFAULT_ROLE);
    if (command === 'role' || command === 'add') {
      if (role === undefined)
        throw new UsageError('`edgeblocks user role` needs a user name and a role (admin or viewer)');
      if (!isRole(role)) throw new UsageError(`unknown role ${JSON.stringify(role)}; roles: ${ROLES.join(', ')}`);
    }

    dataDir = config.dataDir;
    // Only `add` makes the data dir: made by `list` or `remove`, a mistyped --data-dir would read
    // as "no users" and leave an empty dir behind.
    if (command === 'add') mkdirSync(config.dataDir, { recursive: true });
    else if (!existsSync(config.dataDir))
      throw new UsageError(
        `the data dir ${path.resolve(config.dataDir)} does not exist, so it holds no users; check --data-dir (or dataDir in the config)`,
      );
    // Root on the service user's data dir: the rest runs as that user (file-modes.ts).
    becomeOwnerOf(config.dataDir);
    const users = new UsersFile(config.dataDir);
    users.say = (message) => io.stderr.write(`edgeblocks user: warning: ${message.replace(/^auth: /, '')}\n`);
    users.load();
    // Another command, or the service recording a logout, is writing it: said, as the wait is felt.
    users.lockWait = { ms: LOCK_WAIT_MS, onWait: (message) => io.stderr.write(`edgeblocks user: ${message}\n`) };
    switch (command) {
      case 'list': {
        const unreadable = users.unreadableRecord();
        if (unreadable)
          io.stderr.write(`edgeblocks user: warning: ${unreadable.message.replace(/; nothing was changed$/, '')}\n`);
        // Unread, the record may have revoked a token the users file still holds (one put back).
        const token = unreadable
          ? `  (API token: state unknown, ${unreadable.file} cannot be read: it may have been revoked)`
          : '  (has an API token)';
        io.stdout.write(
          users
            .names()
            .map((n) => `${n}${users.roleOf(n) === 'viewer' ? '  (viewer)' : ''}${users.get(n)!.token ? token : ''}\n`)
            .join('') || `no users in ${users.file}\n`,
        );
        return 0;
      }
      case 'add': {
        checkUserName(name!);
        if (users.get(name!))
          throw new UserNameError(
            `user ${JSON.stringify(name)} exists; use \`edgeblocks user passwd ${name}\` to change the password`,
          );
        await users.add(name!, await readPassword(io, name!), role as Role);
        io.stdout.write(`user ${name} added to ${users.file}${role === 'viewer' ? ' as a viewer (reads only)' : ''}\n`);
        return 0;
      }
      case 'role':
        users.setRole(name!, role as Role);
        io.stdout.write(`user ${name} is now ${role === 'admin' ? 'an admin' : 'a viewer'}\n`);
        return 0;
      case 'passwd':
        users.require(name!);
        if (await users.setPassword(name!, await readPassword(io, name!)))
          io.stdout.write(
            `password of ${name} changed; the user's sessions have ended and the API token no longer works\n`,
          );
        else io.stdout.write(`password of ${name} changed; the user's sessions have ended\n`);
        return 0;
      case 'remove':
        // A start with auth on and no user exits 2 (auth.ts): after the next power cut nothing would control.
        if (config.auth && users.size === 1 && users.get(name!))
          throw new UsageError(
            `${name} is the last user, and auth is on: the service would not start without one; add another user first (edgeblocks user add NAME), or turn auth off; nothing was changed`,
          );
        users.remove(name!);
        io.stdout.write(`user ${name} removed\n`);
        return 0;
      case 'token':
        if (revoke) {
          io.stdout.write(users.revokeToken(name!) ? `token of ${name} revoked\n` : `${name} had no token\n`);
          return 0;
        }
        io.stdout.write(`${users.createToken(name!)}\n`);
        io.stderr.write(
          `API token for ${name} (shown once; the previous one no longer works). Send it as: Authorization: Bearer <token>\n`,
        );
        return 0;
    }
    return 2;
  } catch (e) {
    if (e instanceof UsersFileError || e instanceof UsersFileBusy) {
      io.stderr.write(`edgeblocks user: ${e.message}\n`);
      return 1;
    }
    if (
      e instanceof UsageError ||
      e instanceof UserNameError ||
      e instanceof ConfigError ||
      e instanceof ArgumentError
    ) {
      io.stderr.write(`edgeblocks user: ${e.message}${unitOrigin(e, fromUnit)}\n`);
      return 2;
    }
    const unusable = unusableFileError(e, dataDir);
    if (unusable) {
      io.stderr.write(`edgeblocks user: ${otherOwnerLine(e, dataDir, argv) ?? unusable.message}\n`);
      return 2;
    }
    // Anything else (a data dir path through a file, an I/O error of the card): its one line, as a start says it.
    io.stderr.write(`edgeblocks user: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
