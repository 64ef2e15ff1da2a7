// `edgeblocks user ...` and start-up with `auth: true`, through the built CLI: non-interactive
// passwords on stdin, file mode 0600, bad names, no user, a corrupt users file left untouched.
// tags: slow (the built CLI, one process per command)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { limit } from '../helpers/limits.js';
import { CLI, postJson, startCli } from '../helpers/cli.js';
import { HttpReceiver, until } from '../alerts/receivers.js';
import { assertBuilt } from '../mqtt/fixtures.js';
import { needTools } from '../helpers/tools.js';
import { readPage } from '../helpers/markdown.js';

needTools('script');

assertBuilt();
// Each start of the service loads every module: slow on a loaded machine.
t.setTimeout(limit(300_000));

function run(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), limit(20000));
    child.on('error', reject);
    child.on('exit', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
    child.stdin.end(stdin);
  });
}

const tmp = (t: Test) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-users-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

t.test('add, list, token, passwd, remove with the password on stdin', async (t) => {
  const dir = tmp(t);
  const added = await run(['user', 'add', 'alice', '--data-dir', dir], 'a long password\n');
  t.equal(added.code, 0, added.stderr);
  const file = path.join(dir, 'users.json');
  t.equal(statSync(file).mode & 0o777, 0o600, 'users file mode 0600');
  const text = readFileSync(file, 'utf8');
  t.notOk(text.includes('a long password'), 'no clear-text password');
  t.match(JSON.parse(text).users.alice.hash, /^scrypt\$16384\$8\$1\$/);
  t.equal((await run(['user', 'add', 'bob', '--data-dir', dir], 'another secret')).code, 0, 'stdin without a newline');
  t.equal((await run(['user', 'list', '--data-dir', dir])).stdout, 'alice\nbob\n');
  const dup = await run(['user', 'add', 'alice', '--data-dir', dir], 'whatever123\n');
  t.equal(dup.code, 2);
  t.match(dup.stderr, /exists; use `edgeblocks user passwd alice`/);
  const token = await run(['user', 'token', 'alice', '--data-dir', dir]);
  t.equal(token.code, 0);
  t.match(token.stdout, /^ebt_[A-Za-z0-9_-]{43}\n$/);
  t.notOk(readFileSync(file, 'utf8').includes(token.stdout.trim()), 'only a digest of the token is stored');
  t.match((await run(['user', 'list', '--data-dir', dir])).stdout, /alice {2}\(has an API token\)/);
  const passwd = await run(['user', 'passwd', 'alice', '--data-dir', dir], 'changed password\n');
  t.equal(passwd.code, 0);
  t.match(passwd.stdout, /the API token no longer works/, 'passwd says the token was revoked');
  t.equal((await run(['user', 'remove', 'bob', '--data-dir', dir])).code, 0);
  t.equal(
    (await run(['user', 'list', '--data-dir', dir])).stdout,
    'alice\n',
    'a password change revokes the API token',
  );
  const gone = await run(['user', 'remove', 'bob', '--data-dir', dir]);
  t.equal(gone.code, 2);
  t.match(gone.stderr, /no user "bob"; users: alice/);
});

t.test('bad names and passwords get a clear error and change nothing', async (t) => {
  const dir = tmp(t);
  await run(['user', 'add', 'alice', '--data-dir', dir], 'a long password\n');
  const before = readFileSync(path.join(dir, 'users.json'), 'utf8');
  const cases: Array<[string[], string, RegExp]> = [
    [
      ['user', 'add', 'bob smith', '--data-dir', dir],
      'a long password\n',
      /"bob smith" may hold only letters, digits and _ \. @ - \(no spaces\)/,
    ],
    [
      ['user', 'add', 'bob', 'smith', '--data-dir', dir],
      'a long password\n',
      /unexpected argument "smith" \(a user name with spaces is not allowed\)/,
    ],
    [['user', 'add', 'x'.repeat(200), '--data-dir', dir], 'a long password\n', /200 characters long; at most 64/],
    [['user', 'add', '', '--data-dir', dir], 'a long password\n', /the user name is empty/],
    [['user', 'add', 'bob', '--data-dir', dir], 'short\n', /at least 8 characters; nothing was changed/],
    [['user', 'add', 'bob', '--data-dir', dir], '', /at least 8 characters/],
    [['user', 'add', '--data-dir', dir], '', /needs a user name/],
    [['user', 'frobnicate', '--data-dir', dir], '', /unknown command "frobnicate"/],
  ];
  for (const [args, stdin, message] of cases) {
    const res = await run(args, stdin);
    t.equal(res.code, 2, args.join(' '));
    t.match(res.stderr, message);
  }
  t.equal(readFileSync(path.join(dir, 'users.json'), 'utf8'), before, 'users file unchanged');
});

