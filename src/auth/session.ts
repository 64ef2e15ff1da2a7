// Signed session values for the `Authorization` cookie (Brewblox's cookie name):
// `<payload base64url>.<HMAC-SHA256 base64url>`, the payload {u: user, s: stamp, g: session
// generation (a logout increases the user's; absent in sessions made before it existed: 0), exp: ms,
// b: the run that issued it, m: its expiry on that run's monotonic clock}. A session is timed on
// the monotonic clock by the run that issued it (a wall clock that jumps 3 days forward on a Pi
// does not end it, one set back does not stretch it); by `exp` on the wall clock after a restart,
// and not at all while that clock reads not set (1970, before network time on a Pi): every `exp`
// lies ahead of it, so a session that ended weeks ago would let its holder in again; it ends instead.
// The key lives in the data dir (auth-secret, mode 0600), so sessions survive restarts.
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isWallSet } from '../shared/wall-set.js';
import { sameString } from './password.js';

export const SECRET_FILE = 'auth-secret';

export interface SessionClaims {
  u: string;
  s: string;
  g: number;
  exp: number;
  /** The run (process start) that issued it. */
  b?: string;
  /** Expiry on that run's monotonic clock, ms. */
  m?: number;
}

export interface SessionClock {
  /** Wall clock, epoch ms. */
  wall(): number;
  /** Monotonic ms. */
  now(): number;
  /** This run: random per process start, as its monotonic clock is. */
  readonly run: string;
}

export const processClock: SessionClock = {
  wall: () => Date.now(),
  now: () => performance.now(),
  run: randomBytes(8).toString('hex'),
};

export class SecretFileError extends Error {}

/** Read the session key, creating it on first use. */
export function loadSecret(dataDir: string): Buffer {
  const file = path.join(dataDir, SECRET_FILE);
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return readSecret(dataDir)!;
}

/** The session key in `dataDir` without making one: null when there is none; SecretFileError for a file that is not one. */
export function readSecret(dataDir: string): Buffer | null {
  const file = path.join(dataDir, SECRET_FILE);
  if (!existsSync(file)) return null;
  const text = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(text))
    throw new SecretFileError(
      `${file} does not hold a session key (64 hex digits); remove it to make a new one (every session ends)`,
    );
  return Buffer.from(text, 'hex');
}

function mac(secret: Buffer, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export function signSession(secret: Buffer, claims: SessionClaims): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
}

/** The claims of a well-signed, unexpired session value, or null. */
export function readSession(secret: Buffer, value: string, clock: SessionClock = processClock): SessionClaims | null {
  const dot = value.indexOf('.');
  if (dot <= 0 || value.length > 2048) return null;
  const payload = value.slice(0, dot);
  if (!sameString(value.slice(dot + 1), mac(secret, payload))) return null;
  let claims: Partial<SessionClaims>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof claims.u !== 'string' || typeof claims.s !== 'string' || typeof claims.exp !== 'number') return null;
  if (claims.g !== undefined && typeof claims.g !== 'number') return null;
  if (typeof claims.m !== 'number') delete claims.m;
  if (typeof claims.b !== 'string') delete claims.b;
  const timing: SessionTiming = { exp: claims.exp, b: claims.b, m: claims.m };
  if (sessionEnded(timing, clock)) return null;
  return { u: claims.u, s: claims.s, g: claims.g ?? 0, ...timing };
}

/** When a session ends: its claims `exp`, `b` and `m`. */
export type SessionTiming = Pick<SessionClaims, 'exp' | 'b' | 'm'>;

/**
 * Whether a session has run out: on the monotonic clock of the run that issued it, else by `exp`
 * on the wall clock, which must be set to judge it (not set: ended, log in again).
 */
export function sessionEnded(timing: SessionTiming, clock: SessionClock): boolean {
  const thisRun = timing.b === clock.run && typeof timing.m === 'number';
  if (thisRun) return timing.m! <= clock.now();
  const wall = clock.wall();
  return !isWallSet(wall) || timing.exp <= wall;
}
