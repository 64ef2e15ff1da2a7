// A renewed HTTPS certificate (certbot renew replacing the files) was served only after a
// restart: the gateway read the files once, at its start, so the brewer's browser kept getting
// the old one until it expired. The gateway now looks at the files and serves a renewed pair to
// new connections; a pair that is no pair (the wrong key, not PEM) is not served: the old one
// stays, with a warning. Certificates made by openssl; a real TLS client reads the serial served.
// tags: slow (the built CLI, openssl)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { startCli } from '../helpers/cli.js';
import { freePort } from '../helpers/mosquitto.js';
import { needTools } from '../helpers/tools.js';
import { until } from '../helpers/until.js';

needTools('openssl');

/** A self-signed pair with `serial`, made by openssl: PEM texts. */
function openssl(t: Test, serial: string): { cert: string; key: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'eb-cert-reload-make-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '90',
      '-subj',
      '/CN=localhost',
      '-set_serial',
      `0x${serial}`,
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const read = (f: string) => readFileSync(path.join(dir, f), 'utf8');
  return { cert: read('cert.pem'), key: read('key.pem') };
}

/** The serial of the certificate a new TLS connection to `port` is served (upper-case hex). */
function servedSerial(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, servername: 'localhost' }, () => {
      const serial = socket.getPeerCertificate().serialNumber;
      socket.end();
      resolve(serial.toUpperCase());
    });
    socket.on('error', reject);
  });
}

/** Replaces `file` as certbot does: written beside it, then renamed over it. */
function replace(file: string, text: string): void {
  writeFileSync(`${file}.new`, text);
  renameSync(`${file}.new`, file);
}

t.test('a renewed pair is served without a restart; a mismatched one is not', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'eb-cert-reload-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const first = openssl(t, '0A01');
  writeFileSync(cert, first.cert);
  writeFileSync(key, first.key, { mode: 0o600 });
  const httpsPort = await freePort();
  const cli = await startCli(
    ['--hardware', 'sim', '--data-dir', path.join(dir, 'data'), '--mqtt-port', '0', '--https-port', String(httpsPort)],
    { EDGEBLOCKS_HTTPS_CERT: cert, EDGEBLOCKS_HTTPS_KEY: key },
    t,
  );
  await cli.waitFor(/https gateway listening/, 'the gateway');
  t.equal(await servedSerial(httpsPort), '0A01', 'the first certificate');

  // certbot renew: the key, then the certificate, each replaced.
  const second = openssl(t, '0B02');
  replace(key, second.key);
  replace(cert, second.cert);
  await cli.waitFor(/serving the renewed certificate .*serial 0B02/, 'the renewal served');
  t.equal(await servedSerial(httpsPort), '0B02', 'the renewed certificate, without a restart');
  const status = (await (await fetch(`${cli.base}/edge-one/system/status`)).json()) as {
    gateway: { certificateValidTo: string };
  };
  const validTo = Date.parse(status.gateway.certificateValidTo);
  t.ok(validTo > Date.now() + 80 * 86_400_000, 'system/status tells of the renewed one');

  // A certificate whose key is not the one beside it: the renewed pair stays, and the log says why.
  const refused = /not served: the key in .*key\.pem is not the one of the certificate in .*cert\.pem/g;
  const warnings = () => cli.output().match(refused)?.length ?? 0;
  const before = warnings();
  const third = openssl(t, '0C03');
  replace(cert, third.cert);
  await until(() => warnings() > before, 'the warning of the mismatched pair');
  t.equal(await servedSerial(httpsPort), '0B02', 'the last good pair is still served');

  // Its key comes: now they match, and the third is served.
  replace(key, third.key);
  await cli.waitFor(/serving the renewed certificate .*serial 0C03/, 'the matching pair served');
  t.equal(await servedSerial(httpsPort), '0C03');
});
