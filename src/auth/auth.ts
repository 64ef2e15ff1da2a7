// Opt-in authentication (DESIGN §9.5): who a request, an /eventbus upgrade or an MQTT CONNECT
// belongs to. A session cookie (signed, `Authorization` as Brewblox names it) or an API token
// (`Authorization: Bearer ebt_...`) identifies a user; MQTT clients give a user name and password
// or a token as the password. Nothing here logs a password, hash, token or cookie.
import { fastifyCookie } from '@fastify/cookie';
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { ConfigError } from '../config.js';
import type { Logger } from '../log.js';
import { sameString } from './password.js';
import { loadSecret, readSession, SecretFileError, signSession } from './session.js';
import { TOKEN_PREFIX, UsersFile, UsersFileError } from './users.js';

export const COOKIE_NAME = 'Authorization';
export const VALID_DURATION_MS = 7 * 24 * 3600 * 1000;
/** Every failed login is answered this long after it arrived, whatever failed. */
export const FAIL_DELAY_MS = 500;
const INTERNAL_USER = 'edgeblocks-internal';

export interface AuthOptions {
  enabled: boolean;
  dataDir: string;
  log: Logger;
  validDurationMs?: number;
}

export class Auth {
  readonly enabled: boolean;
  readonly validDurationMs: number;
  /** Credentials of the service's own MQTT client on the embedded broker (random per process). */
  readonly internal = { username: INTERNAL_USER, password: randomBytes(24).toString('hex') };
  private constructor(
    readonly users: UsersFile,
    private readonly secret: Buffer | null,
    private readonly log: Logger,
    opts: AuthOptions,
  ) {
    this.enabled = opts.enabled;
    this.validDurationMs = opts.validDurationMs ?? VALID_DURATION_MS;
  }

  /** Open the users file and session key. With auth on, a bad file or no user is a ConfigError. */
  static open(opts: AuthOptions): Auth {
    const users = new UsersFile(opts.dataDir);
    if (!opts.enabled) return new Auth(users, null, opts.log, opts);
    try {
      users.load();
    } catch (e) {
      if (e instanceof UsersFileError) throw new ConfigError('auth', e.message);
      throw e;
    }
    if (users.size === 0) throw new ConfigError('auth', `auth is on but there is no user in ${users.file}; add one with \`edgeblocks user add NAME\` (with the same --data-dir)`);
    let secret: Buffer;
    try {
      secret = loadSecret(opts.dataDir);
    } catch (e) {
      if (e instanceof SecretFileError) throw new ConfigError('auth', e.message);
      throw e;
    }
    return new Auth(users, secret, opts.log, opts);
  }

  /** Pick up CLI changes to the users file; a file gone bad is logged (with its path) once. */
  private refreshUsers(): void {
    const err = this.users.refresh();
    if (err) this.log.error(`${err.message}; nobody can log in until it is fixed`);
  }

  /** A signed session for `user`, and when it expires. */
  issue(user: string): { value: string; expires: Date } {
    const rec = this.users.get(user);
    const exp = Date.now() + this.validDurationMs;
    return { value: signSession(this.secret!, { u: user, s: rec?.stamp ?? '', exp }), expires: new Date(exp) };
  }

  /** The user of a session cookie value, if it is well signed, unexpired and the user's password unchanged. */
  sessionUser(value: string | undefined): string | null {
    if (!value || !this.secret) return null;
    const claims = readSession(this.secret, value);
    if (!claims) return null;
    this.refreshUsers();
    const rec = this.users.get(claims.u);
    return rec && sameString(rec.stamp, claims.s) ? claims.u : null;
  }

  tokenUser(token: string): string | null {
    if (!token.startsWith(TOKEN_PREFIX)) return null;
    this.refreshUsers();
    return this.users.checkToken(token);
  }

  /** The user behind a request's cookie or bearer token, or null. */
  identify(headers: IncomingHttpHeaders): string | null {
    const authz = headers.authorization;
    if (typeof authz === 'string' && /^bearer /i.test(authz)) return this.tokenUser(authz.slice(7).trim());
    const cookie = headers.cookie;
    if (typeof cookie !== 'string') return null;
    return this.sessionUser(fastifyCookie.parse(cookie)[COOKIE_NAME]);
  }

  async checkPassword(username: unknown, password: unknown): Promise<string | null> {
    this.refreshUsers();
    return this.users.checkPassword(typeof username === 'string' ? username : '', typeof password === 'string' ? password : '');
  }

  /** An /eventbus websocket upgrade may proceed (auth off, or a valid cookie or token). */
  allowUpgrade(req: IncomingMessage): boolean {
    return !this.enabled || this.identify(req.headers) !== null;
  }

  /**
   * The embedded broker's CONNECT check: the service's own client, a websocket that came in
   * through an authorised upgrade, a user name and password, or any user name with a token.
   */
  async allowMqtt(username: string | undefined, password: Buffer | undefined, req?: IncomingMessage): Promise<boolean> {
    if (!this.enabled) return true;
    if (req && this.identify(req.headers)) return true;
    const pass = password?.toString('utf8') ?? '';
    if (username === INTERNAL_USER) return sameString(pass, this.internal.password);
    if (pass.startsWith(TOKEN_PREFIX)) return this.tokenUser(pass) !== null;
    if (!username || !pass) return false;
    return (await this.checkPassword(username, pass)) !== null;
  }
}
