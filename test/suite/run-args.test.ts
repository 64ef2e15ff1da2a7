// The command line of run-tests.js split into its two tap runs: `npm test -- --jobs 2` (with a
// space, as tap itself takes it) left the `2` in the run of the files tagged alone, where tap took
// it as a file to run. Each run gets exactly the options meant: the pool the jobs asked for, the
// alone run one job and every other option.
import t from 'tap';
import { runArgs } from '../../scripts/run-args.js';

t.test('no jobs given: the pool runs one file more than cores, the alone run one', async (t) => {
  const r = runArgs(['--bail', 'test/mqtt/', 'test/api/x.test.ts'], 2);
  t.same(r.pool, ['--jobs=3', '--bail']);
  t.same(r.alone, ['--bail', '--jobs=1']);
  t.same(r.paths, ['test/mqtt', 'test/api/x.test.ts']);
  t.equal(r.only, 'all');
});

t.test('the jobs given, in every way tap takes them, go to the pool alone', async (t) => {
  for (const given of [['--jobs', '2'], ['--jobs=2'], ['-j', '2'], ['-j2'], ['-j=2']]) {
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
