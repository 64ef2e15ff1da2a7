// A configured certificate renewed while the service runs (certbot renew replaces the files, or
// the links to them) is served without a restart: the files are looked at every few seconds (a
// stat, following links), and a pair that changed is read, checked (a certificate, a key, and
// the one belonging to the other, and built into a TLS secure context as the server builds it)
// and handed to the HTTPS server's setSecureContext: new connections get it, open ones keep
// theirs. One that is no pair (half written, the wrong key, not PEM) or that OpenSSL will not
// serve (a chain cut off after its first certificate, a key too small) is not served: the old one
// stays, with a warning naming why, and is looked at again at the next change of either file.
// Nothing here throws: it runs in a file watcher, where a throw would end the service.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { Logger } from '../log.js';
import { certificateValidity } from '../shared/cert-validity.js';
import type { TlsIdentity } from './tls-cert.js';

/** How often the files are looked at (a stat each). */
export const CERT_POLL_MS = 2000;

/** The TLS options of a pair: the very ones the gateway's server is made with and given anew. */
export function secureOptions(pair: { cert: Buffer; key: Buffer }): SecureContextOptions {
  return { cert: pair.cert, key: pair.key };
}

/** The pair in `cert` and `key` (files `certFile`, `keyFile`), or why it is none. */
export function checkedPair(
  cert: Buffer,
  key: Buffer,
  certFile: string,
  keyFile: string,
): { serial: string; validTo: string } | { error: string } {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (e) {
    return { error: `${certFile} is not a PEM certificate (${(e as Error).message})` };
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch (e) {
    return { error: `${keyFile} is not a PEM private key (${(e as Error).message})` };
  }
  if (!x509.checkPrivateKey(privateKey))
    return { error: `the key in ${keyFile} is not the one of the certificate in ${certFile}` };
  // Only the first certificate was read above; OpenSSL reads the whole file (the chain after it)
  // and judges the key (its size, by its security level) only here.
  try {
    createSecureContext(secureOptions({ cert, key }));
  } catch (e) {
    return { error: `TLS cannot serve ${certFile} with ${keyFile} (${(e as Error).message})` };
  }
  return { serial: x509.serialNumber, validTo: x509.validTo };
}

/**
 * Watches `files` and calls `serve` with the new identity when both changed into a valid pair
 * that differs from the one served (`current()`); returns the stop.
 */
export function watchCertificate(
  files: { cert: string; key: string },
  current: () => TlsIdentity,
  serve: (identity: TlsIdentity) => void,
  log: Logger,
): () => void {
  let lastProblem: string | null = null;
  const look = (now: Stats, before: Stats) => {
    if (now.mtimeMs === before.mtimeMs && now.ino === before.ino && now.size === before.size) return;
    let cert: Buffer;
    let key: Buffer;
    try {
      cert = readFileSync(files.cert);
      key = readFileSync(files.key);
    } catch (e) {
      return problem(`cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    const served = current();
    if (cert.equals(served.cert) && key.equals(served.key)) return;
    const pair = checkedPair(cert, key, files.cert, files.key);
    if ('error' in pair) return problem(pair.error);
    try {
      serve({ cert, key, source: served.source });
    } catch (e) {
      return problem(`the HTTPS server refused it (${(e as Error).message})`);
    }
    lastProblem = null;
    log.info(
      { cert: files.cert, serial: pair.serial, validTo: pair.validTo },
      `https gateway: serving the renewed certificate ${files.cert} (serial ${pair.serial}, valid to ${pair.validTo})`,
    );
    const validity = certificateValidity(cert, files.cert);
    if ('warning' in validity && validity.warning) log.warn({ cert: files.cert }, validity.warning);
  };
  const problem = (why: string) => {
    // Said once per cause: certbot writes the two files one after the other.
    if (why === lastProblem) return;
    lastProblem = why;
    log.warn(
      { cert: files.cert, key: files.key },
      `https gateway: the certificate files changed but are not served: ${why}; the previous certificate stays until ${files.cert} and ${files.key} hold a matching pair`,
    );
  };
  const options = { interval: CERT_POLL_MS, persistent: false };
  watchFile(files.cert, options, look);
  watchFile(files.key, options, look);
  return () => {
    unwatchFile(files.cert, look);
    unwatchFile(files.key, look);
  };
}