t.test('a corrupt users file: the CLI refuses it by path and never rewrites it', async (t) => {
  const dir = tmp(t);
  const file = path.join(dir, 'users.json');
  for (const corrupt of [
    '{"version":1,"users":{"alice":{"hash":"plain',
    '{"version":1,"users":{"alice":{"hash":"md5$abc","stamp":"0123456789"}}}',
    '[]',
  ]) {
    writeFileSync(file, corrupt, { mode: 0o600 });
    const add = await run(['user', 'add', 'bob', '--data-dir', dir], 'a long password\n');
    t.equal(add.code, 1);
    t.match(add.stderr, `${file} is not a valid users file`);
    t.match(add.stderr, /nothing was changed/);
    t.equal(readFileSync(file, 'utf8'), corrupt, 'the CLI left the file as it was');
  }
});

t.test('a users file damaged on the card: the service starts, nobody can log in, an alert says why', async (t) => {
  // Refusing to start (exit 2, as before) left the fermenter uncontrolled until someone came.
  const dir = tmp(t);
  const file = path.join(dir, 'users.json');
  t.equal((await run(['user', 'add', 'alice', '--data-dir', dir], 'a long password\n')).code, 0);
  const good = readFileSync(file, 'utf8');
  const corrupt = good.slice(0, good.length / 2);
  writeFileSync(file, corrupt, { mode: 0o600 });
  const receiver = new HttpReceiver();
  await receiver.start();
  t.teardown(() => receiver.stop());
  const cfg = path.join(dir, 'config.json');
  writeFileSync(
    cfg,
    JSON.stringify({
      auth: true,
      dataDir: dir,
      hardware: 'sim',
      mqttPort: 0,
      alerts: { webhook: { url: receiver.url('/hook') } },
    }),
  );
  const service = await startCli(['--config', cfg], {}, t);
  t.teardown(() => void service.child.kill('SIGKILL'));
  const login = (password: string) => postJson(`${service.base}/auth/login`, { username: 'alice', password });
  const refused = await login('a long password');
  t.equal(refused.status, 503, 'no login while the file is damaged');
  t.match(refused.body.message, /logins are unavailable: the users file on the controller is damaged/);
  t.equal(
    (await fetch(`${service.base}/edge-one/blocks/all/read`, { method: 'POST' })).status,
    401,
    'and nothing is open',
  );
  t.match(service.output(), `${file} is not a valid users file`);
  const alert = await until('the users-file alert', limit(15_000), () =>
    receiver.json('/hook').find((m) => m.event === 'fired' && m.condition === 'users-file-damaged'),
  );
  t.match(alert.message, /is not a valid users file.*nobody can log in until it is fixed or removed.*control goes on/);
  t.equal(readFileSync(file, 'utf8'), corrupt, 'the file is as it was');

  // Fixed on the controller (here: put back), the next login works without a restart.
  writeFileSync(file, good, { mode: 0o600 });
  t.equal((await login('a long password')).status, 200, 'logged in');
});

