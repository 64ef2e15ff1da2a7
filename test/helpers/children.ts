// Every process a test starts goes through here, so it is killed on every path: a start limit
// passed, an assertion failed or threw (the owning test's teardown), and as a last resort when
// the test process exits. A child left running would keep the test file from ever ending.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** Anything with tap's `teardown` (a `t`). */
export interface Owner {
  teardown(fn: () => unknown): void;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export function isRunning(child: ChildProcess): boolean {
  return child.pid !== undefined && child.exitCode === null && child.signalCode === null;
}

/** spawn(), registered for killing; with an owner, killed at the end of that test too. */
export function spawnOwned(command: string, args: string[], options: SpawnOptions, owner?: Owner): ChildProcess {
  const child = spawn(command, args, options);
  live.add(child);
  const forget = () => live.delete(child);
  child.once('exit', forget);
  child.once('error', forget);
  owner?.teardown(() => killAndWait(child));
  return child;
}

/** Kills the child (SIGKILL unless told) and resolves once it is gone. */
export async function killAndWait(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (!isRunning(child)) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await gone;
}

/**
 * Resolves with the first match of `pattern` in the child's stdout+stderr. If the limit passes
 * or the child exits or fails to start first, the child is killed and the promise rejects with
 * everything it wrote.
 */
export function waitForOutput(
  child: ChildProcess,
  pattern: RegExp,
  what: string,
  limitMs: number,
  output: () => string,
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = pattern.exec(output());
      if (m) finish(() => resolve(m));
    };
    const fail = (message: string) =>
      finish(() => {
        const error = new Error(`${message}:\n${output()}`);
        void killAndWait(child).then(() => reject(error));
      });
    const onExit = (code: number | null, signal: string | null) => fail(`${what}: exited with ${signal ?? code} first`);
    const onError = (e: Error) => fail(`${what}: could not start (${e.message})`);
    const timer = setTimeout(() => fail(`${what}: not seen within ${limitMs} ms`), limitMs);
    let done = false;
    const finish = (then: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      then();
    };
    // Output listeners are attached by the caller first; this one runs after they appended.
    const onData = () => setImmediate(check);
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
    check();
  });
}
