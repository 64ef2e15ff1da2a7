// The users file's format (`users.json`): its records, reading one (parseUsers: every field
// checked, a field it does not know is damage), and the errors that name what is wrong with it.
import { isPasswordHash } from './password.js';
import { DEFAULT_ROLE, isRole, ROLES, type Role } from '../shared/roles.js';

/** The users file's format; a later release that changes it writes a higher one. */
export const USERS_FILE_VERSION = 1;

const NAME_RE = /^[A-Za-z0-9_.@-]+$/;
export const MAX_NAME_LENGTH = 64;

export interface UserRecord {
  hash: string;
  /** Random; changes with the password, and every session carries it. */
  stamp: string;
  /** Increased by a logout: sessions carry it, so a logout ends every session of the user. */
  sessionGen?: number;
  /** sha256 (hex) of the user's API token, if one was made; a password change removes it. */
  token?: string;
  /** What the user may do (roles.ts); absent in files from before roles: an admin. */
  role?: Role;
  created: string;
}

export class UsersFileError extends Error {
  constructor(
    readonly file: string,
    reason: string,
    fix = 'fix or remove it: nothing was changed',
  ) {
    super(`${file} is not a valid users file (${reason}); ${fix}`);
    this.name = 'UsersFileError';
  }
}

/** A users file the service may not read (its data dir given to another user while it runs). */
export class UsersFileUnreadable extends UsersFileError {
  constructor(file: string, code: string) {
    super(file, code);
    this.message = `${file} cannot be read (${code}): the data dir must belong to the service's user`;
  }
}

/**
 * revocations.json (or the release before's logouts.json) there but not readable (revocations.ts):
 * a change is refused, as the record written anew would lose every revocation before it, and the
 * users file written without it would let a copy put back bring back what the change ended; the
 * service, which cannot tell a revoked token from a good one, lets nobody in.
 */
export class RevocationsUnreadable extends UsersFileError {
  constructor(
    file: string,
    readonly reason: string,
  ) {
    super(file, reason);
    this.message = `${file} cannot be read (${reason}): it keeps the sessions and API tokens that logouts, password changes and revocations ended; until it can be read again, no change to the users is made and no session or token is let in; nothing was changed`;
  }
}

/**
 * revocations.json there and read, but not written (a full card, EACCES): the change that would end
 * something is refused whole, users.json not written (revocations.ts).
 */
export class RevocationsUnwritable extends UsersFileError {
  constructor(
    file: string,
    readonly reason: string,
  ) {
    super(file, reason);
    this.message = `cannot write ${file} (${reason}): it must keep what this change ends (sessions, API tokens) before users.json changes, or a users.json put back from before would bring it back; free space on the card or let the service's user write it, then try again; nothing was changed`;
  }
}

/** A user name the CLI refuses, with the reason in the message. */
export class UserNameError extends Error {}

export function checkUserName(name: string): void {
  if (name.length === 0) throw new UserNameError('the user name is empty');
  if (name.length > MAX_NAME_LENGTH)
    throw new UserNameError(`the user name is ${name.length} characters long; at most ${MAX_NAME_LENGTH} are allowed`);
  if (!NAME_RE.test(name))
    throw new UserNameError(
      `the user name ${JSON.stringify(name)} may hold only letters, digits and _ . @ - (no spaces)`,
    );
}

const RECORD_FIELDS = new Set<string>(['hash', 'stamp', 'sessionGen', 'token', 'role', 'created'] satisfies Array<
  keyof UserRecord
>);

export function parseUsers(file: string, text: string): Map<string, UserRecord> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new UsersFileError(file, `not JSON: ${(e as Error).message.split('\n')[0]!.slice(0, 80)}`);
  }
  const version = typeof json === 'object' && json !== null ? (json as { version?: unknown }).version : undefined;
  // A release that went forward and back: the later one reads the file, and removing it would lose its users.
  if (typeof version === 'number' && Number.isInteger(version) && version > USERS_FILE_VERSION)
    throw new UsersFileError(
      file,
      `written by a later release (users file version ${version}; this release reads version ${USERS_FILE_VERSION})`,
      'go forward to that release again, or move it away and add the users again with `edgeblocks user add NAME`: nothing was changed',
    );
  if (version !== USERS_FILE_VERSION)
    throw new UsersFileError(file, `expected an object with "version": ${USERS_FILE_VERSION}`);
  const users = (json as { users?: unknown }).users;
  if (typeof users !== 'object' || users === null || Array.isArray(users))
    throw new UsersFileError(file, 'expected a "users" object');
  const out = new Map<string, UserRecord>();
  for (const [name, rec] of Object.entries(users)) {
    const r = rec as Partial<UserRecord>;
    const bad = (what: string) => new UsersFileError(file, `user ${JSON.stringify(name)}: ${what}`);
    try {
      checkUserName(name);
    } catch (e) {
      throw bad((e as Error).message);
    }
    if (typeof r !== 'object' || r === null) throw bad('not an object');
    // A field read as absent would give more than the file says: "rolE" (a flipped bit) is no
    // role, i.e. an admin; a lost "sessionGen" brings back the sessions a logout ended.
    const unknown = Object.keys(r).find((k) => !RECORD_FIELDS.has(k));
    if (unknown !== undefined) throw bad(`unknown field ${JSON.stringify(unknown)}`);
    if (!isPasswordHash(r.hash)) throw bad('the password hash is not an scrypt hash');
    if (typeof r.stamp !== 'string' || r.stamp.length < 8) throw bad('no stamp');
    if (r.token !== undefined && (typeof r.token !== 'string' || !/^[0-9a-f]{64}$/.test(r.token)))
      throw bad('the token digest is not a sha256');
    if (r.sessionGen !== undefined && !(Number.isSafeInteger(r.sessionGen) && r.sessionGen >= 0))
      throw bad('sessionGen is not a whole number >= 0');
    if (r.role !== undefined && !isRole(r.role)) throw bad(`role must be one of ${ROLES.join(', ')}`);
    out.set(name, {
      hash: r.hash,
      stamp: r.stamp,
      ...(r.sessionGen ? { sessionGen: r.sessionGen } : {}),
      ...(r.token ? { token: r.token } : {}),
      ...(r.role && r.role !== DEFAULT_ROLE ? { role: r.role } : {}),
      created: typeof r.created === 'string' ? r.created : '',
    });
  }
  return out;
}
