// The real-time control loop: services the hardware, then runs due blocks, then sleeps until
// the next block is due (at most MAX_SLEEP_MS, so the watchdog sees regular ticks).
import type { BlockRuntime } from './runtime.js';

const MIN_SLEEP_MS = 5;
const MAX_SLEEP_MS = 100;

export type TickHook = (now: number) => Promise<void> | void;

export class ControlLoop {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private current: Promise<void> = Promise.resolve();

  constructor(
    private readonly runtime: BlockRuntime,
    private readonly beforeTick: TickHook[] = [],
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stop after the tick in progress, if any, has finished. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.current;
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(() => {
      this.current = this.step().finally(() => {
        if (!this.running) return;
        const wait = this.runtime.nextDue() - this.runtime.clock.now();
        this.schedule(Math.max(MIN_SLEEP_MS, Math.min(MAX_SLEEP_MS, wait)));
      });
    }, delay);
  }

  private async step(): Promise<void> {
    const now = this.runtime.clock.now();
    for (const hook of this.beforeTick) {
      try {
        await hook(now);
      } catch (e) {
        this.runtime.log.error({ err: e }, 'tick hook failed');
      }
    }
    this.runtime.tick(this.runtime.clock.now());
  }
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
