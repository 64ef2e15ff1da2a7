// The users file in the data dir (`users.json`, mode 0600): scrypt password hashes, a stamp that
// changes with the password (so old sessions and connections end), a session generation that a
// logout increases, and API token digests. Written atomically, through no link (writePrivateFile,
// the CLI runs as root); every change takes the file's lock and re-reads the file first (the CLI
// and the service both write it, users-lock.ts); a file that cannot be read as a users file is
// reported with its path and never rewritten. It is read as revocations.json lets it be, and what
// a change ends is kept there first (revocations.ts): an older file put back revives nothing ended.
// A record that is there but cannot be read refuses every change and, in the service, every login,
// session and token (RevocationsUnreadable), until it can be read again; one that cannot be written
// refuses the change that would add to it, users.json unwritten (RevocationsUnwritable), but for a
// logout, which ends the sessions in users.json alone (said): a logout must end them now.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { hashPassword, sameString, verifyPassword } from './password.js';
import { writePrivateFile } from '../store/file-modes.js';
import { LOCK_WAIT_MS, lockAsync, lockSync, type LockWait, WRITER } from './users-lock.js';
import { Revocations } from './revocations.js';
import { DEFAULT_ROLE, type Role } from '../shared/roles.js';
import {
  checkUserName,
  parseUsers,
  USERS_FILE_VERSION,
  UserNameError,
  type UserRecord,
  RevocationsUnreadable,
  RevocationsUnwritable,
  UsersFileError,
  UsersFileUnreadable,
} from './users-format.js';

export const USERS_FILE = 'users.json';
export const TOKEN_PREFIX = 'ebt_';

const newStamp = () => randomBytes(12).toString('hex');

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export class UsersFile {
  readonly file: string;
  private users = new Map<string, UserRecord>();
  private seen = '';
  private error: UsersFileError | null = null;
  private loads = 0;
  /** How a change waits for another writer's (users-lock.ts); the CLI says so on stderr, the service logs it. */
  lockWait: LockWait = { ms: LOCK_WAIT_MS };
  /** Where what is said of the revocations record goes, each thing once (the CLI: stderr; the service: its log). */
  say: (message: string) => void = () => {};
  private readonly said = new Set<string>();
  private readonly revocations: Revocations;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, USERS_FILE);
    this.revocations = new Revocations(dataDir);
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
    const users = text === null ? new Map<string, UserRecord>() : parseUsers(this.file, text);
    this.revocations.load();
    const notes = [...this.revocations.problems];
    this.users = new Map([...users].map(([name, rec]) => [name, this.revocations.lift(name, rec, notes)]));
    for (const note of notes) this.tell(note);
    this.loads++;
    return this;
  }

  private tell(message: string): void {
    if (this.said.has(message)) return;
    this.said.add(message);
    this.say(message);
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
    const retry = this.error instanceof RevocationsUnreadable;
    if (this.signature() === this.seen && !retry) return null;
    const sig = this.signature();
    try {
      const was = this.error?.message;
      const err = this.loadOrLock();
      return err && err.message === was ? null : err;
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
      const unreadable = this.unreadableRecord();
      // Not `seen`: a passing reason (EMFILE, EIO) may pass without the file changing; tried again each refresh.
      if (unreadable) return this.lock(sig, unreadable, false);
      return null;
    } catch (e) {
      if (!(e instanceof UsersFileError)) throw e;
      return this.lock(sig, e);
    }
  }

  private lock(sig: string, e: UsersFileError, seen = true): UsersFileError {
    this.seen = seen ? sig : '';
    this.users = new Map();
    this.loads++;
    this.error = e;
    return e;
  }

  get broken(): UsersFileError | null {
    return this.error;
  }

  /** The revocations record there but unreadable, as last read (revocations.ts), as an error; or null. */
  unreadableRecord(): RevocationsUnreadable | null {
    const u = this.revocations.unreadable;
    return u ? new RevocationsUnreadable(u.file, u.reason) : null;
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
   * the record's, kept in the record before the file is written (in the file alone, said, when the
   * record cannot be written). The new generation, or null when there is no such user. Waits for
   * another writer without blocking (the service runs this).
   */
  async endSessions(name: string): Promise<number | null> {
    const release = await lockAsync(this.file, this.lockWait);
    try {
      let gen: number | null = null;
      this.change(
        () => {
          const rec = this.users.get(name);
          if (!rec) return;
          gen = (rec.sessionGen ?? 0) + 1;
          this.users.set(name, { ...rec, sessionGen: gen });
        },
        // A logout is for ending the sessions: one the record cannot keep still ends them in users.json.
        (e) =>
          this.say(
            `auth: cannot write ${e.file} (${e.reason}): the logout of ${name} ended the sessions in users.json alone, so a users.json put back from before it would bring them back; free space on the card or let the service's user write it`,
          ),
      );
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
      this.change(change);
    } finally {
      release();
    }
  }

  /**
   * With the lock held: read, change, keep what the change ended in the revocations record, write.
   * A record that cannot be read refuses the change, nothing written (RevocationsUnreadable); so
   * does one that cannot be written (a full card, EACCES: RevocationsUnwritable), and the users
   * file is not written either: written alone, an older users.json put back would bring back what
   * the change ended; unless `unrecorded` is given (a logout, which must end the sessions now): it
   * is told, and users.json is written. A change not written is not kept in memory either: the
   * users and the record are read again as they are on disk.
   */
  private change(change: () => void, unrecorded?: (e: RevocationsUnwritable) => void): void {
    // loadOrLock, not load: a service whose logout finds the record unreadable must stay locked,
    // not keep the users just read with no revocations applied.
    const unreadable = this.loadOrLock();
    if (unreadable) throw unreadable;
    const before = new Map(this.users);
    change();
    if (this.revocations.end(before, this.users))
      try {
        this.revocations.save();
      } catch (e) {
        const unwritable = new RevocationsUnwritable(
          this.revocations.file,
          (e as NodeJS.ErrnoException).code ?? (e as Error).message,
        );
        this.revocations.load();
        if (!unrecorded) {
          this.users = before;
          throw unwritable;
        }
        unrecorded(unwritable);
      }
    try {
      this.save();
    } catch (e) {
      try {
        this.loadOrLock();
      } catch {
        this.users = before;
      }
      throw e;
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
    writePrivateFile(this.file, body, WRITER);
    this.seen = this.signature();
    this.loads++;
  }

  private signature(): string {
    let own = 'absent';
    try {
      const s = statSync(this.file);
      own = `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {}
    return `${own}/${this.revocations.signature()}`;
  }
}
