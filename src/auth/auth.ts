// Opt-in authentication (DESIGN §9.5): who a request, an /eventbus upgrade or an MQTT CONNECT
// belongs to. A session cookie (signed, `Authorization` as Brewblox names it) or an API token
// (`Authorization: Bearer ebt_...`) identifies a user; MQTT clients give a user name and password
// or a token as the password. What let a connection in is held while it lives (grants.ts): a
// logout, a new password or a removed user closes it. Nothing here logs a password, hash, token
// or cookie.
import { fastifyCookie } from '@fastify/cookie';
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ConfigError } from '../shared/errors.js';
import type { Logger } from '../log.js';
import type { Closable, MqttIdentity, MqttPeer } from '../mqtt/bus-auth.js';
import type { Role } from '../shared/roles.js';
import { LoginAttempts, type AttemptResult, type Via } from './attempts.js';
import { grantHolds, HeldConnections, type Grant } from './grants.js';
import { sameString } from './password.js';
import {
  loadSecret,
  processClock,
  readSecret,
  readSession,
  SecretFileError,
  sessionEnded,
  signSession,
  type SessionClock,
} from './session.js';
import { TOKEN_PREFIX, tokenDigest, UsersFile } from './users.js';
import { RevocationsUnreadable, UsersFileError } from './users-format.js';
import { readRevocations } from './revocations.js';
import { LOCK_WAIT_MS, sweepLeftovers, UsersFileBusy } from './users-lock.js';

export const COOKIE_NAME = 'Authorization';
export const VALID_DURATION_MS = 7 * 24 * 3600 * 1000;
/** How often the users file is looked at for changes by the CLI (a stat), to close what they ended. */
export const USERS_WATCH_MS = 1000;
const INTERNAL_USER = 'edgeblocks-internal';

export interface AuthOptions {
  enabled: boolean;
  dataDir: string;
  log: Logger;
  validDurationMs?: number;
  /** For tests: the clocks sessions are timed on. */
  sessionClock?: SessionClock;
}

/** A logout whose sessions still hold: nothing could be written (a full card); the reason (an errno code). */
export class LogoutNotRecorded extends Error {
  constructor(readonly reason: string) {
    super(`the logout was not recorded (${reason})`);
  }
}

export class Auth {
  readonly enabled: boolean;
  readonly validDurationMs: number;
  /** Credentials of the service's own MQTT client on the embedded broker (random per process). */
  readonly internal = { username: INTERNAL_USER, password: randomBytes(24).toString('hex') };
  readonly attempts: LoginAttempts;
  private readonly held = new HeldConnections();
  private sweptVersion: number;
  private watch: NodeJS.Timeout | null = null;
  private readonly clock: SessionClock;
  private constructor(
    readonly users: UsersFile,
    private readonly secret: Buffer | null,
    private readonly log: Logger,
    opts: AuthOptions,
  ) {
    this.enabled = opts.enabled;
    this.validDurationMs = opts.validDurationMs ?? VALID_DURATION_MS;
    this.clock = opts.sessionClock ?? processClock;
    this.attempts = new LoginAttempts(log);
    this.sweptVersion = users.version;
    users.lockWait = {
      ms: LOCK_WAIT_MS,
      onWait: (message) => log.warn(`auth: ${message}, to record a logout`),
    };
    users.say = (message) => log.error(message);
    if (this.enabled) {
      this.watch = setInterval(() => {
        this.refreshUsers();
        this.attempts.prune();
      }, USERS_WATCH_MS);
      this.watch.unref();
    }
  }

  /**
   * Open the users file and session key. With auth on, no user is a ConfigError; a users file
   * that is not one (damaged on the card) leaves nobody able to log in, and the service starts
   * and controls all the same, with an alert: refusing to start would leave the fermenter
   * uncontrolled until someone came.
   */
  static open(opts: AuthOptions): Auth {
    const users = new UsersFile(opts.dataDir);
    // What users-file writers killed at the wrong moment left (users-lock.ts), with auth off too.
    const swept = sweepLeftovers(opts.dataDir);
    if (swept.length)
      opts.log.info(
        `auth: removed ${swept.length} temporary file(s) of killed users-file writers: ${swept.join(', ')}`,
      );
    if (!opts.enabled) return new Auth(users, null, opts.log, opts);
    users.say = (message) => opts.log.error(message);
    const broken = Auth.readUsers(users);
    if (broken) opts.log.error(`${broken.message}; nobody can log in until it is fixed; control goes on`);
    let secret: Buffer;
    try {
      secret = loadSecret(opts.dataDir);
    } catch (e) {
      if (e instanceof SecretFileError) throw new ConfigError('auth', e.message);
      throw e;
    }
    return new Auth(users, secret, opts.log, opts);
  }

