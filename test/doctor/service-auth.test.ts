// The doctor beside a running service with auth on: the service's status needs a login, so
// without a token the doctor says how to give one, with EDGEBLOCKS_TOKEN it shows what the
// service sees (its active alerts included), and a refused token is a problem of the report.
// tags: slow (the built CLI, twice)
import { spawnSync } from 'node:child_process';
import t from 'tap';
import { CLI, startCli } from '../helpers/cli.js';
import { doctor, sectionNamed, setUp, type Section } from '../helpers/doctor.js';
import { limit } from '../helpers/limits.js';

const SIM = {
  w1: [[{ name: 'fridge', type: 'DS18B20', temperature: 4 }]],
  gpio: [{ name: 'heater', line: 17, direction: 'out', drives: 'heater' }],
};

function user(args: string[], stdin = '') {
  const res = spawnSync(process.execPath, [CLI, 'user', ...args], { input: stdin, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`edgeblocks user ${args.join(' ')}: ${res.stderr}`);
  return res.stdout.trim();
}

const serviceView = (stdout: string) =>
  sectionNamed((JSON.parse(stdout) as { sections: Section[] }).sections, /^Service$/);

t.test('with auth on, the doctor shows the service view with an API token from the environment', async (t) => {
  const s = setUp(t, 'pi4', SIM);
  user(['add', 'viewer', '--role', 'viewer', '--data-dir', s.data], 'a long password\n');
  const token = user(['token', 'viewer', '--data-dir', s.data]);
  const service = await startCli(
    [
      '--hardware',
      'sim',
      '--sim-config',
      s.simConfig,
      '--data-dir',
      s.data,
      '--mqtt-port',
      '0',
      '--host',
      '127.0.0.1',
      '--auth',
    ],
    {},
    t,
  );
  t.teardown(() => void service.child.kill('SIGKILL'));
  const args = [...s.args, '--port', String(service.port), '--json'];

  const without = doctor(args);
  t.equal(without.code, 0, `no token: nothing to do about that (${without.stderr})`);
  t.match(serviceView(without.stdout).findings, [
    {},
    { verdict: 'info', text: /needs a login \(auth is on\).*sudo --preserve-env=EDGEBLOCKS_TOKEN edgeblocks doctor/ },
  ]);
  // `user token NAME` replaces NAME's token: the advice must not send an admin to break the
  // token their scripts use; it names a user of its own, a viewer (reads are all it needs).
  t.match(serviceView(without.stdout).findings[1].text, /user add \S+ --role viewer.*replaces/, 'a viewer of its own');

  const refused = doctor(args, { EDGEBLOCKS_TOKEN: `${token.slice(0, -4)}xxxx` });
  t.equal(refused.code, 1, 'a refused token is a problem');
  t.match(serviceView(refused.stdout).findings, [
    {},
    { verdict: 'warn', text: /refuses the token in EDGEBLOCKS_TOKEN/ },
  ]);

  // What only the view shows: an active alert of the service, here control disabled by an admin.
  user(['add', 'admin', '--data-dir', s.data], 'another long password\n');
  const login = await fetch(`${service.base}/auth/login`, {
    method: 'POST',
    body: JSON.stringify({ username: 'admin', password: 'another long password' }),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(login.status, 200, 'the admin logs in');
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const disabled = await fetch(`${service.base}/edge-one/settings/enabled`, {
    method: 'PUT',
    body: JSON.stringify({ enabled: false }),
    headers: { 'content-type': 'application/json', cookie },
  });
  t.equal(disabled.status, 200, 'control disabled');
  const deadline = performance.now() + limit(10_000);
  let view = serviceView(doctor(args, { EDGEBLOCKS_TOKEN: token }).stdout);
  while (!view.findings.some((f) => /Control disabled/.test(f.text))) {
    if (performance.now() > deadline) throw new Error(`no alert in the view: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 200));
    view = serviceView(doctor(args, { EDGEBLOCKS_TOKEN: token }).stdout);
  }
  t.ok(
    view.parts?.some((p) => /as the service sees it/.test(p.title)),
    'with the token the service reports its buses',
  );
  t.match(view.findings, [{}, { verdict: 'warn', text: /^active alert since \S+: Control disabled/ }]);
});
