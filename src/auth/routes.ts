// Brewblox's login contract at /auth: status, login, refresh, logout. The session travels in an
// HttpOnly, SameSite=Strict cookie (Secure when the request came over TLS, i.e. the gateway).
// Failed logins are limited per address, and answered a constant time after they came, by the
// rule the embedded broker's CONNECTs share (attempts.ts). A logout ends every session of the user.
import { fastifyCookie } from '@fastify/cookie';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../api/errors.js';
import { NoBody } from '../api/route-validation.js';
import { parseJson, utf8Problem } from '../shared/json.js';
import { BODY_LIMIT } from '../shared/limits.js';
import { LOGIN_LIMIT } from './attempts.js';
import { COOKIE_NAME, LogoutNotRecorded, type Auth } from './auth.js';
import { REVOCATIONS_FILE } from './revocations.js';
import { RevocationsUnreadable } from './users-format.js';
import { UsersFileBusy } from './users-lock.js';

/** ISO 8601 duration, as Brewblox's auth service serialises `valid_duration` (e.g. P7D). */
export function isoDuration(ms: number): string {
  let s = Math.round(ms / 1000);
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const date = d ? `${d}D` : '';
  const time = `${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s ? `${s}S` : ''}`;
  if (!date && !time) return 'PT0S';
  return `P${date}${time ? `T${time}` : ''}`;
}

const Login = Type.Object(
  { username: Type.String(), password: Type.String({ writeOnly: true }) },
  { additionalProperties: false },
);

const isTls = (req: FastifyRequest) => (req.raw.socket as { encrypted?: boolean }).encrypted === true;

export function authRoutes(auth: Auth): FastifyPluginAsync {
  return async (app) => {
    // The login body holds a password: a body that is not JSON is refused without quoting it.
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
      // A password in another encoding would only ever be "wrong": say why instead.
      const notUtf8 = utf8Problem('the body', body as Buffer);
      if (notUtf8) return done(Object.assign(new Error(notUtf8), { statusCode: 400 }), undefined);
      const text = (body as Buffer).toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      const parsed = parseJson(text, { maxBytes: BODY_LIMIT, what: 'the body' });
      if (parsed.ok) return done(null, parsed.value);
      const message = parsed.problem === 'not JSON' ? 'the body is not valid JSON' : parsed.reason;
      done(Object.assign(new Error(message), { statusCode: parsed.problem === 'too large' ? 413 : 400 }), undefined);
    });

    const setSession = (req: FastifyRequest, reply: FastifyReply, user: string) => {
      const { value, expires } = auth.issue(user);
      reply.header(
        'set-cookie',
        fastifyCookie.serialize(COOKIE_NAME, value, {
          httpOnly: true,
          sameSite: 'strict',
          secure: isTls(req),
          path: '/',
          expires,
          // Max-Age wins over Expires in a browser: it counts on the browser's clock, so a
          // controller clock that is off (a Pi before NTP) does not end the session early.
          maxAge: Math.round(auth.validDurationMs / 1000),
        }),
      );
      return { username: user, role: auth.roleOf(user), expires: expires.toISOString(), enabled: true };
    };
    const off = { username: null, expires: null, enabled: false };
    const tags = ['auth'];

    app.get(
      '/auth/status',
      { schema: { tags, summary: 'Whether auth is on, and how long a session lasts' } },
      async () => ({
        enabled: auth.enabled,
        valid_duration: isoDuration(auth.validDurationMs),
      }),
    );

    app.post<{ Body: Static<typeof Login> }>(
      '/auth/login',
      {
        schema: {
          tags,
          summary: `Log in with {username, password}; sets the session cookie. ${LOGIN_LIMIT.max} login attempts a minute per address, wrong ones and those still being checked (MQTT CONNECTs count too), 429 beyond`,
          body: Login,
        },
      },
      async (req, reply) => {
        if (!auth.enabled) return off;
        // Not "wrong password": the user would try again and again. The file's path and what is
        // wrong with it are in the log, for whoever is at the controller.
        const unavailable = auth.loginsUnavailable();
        if (unavailable)
          return reply
            .status(503)
            .send(
              errorBody(
                503,
                unavailable instanceof RevocationsUnreadable
                  ? `logins are unavailable: ${REVOCATIONS_FILE} in the controller's data dir cannot be read (${unavailable.reason}); the service log says which file and why, and logins work again once it can be read`
                  : 'logins are unavailable: the users file on the controller is damaged; fix or remove it there (the service log says what is wrong), then add users with edgeblocks user add',
              ),
            );
        const result = await auth.login(req.ip, 'http', req.body.username, req.body.password);
        if (result.ok) return setSession(req, reply, result.value.user);
        if (!result.limited) return reply.status(401).send(errorBody(401, 'wrong user name or password'));
        const seconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
        reply.header('retry-after', String(seconds));
        return reply
          .status(429)
          .send(
            errorBody(
              429,
              `too many login attempts from this address (${LOGIN_LIMIT.max} a minute, wrong ones and those still being checked); try again in ${seconds} s`,
            ),
          );
      },
    );

    app.get(
      '/auth/refresh',
      {
        schema: {
          tags,
          summary: 'Renew the session: 200 with a new cookie, or 401 (an API token: 200, no cookie)',
        },
      },
      async (req, reply) => {
        if (!auth.enabled) return off;
        const grant = auth.grantOf(req.headers);
        if (!grant) return reply.status(401).send(errorBody(401, 'no valid session; log in again'));
        // A token is valid until revoked and needs no session; one made from it would outlive the
        // revocation (renewed a week at a time), so a token is answered without one.
        if (grant.kind === 'token')
          return { username: grant.user, role: auth.roleOf(grant.user), expires: null, enabled: true };
        return setSession(req, reply, grant.user);
      },
    );

    const logout = async (req: FastifyRequest, reply: FastifyReply) => {
      if (auth.enabled)
        try {
          await auth.logout(req.headers);
        } catch (e) {
          // The session still holds (a full card): said, the cookie kept, to log out again once it is fixed.
          if (e instanceof LogoutNotRecorded)
            return reply
              .status(503)
              .send(
                errorBody(
                  503,
                  `the logout was not recorded: the controller could not write its users file (${e.reason}); your sessions still hold: log out again once it is fixed (the service log says more)`,
                ),
              );
          if (!(e instanceof UsersFileBusy)) throw e;
          // The cookie stays, so that the user can log out again; the log has the file and the holder.
          return reply
            .status(503)
            .send(
              errorBody(
                503,
                'the logout was not recorded: the users file on the controller was being changed by another process (edgeblocks user) the whole time; log out again (the service log says more)',
              ),
            );
        }
      reply.header(
        'set-cookie',
        fastifyCookie.serialize(COOKIE_NAME, '', {
          httpOnly: true,
          sameSite: 'strict',
          secure: isTls(req),
          path: '/',
          expires: new Date(0),
        }),
      );
      return { enabled: auth.enabled };
    };
    app.get(
      '/auth/logout',
      { schema: { tags, summary: 'End the session: clears the cookie and ends every session of its user' } },
      logout,
    );
    app.post(
      '/auth/logout',
      {
        schema: {
          tags,
          summary: 'End the session: clears the cookie and ends every session of its user',
          body: NoBody,
        },
      },
      logout,
    );
  };
}
