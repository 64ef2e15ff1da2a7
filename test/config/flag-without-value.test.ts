// A flag that takes a value, given none before the next flag (`--data-dir --auth`: the path left
// out), is refused naming it, exit code 2. node:util's parseArgs, as edgeblocks calls it, took the
// next flag as the value: the service started on a data dir named `--auth`, without the login
// asked for, and `edgeblocks user add --data-dir --role admin` added the user to a new dir `--role`.
// A value that starts with a dash is given with `=` (`--data-dir=-odd`); a negative number is a
// value (`--port -1` is refused for its range, as before).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { parseArgs } from '../../src/config.js';
import { CLI } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-flag-value-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** The built CLI in `dir`, a password on stdin for `user add`. */
const cli = (args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], {
    cwd: dir,
    input: 'a-long-password\n',
    encoding: 'utf8',
    timeout: limit(15000),
    killSignal: 'SIGKILL',
  });

t.test('the service: a value left out before the next flag is refused, naming the flag', async (t) => {
  const res = cli(['check', '--data-dir', '--auth']);
  t.equal(res.status, 2, res.stdout + res.stderr);
  t.equal(
    res.stderr,
    'edgeblocks: configuration error: --data-dir: needs a value, got the option --auth (a value that starts with - is written --data-dir=-VALUE)\n',
  );
  t.notOk(existsSync(path.join(dir, '--auth')));
  t.throws(() => parseArgs(['--config', '--hardware', 'sim']), {
    message: /^--config: needs a value, got the option --hardware/,
  });
  t.throws(() => parseArgs(['--log-level', '-v']), { message: /^--log-level: needs a value, got the option -v/ });
});

t.test('edgeblocks user: the same, and no user is added anywhere', async (t) => {
  const add = cli(['user', 'add', '--data-dir', '--role', 'admin']);
  t.equal(add.status, 2, add.stdout + add.stderr);
  t.match(add.stderr, /^edgeblocks user: --data-dir: needs a value, got the option --role/);
  t.notOk(existsSync(path.join(dir, '--role')), 'no data dir named --role');
  const role = cli(['user', 'add', 'bob', '--role', '--data-dir', path.join(dir, 'data')]);
  t.equal(role.status, 2, role.stdout + role.stderr);
  t.match(role.stderr, /^edgeblocks user: --role: needs a value, got the option --data-dir/);
});

t.test('a value with a dash: with =, or a negative number', async (t) => {
  t.equal(parseArgs(['--data-dir=-odd']).values.dataDir, '-odd');
  t.equal(parseArgs(['--service-id', 'a', '--port', '-1']).values.port, '-1', 'a negative number is a value');
  const res = cli(['check', '--port', '-1']);
  t.equal(res.status, 2);
  t.match(res.stderr, /^edgeblocks: configuration error: port \(flag --port\): must be an integer 0-65535, got -1/);
});
