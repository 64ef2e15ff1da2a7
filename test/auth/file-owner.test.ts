// The data dir's files belong to the user the service runs as (issue 24.10): `sudo edgeblocks
// user add` on a data dir of the service user writes a users file that user can read, and a
// start that cannot read or write its files exits 2 with one line naming the file and the chown
// that fixes it (no EACCES/EPERM stack, no exit 1). The service runs here as `nobody`.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { CLI } from '../helpers/cli.js';
import { assertBuilt } from '../mqtt/fixtures.js';

assertBuilt();
t.setTimeout(limit(300_000));

const NOBODY = 65534;
const base = mkdtempSync(path.join(tmpdir(), 'edgeblocks-owner-'));
chmodSync(base, 0o755); // the service user must reach the data dirs inside
t.teardown(() => rmSync(base, { recursive: true, force: true }));

const isRoot = process.getuid?.() === 0;
// tap hooks the node processes a test spawns (NODE_OPTIONS) to write into .tap/, which `nobody`
// may not: the CLI is started through env(1) without it.
const childEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(NODE_OPTIONS|TAP|_TAPJS)/.test(k)));

/** The CLI as root, or as `nobody`; resolves on exit, or on its HTTP port when `untilListening`. */
function run(
  args: string[],
  opts: { as?: number; stdin?: string; untilListening?: boolean } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const ids = opts.as === undefined ? {} : { uid: opts.as, gid: opts.as };
    const child = spawn('/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, CLI, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: childEnv,
      ...ids,
    });
    let stdout = '';
    let stderr = '';
    const listening = () => {
      if (opts.untilListening && /http listening/.test(stdout)) child.kill('SIGTERM');
    };
    child.stdout.on('data', (c: Buffer) => ((stdout += c.toString()), listening()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), limit(30000));
    child.on('error', reject);
    child.on('exit', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
    child.stdin.end(opts.stdin ?? '');
  });
}

function dataDir(name: string, owner: number): string {
  const dir = path.join(base, name);
  mkdirSync(dir, { mode: 0o700 });
  chownSync(dir, owner, owner);
  return dir;
}

const serve = (dir: string) => [
  '--port',
  '0',
  '--https-port',
  '0',
  '--mqtt-port',
  '0',
  '--hardware',
  'sim',
  '--auth',
  'true',
  '--data-dir',
  dir,
];

t.test(
  "root adds a user on the service user's data dir: the service can read the file",
  { skip: !isRoot && 'needs root' },
  async (t) => {
    const dir = dataDir('owned', NOBODY);
    const added = await run(['user', 'add', 'alice', '--data-dir', dir], { stdin: 'a long password\n' });
    t.equal(added.code, 0, added.stderr);
    const file = path.join(dir, 'users.json');
    t.match(statSync(file), { uid: NOBODY, gid: NOBODY }, "users.json belongs to the data dir's owner");
    t.equal(statSync(file).mode & 0o777, 0o600, 'and stays 0600');
    const token = await run(['user', 'token', 'alice', '--data-dir', dir]);
    t.equal(token.code, 0, token.stderr);
    t.match(statSync(file), { uid: NOBODY, gid: NOBODY }, 'a rewrite keeps the owner');

    const started = await run(serve(dir), { as: NOBODY, untilListening: true });
    t.match(started.stdout, /http listening/, `the service, as nobody, starts with auth on: ${started.stderr}`);
    t.equal(
      started.code,
      0,
      `and stops cleanly: ${started.stdout
        .split('\n')
        .filter((l) => /"level":[5-6]0|stopped/.test(l))
        .join('\n')}`,
    );
  },
);

t.test(
  'a users file the service user cannot read: exit 2, the file and the fix named',
  { skip: !isRoot && 'needs root' },
  async (t) => {
    const dir = dataDir('root-users', NOBODY);
    const added = await run(['user', 'add', 'bob', '--data-dir', dir], { stdin: 'a long password\n' });
    t.equal(added.code, 0, added.stderr);
    const file = path.join(dir, 'users.json');
    chownSync(file, 0, 0); // as an older `sudo edgeblocks user add` left it

    const start = await run(serve(dir), { as: NOBODY });
    t.equal(start.code, 2, `exit code 2: ${start.stderr}`);
    t.same(start.stderr.trim().split('\n'), [
      `edgeblocks: cannot use ${file} (EACCES: open as user nobody): the data dir and its files must belong to the user edgeblocks runs as; fix: sudo chown -R nobody: ${dir}`,
    ]);
    t.notMatch(start.stdout + start.stderr, /at .*\.js:\d+|"stack"/, 'no stack trace');

    const list = await run(['user', 'list', '--data-dir', dir], { as: NOBODY });
    t.equal(list.code, 2, `the user command too: ${list.stderr}`);
    t.match(list.stderr, `edgeblocks user: cannot use ${file} (EACCES`);
    t.match(list.stderr, `fix: sudo chown -R nobody: ${dir}`);
  },
);

