// The command line of run-tests.js split into its two tap runs: `npm test -- --jobs 2` (with a
// space, as tap itself takes it) left the `2` in the run of the files tagged alone, where tap took
// it as a file to run. Each run gets exactly the options meant: the pool the jobs asked for, the
// alone run one job and every other option.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { runArgs } from '../../scripts/run-args.js';
import { ROOT } from '../helpers/root.js';
import { limit } from '../helpers/limits.js';

const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

t.test('no jobs given: the pool runs one file more than cores, the alone run one', async (t) => {
  const r = runArgs(['--bail', 'test/mqtt/', 'test/api/x.test.ts'], 2);
  t.same(r.pool, ['--jobs=3', '--bail']);
  t.same(r.alone, ['--bail', '--jobs=1']);
  t.same(r.paths, ['test/mqtt', 'test/api/x.test.ts']);
  t.equal(r.only, 'all');
});

t.test('the jobs given, in every way tap takes them, go to the pool alone', async (t) => {
  for (const given of [['--jobs', '2'], ['--jobs=2'], ['-j', '2'], ['-j2']]) {
    const r = runArgs(['--fast', ...given, '--bail', 'test/suite'], 8);
    t.same(r.pool, ['--jobs=2', '--bail'], `${given.join(' ')}: the pool`);
    t.same(r.alone, ['--bail', '--jobs=1'], `${given.join(' ')}: the alone run, no stray value`);
    t.same(r.paths, ['test/suite'], `${given.join(' ')}: paths`);
    t.equal(r.only, 'fast');
  }
});

t.test('an option with its value as the next argument stays whole in both runs', async (t) => {
  const r = runArgs(['--grep', 'slow start', '--slow', '--jobs', '4'], 2);
  t.same(r.pool, ['--jobs=4', '--grep', 'slow start']);
  t.same(r.alone, ['--grep', 'slow start', '--jobs=1']);
  t.equal(r.only, 'slow');
});

t.test('--jobs without a number is refused, naming it', async (t) => {
  for (const args of [['--jobs'], ['--jobs', 'test/mqtt'], ['-j', '--bail'], ['--jobs=many']])
    t.throws(() => runArgs(args, 2), /--jobs .*a number/, args.join(' '));
});

t.test('jobs below one, or not whole, are refused, naming the argument', async (t) => {
  const bad: Array<[string[], string]> = [
    [['--jobs', '0'], '--jobs 0'],
    [['--jobs=0'], '--jobs=0'],
    [['-j', '0'], '-j 0'],
    [['-j0'], '-j0'],
    [['--jobs', '1.5'], '--jobs 1.5'],
    [['--jobs=-1'], '--jobs=-1'],
    [['-j', '2x'], '-j 2x'],
  ];
  for (const [args, named] of bad)
    t.throws(
      () => runArgs(args, 2),
      { message: new RegExp(`^${escape(named)}: .*a whole number >= 1`) },
      `${args.join(' ')}: refused as ${named}`,
    );
});

t.test('an argument that only starts like the jobs is refused as no option, not read as a count', async (t) => {
  for (const [args, named] of [
    [['--jobsx', '3'], '--jobsx'],
    [['--jobs3'], '--jobs3'],
    [['-jfoo'], '-jfoo'],
    [['-j=2'], '-j=2'],
    [['--jobs-max=2'], '--jobs-max=2'],
  ] as Array<[string[], string]>)
    t.throws(
      () => runArgs(args, 2),
      { message: new RegExp(`^${escape(named)}: .*-j N, -jN, --jobs N or --jobs=N`) },
      `${args.join(' ')}: names ${named} and the forms taken`,
    );
});

t.test('run-tests.js: a bad jobs argument is one line naming it, exit code 2, before any test runs', async (t) => {
  for (const [args, named] of [
    [['--jobsx', '3'], '--jobsx'],
    [['--jobs', '0'], '--jobs 0'],
    [['-jfoo'], '-jfoo'],
  ] as Array<[string[], string]>) {
    // A folder that is not there: were the argument taken, the run would stop on it (exit 1), not
    // run tap (this file among the tests it would run).
    const res = spawnSync(
      process.execPath,
      [path.join(ROOT, 'dist/scripts/run-tests.js'), ...args, 'test/no-such-folder'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: limit(30_000),
        killSignal: 'SIGKILL',
      },
    );
    t.equal(res.status, 2, `${args.join(' ')}: exit code 2 (stderr: ${res.stderr})`);
    const lines = res.stderr.trim().split('\n');
    t.equal(lines.length, 1, `${args.join(' ')}: one line`);
    t.match(lines[0], new RegExp(`^run-tests: ${escape(named)}: `), `${args.join(' ')}: names ${named}`);
    t.equal(res.stdout, '', `${args.join(' ')}: no tap run`);
  }
});
