// A configured HTTPS certificate (httpsCert) that has expired, expires within days or is not
// valid yet was served without a word: the brewer's browser refused the dashboard one morning and
// nothing on the Pi said why. The service now says so in its log at the start and in
// system/status (gateway.certificateWarning, worked out at each request, so a certificate that
// expires while the service runs turns up there); `edgeblocks check` warns (exit 0: the service
// starts) and the doctor gives a finding. The built CLI as a child process; the certificates
// are made by the same library the gateway makes its own with.
// tags: slow (the built CLI, five times)
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import t, { type Test } from 'tap';
import { CLI, startCli } from '../helpers/cli.js';
import { all, doctor, setUp, type Section } from '../helpers/doctor.js';
import { limit } from '../helpers/limits.js';
import { freePort } from '../helpers/mosquitto.js';

const DAY = 86_400_000;

/** A certificate and key valid from `from` to `to` (ms from now), in files under a test dir. */
async function pair(t: Test, from: number, to: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'eb-cert-validity-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const pems = await generate([{ name: 'commonName', value: 'brewery.example' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() + from),
    notAfterDate: new Date(Date.now() + to),
  });
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  writeFileSync(cert, pems.cert);
  writeFileSync(key, pems.private, { mode: 0o600 });
  return { dir, cert, key };
}

const CASES = [
  { what: 'expired', from: -400 * DAY, to: -2 * DAY, says: /has expired/ },
  { what: 'expires in 3 days', from: -60 * DAY, to: 3 * DAY, says: /expires on .* \(in 3 days\)/ },
  { what: 'not valid yet', from: 5 * DAY, to: 400 * DAY, says: /is not valid until/ },
];

t.test('the start logs it and system/status reports it', async (t) => {
  for (const c of CASES) {
    const p = await pair(t, c.from, c.to);
    const cli = await startCli(
      [
        '--hardware',
        'sim',
        '--data-dir',
        path.join(p.dir, 'data'),
        '--mqtt-port',
        '0',
        '--https-port',
        String(await freePort()),
      ],
      { EDGEBLOCKS_HTTPS_CERT: p.cert, EDGEBLOCKS_HTTPS_KEY: p.key },
      t,
    );
    await cli.waitFor(c.says, `${c.what}: the log`);
    t.match(cli.output(), new RegExp(`${p.cert.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*${c.says.source}`));
    const status = (await (await fetch(`${cli.base}/edge-one/system/status`)).json()) as {
      gateway: { certificateWarning: string | null; certificateValidTo: string };
    };
    t.match(status.gateway.certificateWarning, c.says, `${c.what}: in the status`);
    t.ok(Date.parse(status.gateway.certificateValidTo), 'and when it ends');
  }
  // A valid one: no warning.
  const fine = await pair(t, -DAY, 300 * DAY);
  const cli = await startCli(
    [
      '--hardware',
      'sim',
      '--data-dir',
      path.join(fine.dir, 'data'),
      '--mqtt-port',
      '0',
      '--https-port',
      String(await freePort()),
    ],
    { EDGEBLOCKS_HTTPS_CERT: fine.cert, EDGEBLOCKS_HTTPS_KEY: fine.key },
    t,
  );
  const status = (await (await fetch(`${cli.base}/edge-one/system/status`)).json()) as {
    gateway: { certificateWarning: string | null };
  };
  t.equal(status.gateway.certificateWarning, null, 'a valid certificate: no warning');
});

t.test('edgeblocks check warns, and still exits 0', async (t) => {
  for (const c of CASES) {
    const p = await pair(t, c.from, c.to);
    const config = path.join(p.dir, 'config.json');
    writeFileSync(config, JSON.stringify({ httpsCert: p.cert, httpsKey: p.key }));
    const r = spawnSync(process.execPath, [CLI, 'check', '--config', config, '--data-dir', path.join(p.dir, 'data')], {
      encoding: 'utf8',
      timeout: limit(30_000),
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    t.equal(r.status, 0, r.stderr);
    t.match(r.stderr, new RegExp(`^edgeblocks: warning: the HTTPS certificate ${p.cert}.*${c.says.source}`, 'm'));
  }
});

t.test('the doctor gives a finding', async (t) => {
  const s = setUp(t, 'pi4', { w1: [] });
  const p = await pair(t, -400 * DAY, -2 * DAY);
  // Under --root, the file is named as on that system (a card's /etc/ssl).
  mkdirSync(path.join(s.root, 'etc/ssl'), { recursive: true });
  copyFileSync(p.cert, path.join(s.root, 'etc/ssl/brewery.pem'));
  const res = doctor([...s.args, '--json'], {
    EDGEBLOCKS_HTTPS_CERT: '/etc/ssl/brewery.pem',
    EDGEBLOCKS_HTTPS_KEY: '/etc/ssl/brewery.key',
  });
  const sections = (JSON.parse(res.stdout) as { sections: Section[] }).sections;
  const findings = all(sections).flatMap((x) => x.findings);
  t.match(
    findings.find((f) => /HTTPS certificate/.test(f.text)),
    { verdict: 'warn', text: /^the HTTPS certificate \/etc\/ssl\/brewery\.pem has expired/ },
    JSON.stringify(findings),
  );
});
