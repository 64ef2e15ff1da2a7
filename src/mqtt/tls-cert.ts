// The gateway's TLS identity: the configured certificate and key, or a self-signed pair
// generated on first start and kept in the data dir.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../log.js';

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
    return { cert: readFileSync(certPath), key: readFileSync(keyPath), source: certPath };
  }
  const host = os.hostname();
  const notBeforeDate = new Date();
  const notAfterDate = new Date(notBeforeDate);
  notAfterDate.setFullYear(notAfterDate.getFullYear() + VALID_YEARS);
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
