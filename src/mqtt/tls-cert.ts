// The gateway's TLS identity: the configured certificate and key, or a self-signed pair
// generated on first start and kept in the data dir. Clients judge a certificate by their own
// clocks, not the controller's, and the controller's may be wrong at a start: a Pi without a saved
// time reads 1970 until network time, and fake-hwclock starts it at the last time it saved, which
// may be before the pair was made. So a pair is valid from 1970 (never "not valid yet" to anyone)
// to 10 years on, or to the end of 9999 when made on a clock not set (one made for 10 years from
// 1970 expired at the sync). A kept pair is made again only when it has expired on a set clock.
import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../log.js';
import { certificateValidity } from '../shared/cert-validity.js';
import { isWallSet } from '../shared/wall-set.js';

export const CERT_FILE = 'gateway-cert.pem';
export const KEY_FILE = 'gateway-key.pem';
const VALID_YEARS = 10;

export interface TlsIdentity {
  cert: Buffer;
  key: Buffer;
  /** Where it came from: the configured files, or the generated pair in the data dir. */
  source: string;
}

export async function gatewayIdentity(
  opts: {
    dataDir: string;
    certFile?: string;
    keyFile?: string;
    /** Writes a private file whole or not at all (store/file-modes.ts writePrivateFile). */
    writeFile: (file: string, text: string) => void;
  },
  log: Logger,
): Promise<TlsIdentity> {
  if (opts.certFile || opts.keyFile) {
    if (!opts.certFile || !opts.keyFile) throw new Error('httpsCert and httpsKey must be given together');
    const cert = readFileSync(opts.certFile);
    // Served all the same (browsers judge by their own clocks), but a refused dashboard is explained.
    const validity = certificateValidity(cert, opts.certFile);
    if ('warning' in validity && validity.warning) log.warn({ cert: opts.certFile }, validity.warning);
    return { cert, key: readFileSync(opts.keyFile), source: opts.certFile };
  }
  const certPath = path.join(opts.dataDir, CERT_FILE);
  const keyPath = path.join(opts.dataDir, KEY_FILE);
  if (existsSync(certPath) && existsSync(keyPath)) {
    chmodSync(keyPath, 0o600);
    const cert = readFileSync(certPath);
    const expired = expiredOn(cert);
    if (!expired) return { cert, key: readFileSync(keyPath), source: certPath };
    log.warn({ cert: certPath }, `the gateway certificate in ${certPath} expired on ${expired}: making a new one`);
  }
  const host = os.hostname();
  const now = new Date();
  const notBeforeDate = new Date(0);
  const notAfterDate = new Date(now);
  if (isWallSet(now.getTime())) notAfterDate.setFullYear(notAfterDate.getFullYear() + VALID_YEARS);
  else notAfterDate.setTime(Date.UTC(9999, 11, 31, 23, 59, 59));
  // Loaded only on the first start: the certificate library is large and needed once.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: host }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: host },
          { type: 2, value: `${host}.local` },
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  // Each whole or not at all: a power cut while they are written at a start leaves the old pair.
  opts.writeFile(keyPath, pems.private);
  opts.writeFile(certPath, pems.cert);
  log.info({ cert: certPath }, `generated a self-signed gateway certificate in ${certPath}`);
  return { cert: Buffer.from(pems.cert), key: Buffer.from(pems.private), source: certPath };
}

/**
 * When a kept certificate expired, on a set clock now (ISO), or null: not expired, the clock not
 * set, or not a certificate (the TLS server says what is wrong with it). One "not valid yet" by
 * this clock is kept: this clock may be behind (fake-hwclock), and clients judge by their own.
 */
function expiredOn(pem: Buffer): string | null {
  const now = Date.now();
  if (!isWallSet(now)) return null;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    return null;
  }
  const to = Date.parse(cert.validTo);
  return now > to ? new Date(to).toISOString() : null;
}
