// The users file in the data dir (`users.json`, mode 0600): scrypt password hashes, a stamp that
// changes with the password (so old sessions and connections end), a session generation that a
// logout increases, and API token digests. Written atomically, through no link (writePrivateFile,
// the CLI runs as root); every change takes the file's lock and re-reads the file first (the CLI
// and the service both write it, users-lock.ts); a file that cannot be read as a users file is
// reported with its path and never rewritten.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { hashPassword, isPasswordHash, sameString, verifyPassword } from './password.js';
import { writePrivateFile } from '../store/file-modes.js';
import { LOCK_WAIT_MS, lockAsync, lockSync, type LockWait } from './users-lock.js';
import { DEFAULT_ROLE, isRole, ROLES, type Role } from '../shared/roles.js';

export const USERS_FILE = 'users.json';
/** The users file's format; a later release that changes it writes a higher one. */
const USERS_FILE_VERSION = 1;
export const TOKEN_PREFIX = 'ebt_';
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

const newStamp = () => randomBytes(12).toString('hex');

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function parseUsers(file: string, text: string): Map<string, UserRecord> {
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

export class UsersFile {
  readonly file: string;
  private users = new Map<string, UserRecord>();
  private seen = '';
  private error: UsersFileError | null = null;
  private loads = 0;
  /** How a change waits for another writer's (users-lock.ts); the CLI says so on stderr, the service logs it. */
  lockWait: LockWait = { ms: LOCK_WAIT_MS };

  constructor(dataDir: string) {
    this.file = path.join(dataDir, USERS_FILE);
  }

  /**
   * Read the file (absent = no users). Throws UsersFileError when it is not a users file, and the
   * error of a file that may not be read (a data dir of another user: not "no users").
   */
  load(): this {
    this.seen = this.signature();
    this.error = null;
    let text: string | null = null;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    this.users = text === null ? new Map() : parseUsers(this.file, text);
    this.loads++;
    return this;
  }

  /** Changes whenever the users in memory may have changed (a read or a write). */
  get version(): number {
    return this.loads;
  }

  /**
   * Re-read the file if it changed on disk (the CLI edits it while the service runs). A file that
   * turned bad, or that may no longer be read (its data dir chowned to another user while the
   * service runs), leaves no user able to log in until it is fixed; the error is returned once.
   * Nothing is thrown: this runs on a timer, and control goes on.
   */
  refresh(): UsersFileError | null {
    if (this.signature() === this.seen) return null;
    const sig = this.signature();
    try {
      return this.loadOrLock();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      return this.lock(sig, new UsersFileUnreadable(this.file, code));
    }
  }

  /**
   * Read the file; one that is not a users file (damaged on the card, a bad hand edit) leaves no
   * user able to log in until it is fixed, and is returned. Other errors (a file the service may
   * not read) are thrown: a start says them with the fix.
   */
  loadOrLock(): UsersFileError | null {
    const sig = this.signature();
    try {
      this.load();
      return null;
    } catch (e) {
      if (!(e instanceof UsersFileError)) throw e;
      return this.lock(sig, e);
    }
  }

  private lock(sig: string, e: UsersFileError): UsersFileError {
    this.seen = sig;
    this.users = new Map();
    this.loads++;
    this.error = e;
    return e;
  }

  get broken(): UsersFileError | null {
    return this.error;
  }

  names(): string[] {
    return [...this.users.keys()].sort();
  }

  get(name: string): UserRecord | undefined {
    return this.users.get(name);
  }

  get size(): number {
    return this.users.size;
  }

  /** The user's role (an unknown user has none). */
  roleOf(name: string): Role | null {
    const rec = this.users.get(name);
    return rec ? (rec.role ?? DEFAULT_ROLE) : null;
  }

  /** Give `name` another role; its sessions and connections stay, and are held to the new role from the next request or message on. */
  setRole(name: string, role: Role): void {
    this.update(() => {
      const { role: _old, ...rest } = this.require(name);
      this.users.set(name, role === DEFAULT_ROLE ? rest : { ...rest, role });
    });
  }

  async add(name: string, password: string, role: Role = DEFAULT_ROLE): Promise<void> {
    checkUserName(name);
    const exists = () =>
      new UserNameError(
        `user ${JSON.stringify(name)} exists; use \`edgeblocks user passwd ${name}\` to change the password`,
      );
    if (this.users.has(name)) throw exists();
    const hash = await hashPassword(password);
    this.update(() => {
      if (this.users.has(name)) throw exists();
      this.users.set(name, {
        hash,
        stamp: newStamp(),
        ...(role === DEFAULT_ROLE ? {} : { role }),
        created: new Date().toISOString(),
      });
    });
  }

  /** A new password ends the user's sessions and connections and revokes the API token. */
  /** Returns whether an API token was revoked with it. */
  async setPassword(name: string, password: string): Promise<boolean> {
    this.require(name);
    const hash = await hashPassword(password);
    let hadToken = false;
    this.update(() => {
      const { token, ...rest } = this.require(name);
      hadToken = token !== undefined;
      this.users.set(name, { ...rest, hash, stamp: newStamp() });
    });
    return hadToken;
  }

  remove(name: string): void {
    this.update(() => {
      this.require(name);
      this.users.delete(name);
    });
  }

  /**
   * End every session of `name` (a logout): its generation becomes one above both the file's and
   * `floor` (the highest the service gave out, which an older file put back may be below); `record`
   * keeps it before the file is written. The new generation, or null when there is no such user.
   * Waits for another writer without blocking (the service runs this).
   */
  async endSessions(name: string, floor = 0, record?: (gen: number) => void): Promise<number | null> {
    const release = await lockAsync(this.file, this.lockWait);
    try {
      this.load();
      const rec = this.users.get(name);
      if (!rec) return null;
      const gen = Math.max(rec.sessionGen ?? 0, floor) + 1;
      record?.(gen);
      this.users.set(name, { ...rec, sessionGen: gen });
      this.save();
      return gen;
    } finally {
      release();
    }
  }

  /** Make a new API token for `name` (replacing the previous one); returns it (shown once). */
  createToken(name: string): string {
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    this.update(() => this.users.set(name, { ...this.require(name), token: tokenDigest(token) }));
    return token;
  }

  revokeToken(name: string): boolean {
    let had = false;
    this.update(() => {
      const { token, ...rest } = this.require(name);
      had = token !== undefined;
      if (had) this.users.set(name, rest);
    });
    return had;
  }

  /** The user whose password this is, or null; takes as long for an unknown name. */
  async checkPassword(name: string, password: string): Promise<string | null> {
    const rec = typeof name === 'string' ? this.users.get(name) : undefined;
    const ok = await verifyPassword(String(password), rec?.hash ?? null);
    return ok && rec ? name : null;
  }

  /** The user owning this API token, or null. Every digest is compared, in constant time. */
  checkToken(token: string): string | null {
    const digest = tokenDigest(token);
    let found: string | null = null;
    for (const [name, rec] of this.users) if (rec.token && sameString(rec.token, digest)) found = name;
    return found;
  }

  /** The user's record; a bad or unknown name throws UserNameError. */
  require(name: string): UserRecord {
    checkUserName(name);
    const rec = this.users.get(name);
    if (!rec) throw new UserNameError(`no user ${JSON.stringify(name)}; users: ${this.names().join(', ') || '(none)'}`);
    return rec;
  }

  /**
   * Under the lock, re-read the file, apply `change`, write it: another process (the CLI, the
   * service) may have written since this one read it, and its change (a logout, a new password)
   * must not be undone.
   */
  private update(change: () => void): void {
    const release = lockSync(this.file, this.lockWait);
    try {
      this.load();
      change();
      this.save();
    } finally {
      release();
    }
  }

  private save(): void {
    const body =
      JSON.stringify(
        {
          version: USERS_FILE_VERSION,
          users: Object.fromEntries([...this.users].sort(([a], [b]) => a.localeCompare(b))),
        },
        null,
        2,
      ) + '\n';
    writePrivateFile(this.file, body);
    this.seen = this.signature();
    this.loads++;
  }

  private signature(): string {
    try {
      const s = statSync(this.file);
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      return 'absent';
    }
  }
}
