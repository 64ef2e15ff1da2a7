// The command line of scripts/run-tests.ts, split into what it picks (--fast/--slow, test paths)
// and the options of each of its two tap runs. A pure function, so its split is tested alone
// (test/suite/run-args.test.ts).
import path from 'node:path';
import type { Selection } from './test-tags.js';

export interface RunArgs {
  only: Selection;
  /** Test folders or files, as given (`test/mqtt`). */
  paths: string[];
  /** Options of the run of the pool, side by side. */
  pool: string[];
  /** Options of the run of the files tagged alone, one at a time. */
  alone: string[];
}

const isPath = (a: string) => /^(\.\/)?test\//.test(a);

/**
 * `args` as run-tests.js takes them; `cores` sets the pool's jobs when none is given. The jobs,
 * given as tap takes them (`--jobs 2`, `--jobs=2`, `-j 2`, `-j2`), are read with their value as one
 * option, so the alone run, which runs one file at a time, drops both. Throws on jobs without a number.
 */
export function runArgs(args: string[], cores: number): RunArgs {
  let only: Selection = 'all';
  const paths: string[] = [];
  const tapArgs: string[] = [];
  let jobs: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const job = /^(?:--jobs|-j)(?:=?(.*))?$/.exec(a);
    if (job) {
      // `--jobs 2` and `-j 2` take the next argument; `--jobs=2`, `-j=2` and `-j2` carry it.
      const value = job[1] || (a === '--jobs' || a === '-j' ? args[++i] : undefined);
      if (value === undefined || !/^\d+$/.test(value))
        throw new Error(
          `--jobs needs a number of files to run at once, got ${value === undefined ? 'nothing' : `"${value}"`}`,
        );
      jobs = `--jobs=${value}`;
    } else if (a === '--slow') only = 'slow';
    else if (a === '--fast') only = only === 'slow' ? 'slow' : 'fast';
    else if (isPath(a)) paths.push(path.normalize(a).replace(/\/$/, ''));
    else tapArgs.push(a);
  }
  return {
    only,
    paths,
    pool: [jobs ?? `--jobs=${cores + 1}`, ...tapArgs],
    alone: [...tapArgs, '--jobs=1'],
  };
}
