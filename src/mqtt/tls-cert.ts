// The gateway's TLS identity: the configured certificate and key, or a self-signed pair
// generated on first start and kept in the data dir. The wall clock of a Pi without a saved time
// reads 1970 until network time: a pair made then is valid from then to the end of 9999 (one
// made for 10 years from 1970 expired at the sync); a kept pair that does not cover a set clock
// (made by an earlier version at 1970, or on a clock that was ahead) is made again at the start.
import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../log.js';
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
  opts: { dataDir: string; certFile?: string; keyFile?: string },
  log: Logger,
): Promise<TlsIdentity> {
  if (opts.certFile || opts.keyFile) {
    if (!opts.certFile || !opts.keyFile) throw new Error('httpsCert and httpsKey must be given together');
    return { cert: readFileSync(opts.certFile), key: readFileSync(opts.keyFile), source: opts.certFile };
  }
  const certPath = path.join(opts.dataDir, CERT_FILE);
  const keyPath = path.join(opts.dataDir, KEY_FILE);
  if (existsSync(certPath) && existsSync(keyPath)) {
    chmodSync(keyPath, 0o600);
    const cert = readFileSync(certPath);
    const outside = notValidNow(cert);
    if (!outside) return { cert, key: readFileSync(keyPath), source: certPath };
    log.warn({ cert: certPath }, `the gateway certificate in ${certPath} ${outside}: making a new one`);
  }
  const host = os.hostname();
  const notBeforeDate = new Date();
  const notAfterDate = new Date(notBeforeDate);
  if (isWallSet(notBeforeDate.getTime())) notAfterDate.setFullYear(notAfterDate.getFullYear() + VALID_YEARS);
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
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  writeFileSync(certPath, pems.cert);
  log.info({ cert: certPath }, `generated a self-signed gateway certificate in ${certPath}`);
  return { cert: Buffer.from(pems.cert), key: Buffer.from(pems.private), source: certPath };
}

/** Why a kept certificate does not do on a set clock now ("expired on ..."), or null (also while the clock is not set). */
function notValidNow(pem: Buffer): string | null {
  const now = Date.now();
  if (!isWallSet(now)) return null;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    return null; // not ours to judge: the TLS server says what is wrong with it
  }
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  if (now > to) return `expired on ${new Date(to).toISOString()} (made on a clock that was not set?)`;
  if (now < from) return `is not valid until ${new Date(from).toISOString()} (made on a clock that was ahead?)`;
  return null;
}
