// Whether a TLS certificate is valid now: the one rule the gateway's start and status,
// `edgeblocks check` and the doctor give a user whose browser may refuse the dashboard. Judged by
// this clock only when it is set (a Pi without a saved time reads 1970 until network time, when
// every certificate looks "not valid yet"); browsers judge by their own.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inRoot } from './in-root.js';
import { isWallSet } from './wall-set.js';

/** A certificate ending within this many days is worth a warning (a renewal that failed). */
export const EXPIRES_SOON_DAYS = 14;
const DAY_MS = 86_400_000;

export interface CertificateValidity {
  validFrom: string;
  validTo: string;
  /** Why browsers refuse (or will soon refuse) it, naming `file`; null when it is valid for a while yet. */
  warning: string | null;
}

/** The validity of the first certificate in `pem` (the server's own), or the reason it is none. */
export function certificateValidity(
  pem: Buffer | string,
  file: string,
  now = Date.now(),
): CertificateValidity | { error: string } {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch (e) {
    return { error: `the HTTPS certificate ${file} is not a PEM certificate (${(e as Error).message})` };
  }
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const out = { validFrom: new Date(from).toISOString(), validTo: new Date(to).toISOString() };
  if (!isWallSet(now)) return { ...out, warning: null };
  const what = `the HTTPS certificate ${file}`;
  if (now > to)
    return {
      ...out,
      warning: `${what} has expired (on ${day(to)}): browsers refuse the dashboard on the HTTPS port; renew it (the running service serves the renewed files within seconds)`,
    };
  if (now < from)
    return {
      ...out,
      warning: `${what} is not valid until ${day(from)} (this clock reads ${day(now)}): browsers refuse it until then; check the clock, or the certificate's dates`,
    };
  const days = Math.ceil((to - now) / DAY_MS);
  if (days < EXPIRES_SOON_DAYS)
    return {
      ...out,
      warning: `${what} expires on ${day(to)} (in ${days} day${days === 1 ? '' : 's'}): browsers will refuse the dashboard on the HTTPS port then; renew it (the running service serves the renewed files within seconds)`,
    };
  return { ...out, warning: null };
}

/**
 * What `edgeblocks check` and the doctor say of the configured certificate `file` (spelt as on
 * the system under `root`, if one is given): why browsers refuse it, why the gateway cannot serve
 * it, or null when it is fine.
 */
export function certificateFileWarning(file: string, root?: string): string | null {
  let pem: Buffer;
  try {
    pem = readFileSync(root === undefined ? file : inRoot(root, path.join(root, path.resolve(file))));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    return `the HTTPS certificate ${file} cannot be read (${code}): the HTTPS gateway stays off`;
  }
  const validity = certificateValidity(pem, file);
  return 'error' in validity ? validity.error : validity.warning;
}