  /**
   * `edgeblocks check`: what open() would say of the data dir, read without writing anything (no
   * session key is made; the installer runs it as root). What open() refuses is a ConfigError; a
   * users file that is not one is a warning, answered, as open() starts with it (control goes on),
   * and an upgrade or a rollback may be what mends it.
   */
  static check(opts: { enabled: boolean; dataDir: string }): string[] {
    if (!opts.enabled) return [];
    const users = new UsersFile(opts.dataDir);
    let broken: UsersFileError | null;
    try {
      broken = Auth.readUsers(users);
    } catch (e) {
      if (e instanceof ConfigError) throw e;
      throw new ConfigError(
        'auth',
        `cannot read ${users.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
    try {
      readSecret(opts.dataDir);
    } catch (e) {
      throw new ConfigError('auth', e instanceof SecretFileError ? e.message : (e as Error).message);
    }
    const warnings = broken
      ? [`auth: ${broken.message}; the service starts and controls, but nobody can log in until it is fixed`]
      : [];
    return [...warnings, ...readRevocations(opts.dataDir).problems];
  }

  /** Reads the users with auth on: no user is a ConfigError; a users file that is not one is returned. */
  private static readUsers(users: UsersFile): UsersFileError | null {
    const broken = users.loadOrLock();
    if (!broken && users.size === 0)
      throw new ConfigError(
        'auth',
        `auth is on but there is no user in ${users.file}; add one with \`edgeblocks user add NAME\` (with the same --data-dir)`,
      );
    return broken;
  }

  /** Stop watching the users file. */
  close(): void {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
  }

  status(): Record<string, unknown> {
    return {
      users: this.users.size,
      connections: this.held.size,
      logins: this.attempts.status(),
      usersFileError: this.users.broken?.message ?? null,
    };
  }

  /**
   * Pick up CLI changes to the users file (a file gone bad is logged, with its path, once) and
   * close the connections whose grant they ended.
   */
  private refreshUsers(): void {
    const was = this.users.broken;
    const err = this.users.refresh();
    if (err) this.log.error(`${err.message}; nobody can log in until it is fixed`);
    else if (was instanceof RevocationsUnreadable && !this.users.broken)
      this.log.warn(`auth: ${was.file} can be read again; logins, sessions and API tokens are let in again`);
    this.sweep();
  }

  private sweep(): void {
    // A session that has run out ends its connections as a logout would.
    const ran = this.held.sweep((g) => g.kind !== 'session' || !sessionEnded(g.ends, this.clock));
    for (const [user, count] of ran)
      this.log.info({ user, connections: count }, `auth: closed ${count} connection(s) of ${user} (session expired)`);
    if (this.users.version === this.sweptVersion) return;
    this.sweptVersion = this.users.version;
    for (const [user, count] of this.held.sweep((g) => this.holds(g))) {
      const why = this.users.get(user) ? 'logged out or password changed' : 'user removed';
      this.log.info({ user, connections: count }, `auth: closed ${count} connection(s) of ${user} (${why})`);
    }
  }

  /** Keep `grant` while `conn` is open; `close` ends the connection when the grant ends. */
  holdWhileOpen(grant: Grant, conn: Closable, close: () => void): void {
    if (!this.enabled || conn.destroyed) return;
    conn.once('close', this.held.hold(grant, close));
  }

  /** Whether `grant` still lets its holder in. */
  private holds(grant: Grant): boolean {
    return grantHolds(this.users, grant);
  }

  /** A signed session for `user`, and when it expires. */
  issue(user: string): { value: string; expires: Date } {
    const rec = this.users.get(user);
    const exp = this.clock.wall() + this.validDurationMs;
    const m = Math.round(this.clock.now() + this.validDurationMs);
    const claims = { u: user, s: rec?.stamp ?? '', g: rec?.sessionGen ?? 0, exp, b: this.clock.run, m };
    return { value: signSession(this.secret!, claims), expires: new Date(exp) };
  }

  private sessionGrant(value: string | undefined): Grant | null {
    if (!value || !this.secret) return null;
    const claims = readSession(this.secret, value, this.clock);
    if (!claims) return null;
    this.refreshUsers();
    const { exp, b, m } = claims;
    const grant: Grant = { kind: 'session', user: claims.u, stamp: claims.s, gen: claims.g, ends: { exp, b, m } };
    return this.holds(grant) ? grant : null;
  }

  private tokenGrant(token: string): Grant | null {
    if (!token.startsWith(TOKEN_PREFIX)) return null;
    this.refreshUsers();
    const user = this.users.checkToken(token);
    return user ? { kind: 'token', user, digest: tokenDigest(token) } : null;
  }

  /** What lets a request in: its bearer token or its session cookie; null when neither is valid. */
  grantOf(headers: IncomingHttpHeaders): Grant | null {
    const authz = headers.authorization;
    if (typeof authz === 'string' && /^bearer /i.test(authz)) return this.tokenGrant(authz.slice(7).trim());
    const cookie = headers.cookie;
    if (typeof cookie !== 'string') return null;
    return this.sessionGrant(fastifyCookie.parse(cookie)[COOKIE_NAME]);
  }

  /**
   * End every session of the user whose session cookie `headers` carry (a logout); the user, or
   * null. The generation it reaches is kept in revocations.json too, so an older users.json put
   * back brings none of them back (in users.json alone, logged, when the record cannot be written).
   * Waits while another process writes the users file (the CLI): UsersFileBusy when it is not free
   * within LOCK_WAIT_MS. Any other failure to write that leaves the session valid is
   * LogoutNotRecorded: the answer must not say logged out while the session still lets anyone in.
   */
  async logout(headers: IncomingHttpHeaders): Promise<string | null> {
    const grant = this.grantOf(headers);
    if (grant?.kind !== 'session') return null;
    try {
      await this.users.endSessions(grant.user);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (!(e instanceof UsersFileBusy || e instanceof UsersFileError || typeof code === 'string')) throw e;
      this.log.error(
        `${e instanceof UsersFileError ? '' : 'auth: '}${(e as Error).message}; the logout of ${grant.user} was not recorded`,
      );
      if (e instanceof UsersFileBusy) throw e;
      if (this.grantOf(headers)?.kind === 'session')
        throw new LogoutNotRecorded(code ?? (e as { reason?: string }).reason ?? 'see the service log');
    }
    this.sweep();
    return grant.user;
  }

  /** Why nobody can log in (the users file is not one, see open(); the revocations record unreadable), or null. */
  loginsUnavailable(): UsersFileError | null {
    this.refreshUsers();
    return this.users.broken;
  }

  /** A login by user name and password from `address`, under the per-address limit (attempts.ts). */
  login(address: string | undefined, via: Via, username: unknown, password: unknown): Promise<AttemptResult<Grant>> {
    return this.attempts.attempt(address, via, () => this.passwordGrant(username, password));
  }

  private async passwordGrant(username: unknown, password: unknown): Promise<Grant | null> {
    this.refreshUsers();
    const user = await this.users.checkPassword(
      typeof username === 'string' ? username : '',
      typeof password === 'string' ? password : '',
    );
    const rec = user === null ? undefined : this.users.get(user);
    return rec ? { kind: 'password', user: user!, stamp: rec.stamp } : null;
  }

  /**
   * The embedded broker's CONNECT check: the service's own client, a websocket that came in
   * through an authorised upgrade (held by the upgrade guard), or a user name with a password or
   * token, under the login limit. The admitted connection is closed when its grant ends.
   */
  async allowMqtt(
    username: string | undefined,
    password: Buffer | undefined,
    peer: MqttPeer,
  ): Promise<MqttIdentity | null> {
    if (!this.enabled) return { anonymous: true };
    const upgraded = peer.req && this.grantOf(peer.req.headers);
    if (upgraded) return { user: upgraded.user };
    const pass = password?.toString('utf8') ?? '';
    if (username === INTERNAL_USER && sameString(pass, this.internal.password)) return { internal: true };
    const result = await this.attempts.attempt(peer.address, 'mqtt', async () => {
      if (username === INTERNAL_USER) return null;
      if (pass.startsWith(TOKEN_PREFIX)) return this.tokenGrant(pass);
      return username && pass ? this.passwordGrant(username, pass) : null;
    });
    if (!result.ok) return null;
    this.holdWhileOpen(result.value, peer.conn, peer.close);
    return { user: result.value.user };
  }

  /** A user's role now; null for an unknown user (removed since it logged in). */
  roleOf(user: string): Role | null {
    return this.users.roleOf(user);
  }
}
