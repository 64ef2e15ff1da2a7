// A data dir on a file system that went read-only (a Pi's SD card the kernel remounted read-only
// after errors, a card's write-protect switch): the service, `edgeblocks user` and `edgeblocks
// check` each say it in one line, naming the dir and what to do, exit 2, never a stack trace;
// nothing on the card is lost (it cannot be written). Before, the start said only "cannot start:
// EROFS: read-only file system, chmod DIR" (exit 1, the code for a crash) and `edgeblocks user
// add` died with a stack trace. Needs root (mount), which the test machine has; the built CLI.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { CLI } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { smallDisk } from '../helpers/small-disk.js';
import { needTools } from '../helpers/tools.js';

needTools('mount');

const disk = smallDisk('edgeblocks-readonly-', '8m');
t.teardown(() => disk.unmount());

function cli(args: string[], input = '') {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    input,
    encoding: 'utf8',
    timeout: limit(30_000),
    killSignal: 'SIGKILL',
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  return { code: r.status, out: r.stdout, err: r.stderr.trim() };
}

const READ_ONLY = /read-only file system.*remount it read-write.*or give (it )?another --data-dir/;

t.test('a data dir on a read-only file system: one line and exit 2 from each command', async (t) => {
  const data = path.join(disk.mountPoint, 'data');
  mkdirSync(data, { mode: 0o700 });
  const added = cli(['user', 'add', 'alice', '--data-dir', data], 'a long password\n');
  t.equal(added.code, 0, added.err);
  const before = readdirSync(data).sort();
  execFileSync('mount', ['-o', 'remount,ro', disk.mountPoint]);
  const start = ['--hardware', 'sim', '--port', '0', '--https-port', '0', '--mqtt-port', '0', '--auth'];

  const started = cli([...start, '--data-dir', data]);
  t.equal(started.code, 2, `${started.err}\n${started.out.slice(-500)}`);
  t.match(started.err, new RegExp(`^edgeblocks: .*${data}.*`));
  t.match(started.err, READ_ONLY);
  t.equal(started.err.split('\n').length, 1, 'one line');

  const fresh = cli([...start, '--data-dir', path.join(disk.mountPoint, 'new')]);
  t.equal(fresh.code, 2, fresh.err);
  t.match(fresh.err, READ_ONLY, 'a data dir to be made there');
  t.equal(fresh.err.split('\n').length, 1, 'one line');

  for (const args of [
    ['user', 'add', 'bob', '--data-dir', data],
    ['user', 'add', 'bob', '--data-dir', path.join(disk.mountPoint, 'new')],
  ]) {
    const user = cli(args, 'a long password\n');
    t.equal(user.code, 2, args.join(' '));
    t.match(user.err, /^edgeblocks user: /);
    t.match(user.err, READ_ONLY);
    t.equal(user.err.split('\n').length, 1, `${args.join(' ')}: one line, no stack trace`);
  }
  t.same(readdirSync(data).sort(), before, 'the data dir is as it was');
});
