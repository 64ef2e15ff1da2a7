// Password hashes (scrypt from node:crypto) and constant-time comparisons.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const PARAMS = { N: 16384, r: 8, p: 1 };
const MAX_MEM = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, opts: ScryptOptions, keylen: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, { ...opts, maxmem: MAX_MEM }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$<salt base64>$<key base64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, PARAMS, KEY_LENGTH);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Whether `hash` has the shape hashPassword writes (checked when the users file is read). */
export function isPasswordHash(hash: unknown): hash is string {
  if (typeof hash !== 'string') return false;
  const parts = hash.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  return (
    [n, r, p].every((v) => Number.isInteger(v) && v! > 0) &&
    (n! & (n! - 1)) === 0 &&
    n! <= 1 << 20 &&
    r! <= 32 &&
    p! <= 16 &&
    isBase64Of(parts[4]!, SALT_LENGTH) &&
    isBase64Of(parts[5]!, KEY_LENGTH)
  );
}

/** Whether `text` is the base64 of `bytes` bytes as written: a key damaged to fewer bytes (or none) would match more passwords (every one). */
function isBase64Of(text: string, bytes: number): boolean {
  const decoded = Buffer.from(text, 'base64');
  return decoded.length === bytes && decoded.toString('base64') === text;
}

// A hash of no known password, checked when the user name is unknown so that the answer takes as long.
const DUMMY = `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${Buffer.alloc(SALT_LENGTH).toString('base64')}$${Buffer.alloc(KEY_LENGTH).toString('base64')}`;

/** Verify `password` against `hash` (or, when null, spend the same time and answer false). */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  const stored = hash ?? DUMMY;
  const [, n, r, p, salt, key] = stored.split('$');
  const expected = Buffer.from(key!, 'base64');
  const actual = await derive(
    password,
    Buffer.from(salt!, 'base64'),
    { N: Number(n), r: Number(r), p: Number(p) },
    expected.length,
  );
  return timingSafeEqual(actual, expected) && hash !== null;
}

/** Constant-time equality of two strings (false when the lengths differ). */
export function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  if (x.length !== y.length) {
    timingSafeEqual(x, x);
    return false;
  }
  return timingSafeEqual(x, y);
}
