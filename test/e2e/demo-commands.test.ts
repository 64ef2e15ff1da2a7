// `npm run demo` passes extra flags through to the service, so a new user asks it for help and
// adds a user the way the service is asked: `npm run demo -- --help`, `npm run demo -- user add
// NAME`. Those answer as the service's CLI does, on the demo's own data dir (./demo-data), and a
// demo with --auth and no user names the demo's way to add one (`edgeblocks` is not on PATH in a
// checkout).
// tags: slow (the demo started as a user starts it)
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEMO, startDemo } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { VERSION } from '../../src/shared/version.js';

function demo(cwd: string, args: string[], input?: string) {
  return spawnSync(process.execPath, [DEMO, ...args], {
    cwd,
    input,
    encoding: 'utf8',
    timeout: limit(30000),
    killSignal: 'SIGKILL',
  });
}

const fresh = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-demo-cmd-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

t.test('npm run demo -- --help prints the options and starts nothing', async (t) => {
  const cwd = fresh();
  for (const flag of ['--help', '-h', 'help']) {
    const res = demo(cwd, [flag]);
    t.equal(res.status, 0, `${flag}: exit 0 (stderr: ${res.stderr})`);
    t.match(res.stdout, /npm run demo -- \[options\]/, `${flag}: the demo's usage line`);
    t.match(res.stdout, /--mqtt-port\s+EDGEBLOCKS_MQTT_PORT/, `${flag}: the service's options`);
    t.match(res.stdout, /--data-dir \.\/demo-data/, `${flag}: the demo's own defaults`);
    t.notMatch(res.stdout, /listening/, `${flag}: nothing listens`);
  }
  t.notOk(existsSync(path.join(cwd, 'demo-data')), 'no data dir made');
});

t.test('npm run demo -- --version prints the version', async (t) => {
  const cwd = fresh();
  const res = demo(cwd, ['--version']);
  t.equal(res.status, 0);
  t.equal(res.stdout.trim(), VERSION);
  t.notOk(existsSync(path.join(cwd, 'demo-data')), 'no data dir made');
});

t.test("auth on the demo: the refusal names the demo's command, which adds a user the demo then takes", async (t) => {
  const cwd = fresh();
  const refused = demo(cwd, ['--auth', '--port', '0', '--mqtt-port', '0', '--https-port', '0']);
  t.equal(refused.status, 2, `exit 2 (stderr: ${refused.stderr})`);
  t.match(refused.stderr, /no user in (\.\/)?demo-data\/users\.json/, 'names the missing user');
  t.match(refused.stderr, /npm run demo -- user add NAME/, "names the demo's way to add one");

  const added = demo(cwd, ['user', 'add', 'alice'], 'a long password\n');
  t.equal(added.status, 0, `user add: exit 0 (stderr: ${added.stderr})`);
  t.match(added.stdout, /user alice added to (\.\/)?demo-data\/users\.json/, "in the demo's data dir");
  const list = demo(cwd, ['user', 'list']);
  t.equal(list.stdout.trim(), 'alice', 'user list reads the same dir');

  // The test's own cwd is not the temp dir: the demo is given the dir the user was added to.
  const dataDir = path.join(cwd, 'demo-data');
  const args = ['--auth', '--port', '0', '--mqtt-port', '0', '--https-port', '0', '--data-dir', dataDir];
  const cli = await startDemo(args, {}, t);
  t.teardown(() => cli.child.kill('SIGKILL'));
  const denied = await fetch(`${cli.base}/edge-one/system/status`);
  t.equal(denied.status, 401, 'auth is on');
  const login = await fetch(`${cli.base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'alice', password: 'a long password' }),
  });
  t.equal(login.status, 200, 'the user added through the demo logs in');
});

t.test('a flag npm took (npm run demo --port 5080, without --): the demo says where flags go', async (t) => {
  const cwd = fresh();
  // npm keeps --port for itself and passes the demo the bare 5080.
  const res = demo(cwd, ['5080']);
  t.equal(res.status, 2, `exit 2 (stderr: ${res.stderr})`);
  t.equal(res.stderr.trim().split('\n').length, 1, 'one line');
  t.match(res.stderr, /^demo: configuration error: "5080": unexpected argument/);
  t.match(res.stderr, /npm run demo -- --port 5080/, 'the line with the flag after --');
  t.notMatch(res.stderr, /doctor|check/, 'names no command the demo does not have');
  t.notOk(existsSync(path.join(cwd, 'demo-data')), 'no data dir made');
});