t.test(
  'the command without root on the service user\'s data dir: not "no users", and the fix is sudo, not a chown',
  { skip: !isRoot && 'needs root' },
  async (t) => {
    const SERVICE = 12345; // the service user; the command runs as nobody (a login user without sudo)
    const dir = dataDir('service-owned', SERVICE);
    const added = await run(['user', 'add', 'alice', '--data-dir', dir], { stdin: 'a long password\n' });
    t.equal(added.code, 0, added.stderr);
    const file = path.join(dir, 'users.json');
    for (const args of [['list'], ['remove', 'alice'], ['add', 'eve']]) {
      const result = await run(['user', ...args, '--data-dir', dir], { as: NOBODY, stdin: 'a long password\n' });
      t.equal(result.code, 2, `${args[0]}: exit 2: ${result.stdout}${result.stderr}`);
      t.notMatch(
        result.stdout + result.stderr,
        /no users|no user "alice"/,
        `${args[0]}: the users are not taken for none`,
      );
      t.same(result.stderr.trim().split('\n'), [
        `edgeblocks user: cannot use ${file} (EACCES: open as user nobody): the data dir ${dir} belongs to uid ${SERVICE}; run the command as root, which works as that user: sudo edgeblocks user ${args.join(' ')} --data-dir ${dir}`,
      ]);
    }
    const list = await run(['user', 'list', '--data-dir', dir]);
    t.equal(list.stdout, 'alice\n', 'the file is unchanged');
  },
);

t.test(
  'a data dir the service user cannot write: exit 2, the dir and the fix named',
  { skip: !isRoot && 'needs root' },
  async (t) => {
    const dir = dataDir('root-dir', 0);
    chmodSync(dir, 0o755);
    const start = await run(
      serve(dir).filter((a) => a !== '--auth' && a !== 'true'),
      { as: NOBODY },
    );
    t.equal(start.code, 2, `exit code 2: ${start.stderr}`);
    t.same(start.stderr.trim().split('\n'), [
      `edgeblocks: cannot use ${dir} (EPERM: chmod as user nobody): the data dir and its files must belong to the user edgeblocks runs as; fix: sudo chown -R nobody: ${dir}`,
    ]);
  },
);

t.test(
  'a data dir that does not exist and may not be made: the fix creates it (a chown would find nothing)',
  { skip: !isRoot && 'needs root' },
  async (t) => {
    const parent = dataDir('root-parent', 0);
    chmodSync(parent, 0o755);
    const dir = path.join(parent, 'data');
    const fix = `fix: sudo mkdir -p ${dir} && sudo chown nobody: ${dir}, or give another --data-dir`;
    const start = await run(serve(dir), { as: NOBODY });
    t.equal(start.code, 2, `exit code 2: ${start.stderr}`);
    t.same(start.stderr.trim().split('\n'), [
      `edgeblocks: cannot use ${dir} (EACCES: mkdir as user nobody): the data dir does not exist and this user may not create it; ${fix}`,
    ]);
    const add = await run(['user', 'add', 'alice', '--data-dir', dir], { as: NOBODY, stdin: 'a long password\n' });
    t.equal(add.code, 2, add.stderr);
    t.match(add.stderr, fix, 'the user command too');
  },
);

t.test(
  'nothing root writes follows a link the service user planted (issue 45.2)',
  { skip: !isRoot && 'needs root' },
  async (t) => {
    const dir = dataDir('planted', NOBODY);
    // A root file the service user must not be able to take or change.
    const victim = path.join(base, 'victim');
    writeFileSync(victim, 'root only\n', { mode: 0o644 });
    // The temporary names of every process id the CLI may get (it used users.json.<pid>.tmp), and
    // the users file itself, as links to it.
    const next = spawnSync('true').pid ?? 0;
    for (let pid = next; pid < next + 3000; pid++) symlinkSync(victim, path.join(dir, `users.json.${pid}.tmp`));
    for (const f of readdirSync(dir)) lchownSync(path.join(dir, f), NOBODY, NOBODY);

    const added = await run(['user', 'add', 'alice', '--data-dir', dir], { stdin: 'a long password\n' });
    t.equal(added.code, 0, added.stderr);
    t.equal(readFileSync(victim, 'utf8'), 'root only\n', 'the linked root file is unchanged');
    t.match(statSync(victim), { uid: 0, gid: 0 }, 'and still belongs to root');
    t.equal(statSync(victim).mode & 0o777, 0o644, 'with its mode');
    const users = path.join(dir, 'users.json');
    t.ok(lstatSync(users).isFile(), 'users.json is a file of its own');
    t.match(lstatSync(users), { uid: NOBODY, gid: NOBODY }, "the data dir owner's");

    // users.json itself a link to a root file: replaced, never written through.
    rmSync(users);
    symlinkSync(victim, users);
    lchownSync(users, NOBODY, NOBODY);
    const again = await run(['user', 'add', 'bob', '--data-dir', dir], { stdin: 'a long password\n' });
    t.not(again.code, 0, 'a users file that is a link to something else is refused');
    t.equal(readFileSync(victim, 'utf8'), 'root only\n', 'the root file is unchanged');
    t.match(statSync(victim), { uid: 0, gid: 0 });
  },
);
