// The settings in the CLI's first line (`#!/usr/bin/env -S VAR=value ... node FLAGS`): the
// environment and node flags it starts with as an executable. The unit, `npm start` and the
// bench start it the same way (test/deploy/heap-flags.test.ts holds them to it).
export interface CliShebang {
  /** `VAR=value` assignments, in order. */
  assignments: string[];
  /** The same as an environment. */
  env: Record<string, string>;
  flags: string[];
}

export function parseCliShebang(firstLine: string): CliShebang {
  const m = /^#!\/usr\/bin\/env -S ((?:[A-Z_]+=\S+ )*)node (.+)$/.exec(firstLine);
  if (!m) throw new Error(`not an "env -S [VAR=value ...] node FLAGS" line: ${firstLine}`);
  const assignments = m[1]!.split(' ').filter(Boolean);
  const env = Object.fromEntries(assignments.map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
  return { assignments, env, flags: m[2]!.split(' ').filter(Boolean) };
}
