// A writer of users.json killed (kill -9, the OOM killer, a power cut) between making one of its
// temporary files and renaming or removing it left that file in the data dir for good: the
// lock's `.users.json.lock.*.tmp`, the users file's own `.users.json.*.tmp`, a stale lock the
// release before moved aside (`users.json.lock.*.stale`). Each names its writer now (the last
// holds the dead holder's text), and the next writer that
// takes the lock (or a start of the service) removes those whose writer is gone; a live
// writer's, and anything not the users file's, stay. The kills here are real: the built CLI runs
// with a preload that sends it SIGKILL at the moment it would rename or remove such a file.
// tags: slow (the built CLI and service)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { addUser, CLI, startCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { assertBuilt } from '../mqtt/fixtures.js';

assertBuilt();
t.setTimeout(limit(120_000));

const BOOT_ID = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

const HOOK = `
const fs = require('node:fs');
const hit = new RegExp(process.env.KILL_AT);
for (const name of ['rmSync', 'renameSync']) {
  const real = fs[name];
  fs[name] = (...args) => {
    if (name === process.env.KILL_IN && hit.test(String(args[0]))) process.kill(process.pid, 'SIGKILL');
    return real(...args);
  };
}
require('node:module').syncBuiltinESMExports();
`;

function tmp(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-users-leftovers-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `edgeblocks user ARGS`, killed with SIGKILL when it calls `killAt[0]` (rmSync, renameSync) on a file matching `killAt[1]`. */
function user(dir: string, hook: string, args: string[], killAt?: ['rmSync' | 'renameSync', RegExp]) {
  return spawnSync(
    process.execPath,
    [...(killAt ? ['--require', hook] : []), CLI, 'user', ...args, '--data-dir', dir],
    {
      input: '',
      encoding: 'utf8',
      env: { ...process.env, KILL_IN: killAt?.[0] ?? '', KILL_AT: killAt?.[1].source ?? '' },
      timeout: limit(30_000),
      killSignal: 'SIGKILL',
    },
  );
}

const leftovers = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /\.(tmp|stale)$/.test(f))
    .sort();

t.test('temporary files of a killed writer are removed by the next one; others stay', async (t) => {
  const dir = tmp(t);
  const hook = path.join(dir, 'kill-hook.cjs');
  writeFileSync(hook, HOOK);
  addUser(dir, 'alice', 'a long password');

  // Killed after linking the lock, before removing its temporary file: the lock and the file stay.
  const a = user(dir, hook, ['token', 'alice'], ['rmSync', /\.users\.json\.lock\..*\.tmp$/]);
  t.equal(a.signal, 'SIGKILL', 'the first writer was killed');
  const fromA = leftovers(dir);
  t.same(
    fromA.map((f) => /^\.users\.json\.lock\..*\.tmp$/.test(f)),
    [true],
    'it left its temporary lock file',
  );
  // A stale lock moved aside by a writer of the release before, killed before it removed it
  // (its name gives no writer; its text, the dead holder's).
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const fromB = ['users.json.lock.0123456789abcdef.stale'];
  writeFileSync(path.join(dir, fromB[0]!), `${dead.stdout} ${BOOT_ID} x\n`, { mode: 0o600 });
  // Takes the lock (removing the two files above), then is killed before renaming its new users file into place.
  const c = user(dir, hook, ['token', 'alice'], ['renameSync', /\.users\.json\.[^l].*\.tmp$/]);
  t.equal(c.signal, 'SIGKILL', 'the second writer was killed');
  const left = leftovers(dir);
  t.notOk(
    left.some((f) => fromA.includes(f) || fromB.includes(f)),
    'the writer that took the lock removed what the killed ones left',
  );
  t.same(
    left.map((f) => /^\.users\.json\.\d+-.*\.tmp$/.test(f)),
    [true],
    'the second left its temporary users file',
  );

  // What is not the users file's stays, and so does what a live writer (this process) has made.
  writeFileSync(path.join(dir, '.edgeblocks.db.0123456789abcdef.tmp'), 'not ours');
  const live = fromA[0]!.replace(/\.\d+-/, `.${process.pid}-`);
  writeFileSync(path.join(dir, live), `${process.pid} x y\n`);

  const d = user(dir, hook, ['token', 'alice']);
  t.equal(d.status, 0, d.stderr);
  t.same(leftovers(dir), ['.edgeblocks.db.0123456789abcdef.tmp', live].sort(), 'the killed writers’ files are gone');
});

t.test('a start of the service removes them too', async (t) => {
  const dir = tmp(t);
  const hook = path.join(dir, 'kill-hook.cjs');
  writeFileSync(hook, HOOK);
  addUser(dir, 'alice', 'a long password');
  const killed = user(dir, hook, ['token', 'alice'], ['rmSync', /\.users\.json\.lock\..*\.tmp$/]);
  t.equal(killed.signal, 'SIGKILL', 'the writer was killed');
  t.equal(leftovers(dir).length, 1, 'its temporary lock file was left');
  const cfg = path.join(dir, 'config.json');
  writeFileSync(cfg, JSON.stringify({ auth: true, dataDir: dir, hardware: 'sim', mqttPort: 0 }));
  const service = await startCli(['--config', cfg], {}, t);
  t.teardown(() => void service.child.kill('SIGKILL'));
  t.same(leftovers(dir), [], 'the start removed it');
});