t.test('auth: true without a user: exit 2 naming the command that adds one', async (t) => {
  const dir = tmp(t);
  const cfg = path.join(dir, 'config.json');
  writeFileSync(cfg, JSON.stringify({ auth: true, dataDir: dir, hardware: 'sim', port: 0, mqttPort: 0, httpsPort: 0 }));
  const start = await run(['--config', cfg]);
  t.equal(start.code, 2);
  t.match(start.stderr, /auth is on but there is no user in .*users\.json; add one with `edgeblocks user add NAME`/);
  // Troubleshooting quotes the line as a Pi prints it, in a code span that holds its backticks.
  const said = start.stderr.trim().replace(path.join(dir, 'users.json'), '/var/lib/edgeblocks/users.json');
  t.ok(
    readPage('docs/troubleshooting.md').includes(`**\`\` ${said} \`\`.**`),
    `docs/troubleshooting.md quotes: ${said}`,
  );
  const bad = await run(['--auth', 'maybe']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /auth \(flag --auth\): must be true or false/);
});

t.test('removing the last user while auth is on is refused: the service would not start again', async (t) => {
  // Removed while the service ran, the next start (a power cut, an upgrade) exited 2: control off.
  const dir = tmp(t);
  const cfg = path.join(dir, 'config.json');
  writeFileSync(cfg, JSON.stringify({ auth: true, dataDir: dir, hardware: 'sim', mqttPort: 0 }));
  t.equal((await run(['user', 'add', 'alice', '--config', cfg], 'a long password\n')).code, 0);
  const service = await startCli(['--config', cfg], {}, t);
  t.teardown(() => void service.child.kill('SIGKILL'));

  const removed = await run(['user', 'remove', 'alice', '--config', cfg]);
  t.equal(removed.code, 2, 'refused');
  t.match(
    removed.stderr,
    /alice is the last user, and auth is on: the service would not start without one; add another user first \(edgeblocks user add NAME\), or turn auth off/,
  );
  t.match((await run(['user', 'list', '--config', cfg])).stdout, /^alice\n$/, 'alice is still there');
  service.child.kill('SIGTERM');
  await service.exited;
  const again = await startCli(['--config', cfg], {}, t);
  t.teardown(() => void again.child.kill('SIGKILL'));
  t.equal((await postJson(`${again.base}/auth/login`, { username: 'alice', password: 'a long password' })).status, 200);

  // With another user, or with auth off, the user goes.
  t.equal((await run(['user', 'add', 'bob', '--config', cfg], 'a long password\n')).code, 0);
  t.equal((await run(['user', 'remove', 'alice', '--config', cfg])).code, 0);
  t.equal((await run(['user', 'remove', 'bob', '--data-dir', dir])).code, 0, 'auth off (no config): removed');
});

t.test('on a terminal the password is asked twice and not echoed', async (t) => {
  const dir = tmp(t);
  const cmd = [process.execPath, CLI, 'user', 'add', 'carol', '--data-dir', dir].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (re: RegExp) => {
    const deadline = Date.now() + limit(30_000);
    while (!re.test(out)) {
      if (Date.now() > deadline) throw new Error(`no ${re} on the terminal; it shows: ${JSON.stringify(out)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  // readline moves the cursor after a prompt (ESC [ n G), so the prompt need not end the output.
  await waitFor(/password for carol: /);
  child.stdin.write('tty secret pw\r');
  await waitFor(/again: /);
  child.stdin.write('tty secret pw\r');
  t.equal(await exited, 0, out);
  t.match(out, /user carol added/);
  t.notMatch(out, /tty secret pw/, 'the password is not echoed');
  t.match(JSON.parse(readFileSync(path.join(dir, 'users.json'), 'utf8')).users.carol.hash, /^scrypt\$/);
});

t.test('a mistyped --data-dir is named, not made: only `user add` makes the data dir', async (t) => {
  const typo = path.join(tmp(t), 'dta');
  for (const args of [['list'], ['remove', 'alice'], ['role', 'alice', 'viewer'], ['token', 'alice']]) {
    const r = await run(['user', ...args, '--data-dir', typo]);
    t.equal(r.code, 2, `user ${args[0]}: exit 2`);
    t.match(r.stderr, /data dir .*dta.* does not exist/, `user ${args[0]}: names the missing dir`);
    t.notOk(existsSync(typo), `user ${args[0]}: the mistyped dir was not made`);
  }
  const add = await run(['user', 'add', 'alice', '--data-dir', typo], 'a long enough password\n');
  t.equal(add.code, 0, add.stderr);
  t.ok(existsSync(path.join(typo, 'users.json')), 'user add makes the dir and the file');
});
