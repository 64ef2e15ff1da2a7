// users.json has two kinds of writers, `edgeblocks user ...` (the built CLI, another process) and
// the service (a logout raises the user's session generation). Each re-reads the file before it
// changes it, but two at once both read the same copy, and the second rename undid the first's
// change: a user added by one command vanished, a logout's end of the sessions was undone. Every
// writer now holds users.json.lock while it reads, changes and writes; a lock nobody frees within
// the wait is a clear error, and nothing is written.
// tags: slow (the built CLI, one process per command; a lock held past the 10 s wait)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { addUser, CLI } from '../helpers/cli.js';
import { spawnOwned } from '../helpers/children.js';
import { limit } from '../helpers/limits.js';
import { needTools } from '../helpers/tools.js';
import { readPage } from '../helpers/markdown.js';
import { until } from '../helpers/until.js';
import { assertBuilt } from '../mqtt/fixtures.js';
import { setup } from './auth-app.js';

needTools('mkfifo');
assertBuilt();
t.setTimeout(limit(180_000));

const BOOT_ID = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

interface Cli {
  stdin: NodeJS.WritableStream;
  stderr: () => string;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** `edgeblocks user ARGS` as a child; its stdin stays open until the test ends it. */
function cli(t: Test, args: string[]): Cli {
  const child = spawnOwned(process.execPath, [CLI, 'user', ...args], { stdio: ['pipe', 'pipe', 'pipe'] }, t);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { stdin: child.stdin!, stderr: () => stderr, exited };
}

function mkfifo(file: string): void {
  const made = spawnSync('mkfifo', ['-m', '600', file], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`mkfifo ${file}: ${made.stderr}`);
}

/** Open the FIFO for writing: resolves once a reader has opened it. Unblocked at teardown. */
async function writerOf(t: Test, fifo: string) {
  t.teardown(async () => {
    // A reader that never came: open the read end so the pending open returns.
    try {
      const r = await open(fifo, 'r+');
      await r.close();
    } catch {}
  });
  return open(fifo, 'w');
}

const tmp = (t: Test) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-users-lock-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};
const usersIn = (dir: string) => Object.keys(JSON.parse(readFileSync(path.join(dir, 'users.json'), 'utf8')).users);

t.test('two `edgeblocks user add` at once: both users are kept', async (t) => {
  const dir = tmp(t);
  const file = path.join(dir, 'users.json');
  addUser(dir, 'alice', 'a long password');
  const real = readFileSync(file);
  // The first command (A) reads users.json through a FIFO, so the test holds it between its read
  // and its write for as long as it likes: its start-up read through one FIFO, the read of its
  // change through a second.
  unlinkSync(file);
  mkfifo(file);
  const a = cli(t, ['add', 'bob', '--data-dir', dir]);
  const first = await writerOf(t, file);
  await first.write(real);
  await first.close();
  unlinkSync(file);
  mkfifo(file);
  a.stdin.end('bobs password\n');
  const second = await writerOf(t, file);
  // A has read nothing yet of what it changes; the real file goes back, and B adds carol to it.
  writeFileSync(`${file}.back`, real, { mode: 0o600 });
  renameSync(`${file}.back`, file);
  const b = cli(t, ['add', 'carol', '--data-dir', dir]);
  b.stdin.end('carols password\n');
  const bWaits = until(() => /waiting/.test(b.stderr()), 'B saying it waits', 20_000).then(() => 'waits');
  const seen = await Promise.race([b.exited.then(() => 'exited'), bWaits]);
  t.comment(`B ${seen} while A was between its read and its write`);
  if (seen === 'waits')
    t.match(
      b.stderr(),
      `edgeblocks user: ${file} is being changed by process `,
      'B says who holds the file while it waits',
    );
  await second.write(real);
  await second.close();
  const [ra, rb] = await Promise.all([a.exited, b.exited]);
  t.equal(ra.code, 0, ra.stderr);
  t.equal(rb.code, 0, rb.stderr);
  t.same(usersIn(dir).sort(), ['alice', 'bob', 'carol'], 'neither command lost the other’s user');
  t.notOk(existsSync(`${file}.lock`), 'the lock is gone');
});

