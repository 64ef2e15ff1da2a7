// Waiting in a test for something another part (a broker, a child process) makes true: polled,
// with a bound stretched by limit() on a slow machine, and an error naming what never came.
import { setTimeout as sleep } from 'node:timers/promises';
import { limit } from './limits.js';

/** Resolves once `cond` holds; throws "timed out ... waiting for WHAT" after `timeoutMs` (scaled). */
export async function until(
  cond: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 8000,
  stepMs = 20,
): Promise<void> {
  const ms = limit(timeoutMs);
  const deadline = performance.now() + ms;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(stepMs);
  }
}
