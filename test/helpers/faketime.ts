// A moved wall clock for the built service: libfaketime preloaded, its offset read from a file
// the test rewrites ("+3d", "-1h", "-180d", "+0": from real time), looked at again at most once a
// second. The monotonic clock is left alone, as NTP leaves it on a Pi.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { LIBFAKETIME, needTools } from './tools.js';

export interface MovedClock {
  /** Environment for the child process. */
  env: NodeJS.ProcessEnv;
  /** Moves the child's wall clock to real time + `spec`; seen within a second. */
  move(spec: string): void;
}

export function movedClock(dir: string): MovedClock {
  needTools('faketime');
  const file = path.join(dir, 'faketime');
  const move = (spec: string) => writeFileSync(file, `${spec}\n`);
  move('+0');
  return {
    env: {
      LD_PRELOAD: LIBFAKETIME!,
      FAKETIME_TIMESTAMP_FILE: file,
      FAKETIME_CACHE_DURATION: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    },
    move,
  };
}
