// Three writers of users.json at a stale lock (its holder killed). B reads it as stale; before B
// acts on that, C takes the lock over (it is stale) and is changing the file. B then took C's
// live lock for the stale one: it moved it aside, found it was not the stale one and put it back,
// but while it was away A found no lock, took it, and wrote; so A and C both held the lock, and
// C's write undid A's change (a user A added was lost). The CLI processes run with a preload that
// holds each one at the step named (no timing is relied on: each step waits for the one before).
// tags: slow (the built CLI, four processes)
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { addUser, CLI } from '../helpers/cli.js';
import { spawnOwned } from '../helpers/children.js';
import { limit } from '../helpers/limits.js';
import { until } from '../helpers/until.js';
import { assertBuilt } from '../mqtt/fixtures.js';

assertBuilt();
t.setTimeout(limit(120_000));

const BOOT_ID = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

// PAUSES: [{fn, arg0, arg1?, after?, nth?, go}]: at the nth call of fs[fn] whose first (and second)
// argument matches, write GO.reached and wait until GO exists.
const HOOK = `
const fs = require('node:fs');
const pauses = JSON.parse(process.env.PAUSES || '[]').map((p) => ({ ...p, seen: 0 }));
const hold = (p) => {
  fs.writeFileSync(p.go + '.reached', '');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!fs.existsSync(p.go)) Atomics.wait(pause, 0, 0, 10);
};
for (const name of new Set(pauses.map((p) => p.fn))) {
  const real = fs[name];
  fs[name] = (...args) => {
    const hit = pauses.find((p) => p.fn === name && new RegExp(p.arg0).test(String(args[0])) &&
      (p.arg1 === undefined || new RegExp(p.arg1).test(String(args[1]))) && ++p.seen === (p.nth ?? 1));
    if (hit && !hit.after) hold(hit);
    const out = real(...args);
    if (hit && hit.after) hold(hit);
    return out;
  };
}
require('node:module').syncBuiltinESMExports();
`;

interface Pause {
  fn: 'readFileSync' | 'renameSync';
  arg0: string;
  arg1?: string;
  after?: boolean;
  nth?: number;
  go: string;
}

function add(t: Test, dir: string, hook: string, name: string, pauses: Pause[] = []) {
  const child = spawnOwned(
    process.execPath,
    ['--require', hook, CLI, 'user', 'add', name, '--data-dir', dir],
    { env: { ...process.env, PAUSES: JSON.stringify(pauses) }, stdio: ['pipe', 'pipe', 'pipe'] },
    t,
  );
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin!.end(`${name}s long password\n`);
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let done = false;
  void exited.then(() => (done = true));
  return { exited, stderr: () => stderr, done: () => done };
}

t.test('three `edgeblocks user add` at a stale lock: every user is kept', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-users-lock-three-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const hook = path.join(dir, 'pause-hook.cjs');
  writeFileSync(hook, HOOK);
  const go = (name: string) => path.join(dir, `go-${name}`);
  const reached = (name: string) => existsSync(`${go(name)}.reached`);
  const release = (name: string) => writeFileSync(go(name), '');
  addUser(dir, 'alice', 'a long password');
  const file = path.join(dir, 'users.json');
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  writeFileSync(`${file}.lock`, `${gone.stdout} ${BOOT_ID} stale\n`, { mode: 0o600 });

  // All three start at once, each held where needed, so none is slower to start than the steps
  // below (a writer gives up after 10 s). A and C are held at their first read of users.json,
  // before they try the lock; B at its second read of the lock (after its own could not be
  // linked), having found it stale.
  const firstRead = (name: string): Pause => ({ fn: 'readFileSync', arg0: 'users\\.json$', after: true, go: go(name) });
  const a = add(t, dir, hook, 'dave', [firstRead('a')]);
  const b = add(t, dir, hook, 'bob', [
    { fn: 'readFileSync', arg0: 'users\\.json\\.lock$', after: true, nth: 2, go: go('b1') },
    { fn: 'renameSync', arg0: 'users\\.json\\.lock$', arg1: '\\.stale$', after: true, go: go('b2') },
  ]);
  const c = add(t, dir, hook, 'carol', [
    firstRead('c0'),
    { fn: 'renameSync', arg0: '/\\.users\\.json\\.[^l]', go: go('c') },
  ]);
  await until(() => reached('a') && reached('b1') && reached('c0'), 'the three started and held', 20_000);
  // C takes the stale lock over and is held before it puts its new users file in place.
  release('c0');
  await until(() => reached('c'), 'C writing under the lock', 20_000);
  release('b1');
  await until(() => reached('b2') || /waiting/.test(b.stderr()), 'B acting on what it read', 20_000);
  t.comment(reached('b2') ? 'B moved the lock aside' : 'B waits for C');
  // A, while B is where it is: it must wait for C.
  release('a');
  await until(() => a.done() || /waiting/.test(a.stderr()), 'A taking the lock or waiting', 20_000);
  t.notOk(a.done(), 'A waits for C, who holds the lock');
  release('b2');
  release('c');
  const codes = await Promise.all([a.exited, b.exited, c.exited]);
  t.same(codes, [0, 0, 0], `${a.stderr()}${b.stderr()}${c.stderr()}`);
  t.same(
    Object.keys(JSON.parse(readFileSync(file, 'utf8')).users).sort(),
    ['alice', 'bob', 'carol', 'dave'],
    'no writer lost another’s user',
  );
  t.notOk(existsSync(`${file}.lock`), 'the lock is gone');
});