t.test('a logout while `edgeblocks user` holds the file: the logout waits, and both changes stay', async (t) => {
  const { dataDir, login, call, log } = await setup(t);
  const file = path.join(dataDir, 'users.json');
  const s = await login();
  const read = () => call('POST', '/edge-one/blocks/all/read', { cookie: s.cookie });
  t.equal((await read()).status, 200, 'the session works');
  // A `user add` (here: this process) takes the lock, reads the file, ...
  writeFileSync(`${file}.lock`, `${process.pid} ${BOOT_ID} test\n`, { mode: 0o600 });
  const copy = JSON.parse(readFileSync(file, 'utf8'));
  const logout = call('POST', '/auth/logout', { cookie: s.cookie });
  const waits = until(() => /waiting/.test(log()), 'the service saying the logout waits', 20_000).then(() => 'waits');
  const seen = await Promise.race([logout.then(() => 'answered'), waits]);
  t.comment(`the logout ${seen} while the file was held`);
  // ... writes its change and frees the lock.
  copy.users.bob = { ...copy.users.alice, created: new Date().toISOString() };
  writeFileSync(`${file}.new`, JSON.stringify(copy), { mode: 0o600 });
  renameSync(`${file}.new`, file);
  unlinkSync(`${file}.lock`);
  t.equal((await logout).status, 200, 'the logout is answered');
  t.equal((await read()).status, 401, 'the logged-out session stays refused');
  t.same(usersIn(dataDir).sort(), ['alice', 'bob'], 'bob is kept');
  // The session's end is in the users file too, written after the held change (logouts.json alone
  // would keep the session refused in this run).
  const gen = (f: { users: Record<string, { sessionGen?: number }> }) => f.users.alice?.sessionGen ?? 0;
  t.ok(gen(JSON.parse(readFileSync(file, 'utf8'))) > gen(copy), "the logout's generation is in users.json");
});

t.test('a lock held past the wait: a clear error, nothing changed; a dead holder’s lock is taken over', async (t) => {
  const dir = tmp(t);
  const file = path.join(dir, 'users.json');
  addUser(dir, 'alice', 'a long password');
  const before = readFileSync(file, 'utf8');
  // Written by a holder that could not read its boot id (a sandbox hiding /proc/sys): its pid is
  // alive, so the lock holds (the logout test below holds one with this boot's id).
  writeFileSync(`${file}.lock`, `${process.pid} unknown test\n`, { mode: 0o600 });
  const held = cli(t, ['token', 'alice', '--data-dir', dir]);
  held.stdin.end();
  const r = await held.exited;
  t.equal(r.code, 1, 'exit 1');
  t.match(
    r.stderr,
    `edgeblocks user: ${file} is being changed by process ${process.pid} (another \`edgeblocks user\` command, or the service recording a logout) and was not free within 10 s; nothing was changed: try again. If process ${process.pid} is not edgeblocks (the holder was killed and its number reused), remove ${file}.lock`,
  );
  t.equal(readFileSync(file, 'utf8'), before, 'the users file is as it was');
  // Troubleshooting quotes the line as a Pi prints it.
  const said = r.stderr
    .trim()
    .replaceAll(dir, '/var/lib/edgeblocks')
    .replaceAll(`process ${process.pid} `, 'process 1234 ')
    .split('\n')
    .at(-1)!;
  t.ok(
    readPage('docs/troubleshooting.md').includes(`**\`\` ${said} \`\`.**`),
    `docs/troubleshooting.md quotes: ${said}`,
  );
  t.notOk(r.stdout.includes('ebt_'), 'no token was shown');

  // A holder that died (a pid no process has) or one of an earlier boot left its lock behind.
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  for (const stale of [
    `${gone.stdout} ${BOOT_ID} x\n`,
    `${process.pid} 00000000-0000-0000-0000-000000000000 x\n`,
    '',
  ]) {
    writeFileSync(`${file}.lock`, stale, { mode: 0o600 });
    const taken = cli(t, ['token', 'alice', '--data-dir', dir]);
    taken.stdin.end();
    const res = await taken.exited;
    t.equal(res.code, 0, `${JSON.stringify(stale)}: ${res.stderr}`);
    t.match(res.stdout, /^ebt_/);
    t.notOk(existsSync(`${file}.lock`), 'the stale lock is gone');
  }
});

t.test('a logout the users file is held from for the whole wait: 503, and logging out again works', async (t) => {
  const { dataDir, login, call, log } = await setup(t);
  const file = path.join(dataDir, 'users.json');
  const s = await login();
  writeFileSync(`${file}.lock`, `${process.pid} ${BOOT_ID} test\n`, { mode: 0o600 });
  const out = await call('POST', '/auth/logout', { cookie: s.cookie });
  t.equal(out.status, 503);
  t.match(out.body.message, /the logout was not recorded: the users file on the controller was being changed/);
  t.equal(out.setCookie, null, 'the cookie is kept, to log out again');
  t.match(log(), `is being changed by process ${process.pid}`, 'the log names the holder');
  t.match(log(), 'the logout of alice was not recorded');
  unlinkSync(`${file}.lock`);
  t.equal((await call('POST', '/auth/logout', { cookie: s.cookie })).status, 200, 'logged out again');
  t.equal((await call('POST', '/edge-one/blocks/all/read', { cookie: s.cookie })).status, 401, 'the session ended');
});
