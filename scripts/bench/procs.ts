// What the benches read of the processes they start: a free port to give them, their resident
// memory, the CPU time their threads ran and how often they woke.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process, in MB. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Time every thread of a process has run on a CPU, in seconds. */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  let ns = 0;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0; // gone
  }
  for (const task of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return ns / 1e9;
}

/** Voluntary context switches of every thread: each is one sleep, so one wake-up after it. */
export function voluntarySwitches(pid: number): number {
  let n = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      n += Number(
        /^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8'))?.[1] ?? 0,
      );
    } catch {
      // as above
    }
  }
  return n;
}
