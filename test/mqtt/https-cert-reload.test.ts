// A renewed HTTPS certificate (certbot renew replacing the files) was served only after a
// restart: the gateway read the files once, at its start, so the brewer's browser kept getting
// the old one until it expired. The gateway now looks at the files and serves a renewed pair to
// new connections; a pair that is no pair (the wrong key, not PEM) is not served: the old one
// stays, with a warning. A pair that is a pair but that TLS will not serve (a fullchain.pem caught
// half written, a key too small for OpenSSL) ended the whole service: the server's
// setSecureContext threw in the file watcher, an uncaught exception, and the failsafe ran. Such a
// pair is now built into a secure context before it is served, and refused like the others.
// Certificates made by openssl; a real TLS client reads the serial served.
// tags: slow (the built CLI, openssl)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import t, { type Test } from 'tap';
import { Gateway } from '../../src/mqtt/gateway.js';
import { startCli } from '../helpers/cli.js';
import { logLines } from '../helpers/log-lines.js';
import { freePort } from '../helpers/mosquitto.js';
import { needTools } from '../helpers/tools.js';
import { until } from '../helpers/until.js';

needTools('openssl');

/**
 * A self-signed pair with `serial`, made by openssl: PEM texts. A new RSA key of `bits`, or the
 * certificate renewed on `key` (a PEM text) when given.
 */
function openssl(t: Test, serial: string, opts: { bits?: number; key?: string } = {}): { cert: string; key: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'eb-cert-reload-make-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const keyFile = path.join(dir, 'key.pem');
  if (opts.key) writeFileSync(keyFile, opts.key, { mode: 0o600 });
  const key = opts.key ? ['-new', '-key', keyFile] : ['-newkey', `rsa:${opts.bits ?? 2048}`, '-keyout', keyFile];
  const subject = ['-days', '90', '-subj', '/CN=localhost', '-set_serial', `0x${serial}`];
  execFileSync('openssl', ['req', '-x509', ...key, '-nodes', ...subject, '-out', path.join(dir, 'cert.pem')], {
    stdio: 'ignore',
  });
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

/** The CLI with the pair `first` in cert.pem and key.pem of a new directory (`names` instead when given). */
async function started(t: Test, first: { cert: string; key: string }, names = { cert: 'cert.pem', key: 'key.pem' }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'eb-cert-reload-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cert = path.join(dir, names.cert);
  const key = path.join(dir, names.key);
  writeFileSync(cert, first.cert);
  writeFileSync(key, first.key, { mode: 0o600 });
  const httpsPort = await freePort();
  const cli = await startCli(
    ['--hardware', 'sim', '--data-dir', path.join(dir, 'data'), '--mqtt-port', '0', '--https-port', String(httpsPort)],
    { EDGEBLOCKS_HTTPS_CERT: cert, EDGEBLOCKS_HTTPS_KEY: key },
    t,
  );
  await cli.waitFor(/https gateway listening/, 'the gateway');
  return { cli, cert, key, httpsPort };
}

t.test('a renewed pair OpenSSL will not serve (a 512-bit key) is refused; the service runs on', async (t) => {
  const first = openssl(t, '0A01');
  const { cli, cert, key, httpsPort } = await started(t, first);
  const weak = openssl(t, '0B02', { bits: 512 });
  replace(key, weak.key);
  replace(cert, weak.cert);
  // Before the fix the service ended here (an uncaught exception), and this wait said so.
  await cli.waitFor(/not served: .*ee key too small/, 'the warning naming the cause');
  t.equal((await fetch(`${cli.base}/edge-one/system/status`)).status, 200, 'the service still answers');
  t.equal(await servedSerial(httpsPort), '0A01', 'the old pair is still served');

  // A good pair after it is served as before.
  const good = openssl(t, '0C03');
  replace(key, good.key);
  replace(cert, good.cert);
  await cli.waitFor(/serving the renewed certificate .*serial 0C03/, 'the good pair served');
  t.equal(await servedSerial(httpsPort), '0C03');
  t.notMatch(cli.output(), /uncaught exception/i, 'no crash');
});

t.test('a fullchain.pem read half written (its intermediate cut off) is refused; the service runs on', async (t) => {
  const first = openssl(t, '0A01');
  const { cli, cert, httpsPort } = await started(t, first, { cert: 'fullchain.pem', key: 'privkey.pem' });
  // The leaf renewed on the same key, then the chain's intermediate, written in place (cp, cat):
  // looked at when only half of the intermediate is there. Its first certificate parses and
  // matches the key; OpenSSL refuses the file (bad end line).
  const leaf = openssl(t, '0D04', { key: first.key }).cert;
  const intermediate = openssl(t, '0E05').cert;
  writeFileSync(cert, leaf + intermediate.slice(0, intermediate.length / 2));
  await cli.waitFor(/not served: .*fullchain\.pem.*bad end line/, 'the warning naming the cause');
  t.equal((await fetch(`${cli.base}/edge-one/system/status`)).status, 200, 'the service still answers');
  t.equal(await servedSerial(httpsPort), '0A01', 'the old pair is still served');

  // The rest written: the renewed leaf is served.
  writeFileSync(cert, leaf + intermediate);
  await cli.waitFor(/serving the renewed certificate .*serial 0D04/, 'the whole chain served');
  t.equal(await servedSerial(httpsPort), '0D04');
  t.notMatch(cli.output(), /uncaught exception/i, 'no crash');
});

t.test('a gateway started again serves the pair it last took, not the one it was made with', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'eb-cert-reload-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const files = { cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') };
  const first = openssl(t, '0A01');
  writeFileSync(files.cert, first.cert);
  writeFileSync(files.key, first.key, { mode: 0o600 });
  const http = Fastify();
  t.teardown(() => http.close());
  const { log, lines } = logLines();
  const tls = { cert: Buffer.from(first.cert), key: Buffer.from(first.key), source: files.cert };
  const gateway = new Gateway({ host: '127.0.0.1', port: 0, tls, http, log, files });
  t.teardown(() => gateway.close());
  await gateway.start();
  const second = openssl(t, '0B02');
  replace(files.key, second.key);
  replace(files.cert, second.cert);
  await until(() => lines.some((l) => /serving the renewed certificate .*serial 0B02/.test(l.msg)), 'the renewal');
  t.equal(await servedSerial(gateway.port as number), '0B02', 'the renewed pair');
  await gateway.close();
  await gateway.start();
  t.equal(await servedSerial(gateway.port as number), '0B02', 'still the renewed pair after a start again');
});
