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

const JOB_FORMS = '-j N, -jN, --jobs N or --jobs=N';

/**
 * The jobs option at `args[i]` (every argument that starts with -j or --jobs is one, as tap reads
 * it), as tap takes it and nothing else: `-j N`, `-jN`, `--jobs N`, `--jobs=N`, N a whole number
 * from 1. Returns the number and how many arguments it took; throws naming the argument.
 */
function jobsAt(args: string[], i: number): { value: string; taken: number } {
  const a = args[i]!;
  const form = /^(?:(-j|--jobs)|-j(.+)|--jobs=(.*))$/.exec(a);
  if (!form || (form[2] !== undefined && !/^\d/.test(form[2])))
    throw new Error(`${a}: not an option; the number of files to run at once is given as ${JOB_FORMS}`);
  const spaced = form[1] !== undefined;
  const value = spaced ? args[i + 1] : (form[2] ?? form[3])!;
  const named = spaced ? `${a}${value === undefined ? '' : ` ${value}`}` : a;
  if (value === undefined || !/^\d+$/.test(value) || Number(value) < 1)
    throw new Error(
      `${named}: --jobs needs a number of files to run at once, a whole number >= 1 (${JOB_FORMS}), got ${value === undefined ? 'nothing' : JSON.stringify(value)}`,
    );
  return { value, taken: spaced ? 2 : 1 };
}

/**
 * `args` as run-tests.js takes them; `cores` sets the pool's jobs when none is given. The jobs,
 * given as tap takes them (`--jobs 2`, `--jobs=2`, `-j 2`, `-j2`), are read with their value as one
 * option, so the alone run, which runs one file at a time, drops both. Throws, naming the
 * argument, on any other argument that starts with -j or --jobs and on jobs that are not a whole
 * number from 1.
 */
export function runArgs(args: string[], cores: number): RunArgs {
  let only: Selection = 'all';
  const paths: string[] = [];
  const tapArgs: string[] = [];
  let jobs: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('-j') || a.startsWith('--jobs')) {
      const { value, taken } = jobsAt(args, i);
      i += taken - 1;
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
