// The real-time control loop: services the hardware, then runs due blocks, then sleeps until
// the next block or the hardware is due. Nothing wakes it for nothing: with no block due and no
// hardware to poll it sleeps up to MAX_SLEEP_MS (the watchdog wants a tick well inside its 15 s),
// and a tick run from outside (an API write) wakes it, so the hardware hears of that write at once.
import { systemTimers, type Timers } from './clock.js';
import type { BlockRuntime } from './runtime.js';

const MIN_SLEEP_MS = 5;
export const MAX_SLEEP_MS = 1000;
/**
 * Blocks due within this much of each other run in one step, at the latest one's time: a block
 * may run up to this late, and a controller whose blocks were created at different moments
 * wakes once a second rather than once for each of them.
 */
export const COALESCE_MS = 50;
/** How often hardware that is polled (inputs, buses, a poll in progress, the emulation) wants the tick hook. */
export const HARDWARE_POLL_MS = 100;

export type TickHook = (now: number) => Promise<void> | void;

export class ControlLoop {
  private timer: unknown = null;
  /** When the timer fires, on the runtime's clock. */
  private wakeAt = Infinity;
  private running = false;
  private stepping = false;
  private current: Promise<void> = Promise.resolve();
  private readonly onTick = () => {
    if (!this.stepping) this.wake();
  };

  constructor(
    private readonly runtime: BlockRuntime,
    private readonly beforeTick: TickHook[] = [],
    /** When the hooks are next needed (Infinity: not until a block is due). */
    private readonly hooksDue: (now: number) => number = (now) => now + MAX_SLEEP_MS,
    /** The timers it sleeps on: they must run on the runtime's clock. */
    private readonly timers: Timers = systemTimers,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.runtime.on('tick', this.onTick);
    // A change that does not tick (a deleted block whose IO module switches off) wakes it too.
    this.runtime.on('change', this.onTick);
    this.schedule(-Infinity, 0);
  }

  /** Stop after the tick in progress, if any, has finished. */
  async stop(): Promise<void> {
    this.running = false;
    this.runtime.off('tick', this.onTick);
    this.runtime.off('change', this.onTick);
    this.clear();
    await this.current;
  }

  /** Run a step soon (a write changed what the hardware or the blocks need). */
  wake(): void {
    if (!this.running || this.stepping) return;
    if (this.wakeAt - this.runtime.clock.now() <= MIN_SLEEP_MS) return;
    this.clear();
    this.schedule(-Infinity, 0);
  }

  private clear(): void {
    if (this.timer) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.wakeAt = Infinity;
  }

  /** Set the timer for `wanted` (the loop's clock), kept `soonest` to MAX_SLEEP_MS away. */
  private schedule(wanted: number, soonest = MIN_SLEEP_MS): void {
    const now = this.runtime.clock.now();
    // The due time is the wanted one itself, not now + (wanted - now): the hooks and blocks
    // compare the step's time with the sums they asked for, and must find them equal.
    const due = Math.max(now + soonest, Math.min(now + MAX_SLEEP_MS, wanted));
    this.wakeAt = due;
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = null;
        this.wakeAt = Infinity;
        this.stepping = true;
        this.current = this.step(due).finally(() => {
          this.stepping = false;
          if (!this.running) return;
          const now = this.runtime.clock.now();
          this.schedule(
            wakeTime(now, this.hooksDue(now), this.runtime.nextDue(), (slack) => this.runtime.nextDue(slack)),
          );
        });
      },
      timerDelay(due - now),
    );
  }

  private async step(due: number): Promise<void> {
    // The hooks get the real time, not the step's (which can be a few ms earlier): a 1-Wire
    // conversion started now must have its full time before it is read.
    const now = this.runtime.clock.now();
    for (const hook of this.beforeTick) {
      try {
        await hook(now);
      } catch (e) {
        this.runtime.log.error({ err: e }, 'tick hook failed');
      }
    }
    this.runtime.tick(stepTime(due, this.runtime.clock.now(), this.runtime.lastTickAt));
  }
}

/**
 * When the loop wakes next: the hooks and the blocks due within COALESCE_MS of the first of them
 * run in one step, at the latest of their times (a 1-Wire read and the sensor blocks that show it
 * wake the loop once, not twice a few milliseconds apart). Hardware with something to do now (a
 * write a step queued) does not wait for a block. `latestBlock(slack)` is the latest block due
 * within `slack` of the first one (BlockRuntime.nextDue).
 */
export function wakeTime(
  now: number,
  hooks: number,
  firstBlock: number,
  latestBlock: (slackMs: number) => number,
): number {
  if (hooks <= now) return hooks;
  const first = Math.min(firstBlock, hooks);
  if (!Number.isFinite(first)) return first;
  const until = first + COALESCE_MS;
  let at = hooks <= until ? hooks : -Infinity;
  if (firstBlock <= until) at = Math.max(at, latestBlock(until - firstBlock));
  return at;
}

/**
 * libuv counts timer time in whole milliseconds, so a timer can fire up to a millisecond before
 * its due time (set at 100.9 ms for 9 ms, it fires at 109.0); the step then found nothing due and
 * the loop slept MIN_SLEEP_MS more, a second wake-up for one step. A millisecond more, rounded
 * up, makes it fire at or just after the due time (a step up to MIN_SLEEP_MS late still runs at
 * the due time).
 */
export function timerDelay(ms: number): number {
  return ms <= 0 ? 0 : Math.ceil(ms) + 1;
}

/**
 * The time a step runs the blocks at: when it was due, if its timer fired only a little late.
 * Blocks that ask to run "1 s after now" then stay in step with those on a fixed 1 s grid (a
 * filter's samples) instead of drifting a millisecond a second away from them and costing a
 * wake-up of their own. Never before the last tick (an API write may have ticked in between),
 * and the real time when the step is late by more than a timer's lateness.
 */
export function stepTime(due: number, now: number, lastTick: number): number {
  if (!(due <= now && now - due <= MIN_SLEEP_MS)) return now;
  return Math.max(due, lastTick);
}

/** Drive a runtime with a manual clock: hooks and ticks every `stepMs` until `durationMs` passed. */
export async function runFor(
  runtime: BlockRuntime,
  clock: { advance(ms: number): void; now(): number },
  durationMs: number,
  stepMs = 100,
  beforeTick: TickHook[] = [],
): Promise<void> {
  const end = clock.now() + durationMs;
  while (clock.now() < end) {
    clock.advance(Math.min(stepMs, end - clock.now()));
    for (const hook of beforeTick) await hook(clock.now());
    runtime.tick(clock.now());
  }
}
