// The gateway's self-signed certificate and the wall clock. A Pi without a saved time starts at
// 1970: the certificate made then was valid for 10 years from 1970, expired once network time
// came, and stayed so (it is kept in the data dir) until someone deleted it: browsers and wss
// clients met an expired certificate on every start. The built CLI under a moved clock (libfaketime).
// tags: slow (the built CLI started three times under a moved clock)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import t, { type Test } from 'tap';
import { CERT_FILE, KEY_FILE } from '../../src/mqtt/tls-cert.js';
import { killAndWait } from '../helpers/children.js';
import { startCli } from '../helpers/cli.js';
import { movedClock } from '../helpers/faketime.js';
import { limit } from '../helpers/limits.js';
import { LIBFAKETIME, needTools } from '../helpers/tools.js';
import { freePort } from '../helpers/mosquitto.js';
import { until } from '../alerts/receivers.js';

needTools('faketime', 'openssl');
t.setTimeout(limit(120_000));

const YEAR = 365 * 86_400_000;

/** The certificate the gateway serves on `port`, once it listens. */
async function served(port: number): Promise<X509Certificate> {
  return until('the gateway', limit(15_000), async () => {
    try {
      return await new Promise<X509Certificate | undefined>((resolve, reject) => {
        const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
          const cert = s.getPeerX509Certificate();
          s.end();
          resolve(cert);
        });
        s.on('error', reject);
      });
    } catch {
      return undefined;
    }
  });
}

async function run(t: Test, dataDir: string, env: NodeJS.ProcessEnv): Promise<X509Certificate> {
  const port = await freePort();
  const cli = await startCli(
    ['--hardware', 'sim', '--data-dir', dataDir, '--mqtt-port', '0', '--https-port', String(port)],
    env,
    t,
  );
  try {
    return await served(port);
  } finally {
    await killAndWait(cli.child, 'SIGTERM');
  }
}

t.test('made on a clock not set (1970), the certificate is still valid once network time comes', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eb-tls-clock-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const clock = movedClock(dir);
  clock.move('@1970-01-02 00:00:00');
  const dataDir = path.join(dir, 'data');
  const first = await run(t, dataDir, clock.env);
  const now = Date.now();
  t.ok(Date.parse(first.validFrom) < Date.UTC(1970, 0, 3), `valid from the controller's 1970 (${first.validFrom})`);
  t.ok(Date.parse(first.validTo) > now + 5 * YEAR, `and long after the real now (${first.validTo})`);

  // Network time: the next start keeps it (a new certificate is one more to accept in every client).
  clock.move('+0');
  const second = await run(t, dataDir, clock.env);
  t.equal(second.fingerprint256, first.fingerprint256, 'the same certificate at the next start');
});

t.test(
  'a kept certificate that has expired is made again at the start; one not valid yet by this clock is kept',
  async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'eb-tls-expired-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const dataDir = path.join(dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    // As an earlier version left it: made on a clock at 1970, for a year (openssl under libfaketime).
    const cert = path.join(dataDir, CERT_FILE);
    const key = path.join(dataDir, KEY_FILE);
    const made = (when: string) =>
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '365',
          '-subj',
          '/CN=old',
        ],
        { env: { ...process.env, LD_PRELOAD: LIBFAKETIME!, FAKETIME: when }, stdio: 'ignore' },
      );
    made('@1970-01-02 00:00:00');
    const old = new X509Certificate(readFileSync(cert));
    t.ok(Date.parse(old.validTo) < Date.UTC(1972, 0, 1), `the old one expired in ${old.validTo}`);
    const fresh = await run(t, dataDir, {});
    const now = Date.now();
    t.not(fresh.fingerprint256, old.fingerprint256, 'another certificate is served');
    t.ok(
      Date.parse(fresh.validFrom) <= now && Date.parse(fresh.validTo) > now,
      `valid now (${fresh.validFrom} to ${fresh.validTo})`,
    );
    // From 1970: a client, or this controller at its next start, whose clock is behind (fake-hwclock
    // starts a Pi at the time it last saved) never finds it not valid yet.
    t.equal(Date.parse(fresh.validFrom), 0, `valid from 1970 (${fresh.validFrom})`);
    t.equal(new X509Certificate(readFileSync(cert)).fingerprint256, fresh.fingerprint256, 'and kept in the data dir');

    // Not valid yet by this clock (made at 2040 here): this clock may be the one that is behind, as
    // after a start at fake-hwclock's saved time; clients judge by their own clocks, and a new
    // certificate is one more to accept in each of them. It is kept.
    made('@2040-01-01 00:00:00');
    const ahead = new X509Certificate(readFileSync(cert));
    const again = await run(t, dataDir, {});
    t.equal(again.fingerprint256, ahead.fingerprint256, 'a certificate not valid yet by this clock is kept');

    // The clock not set at this start (1970): a good certificate is kept, not made again for 1970.
    const clock = movedClock(dir);
    clock.move('@1970-01-02 00:00:00');
    const kept = await run(t, dataDir, clock.env);
    t.equal(kept.fingerprint256, again.fingerprint256, 'kept while the clock is not set');
  },
);
