// One lifecycle (DESIGN.md §10): the app is an ordered list of subsystems. start() runs them in
// order (marking a start-up phase after each); stop() runs every one of them in reverse, each with
// its own time limit and one log line, whether or not its start ran (a stop must release what the
// construction opened, e.g. the hardware, after a start that failed). The status report is
// assembled from the subsystems' status().
import type { Logger } from '../log.js';
import type { StartupPhases } from './startup-phases.js';

export interface Subsystem {
  readonly name: string;
  /** The start-up phase marked when start() is done (the phases line); none when unset. */
  readonly phase?: string;
  start?(): Promise<void> | void;
  stop?(): Promise<void> | void;
  /** Sections of system/status (key: section). */
  status?(): Record<string, unknown>;
  /** Milliseconds stop() may take before the next step runs anyway; default STOP_STEP_LIMIT_MS. */
  readonly stopLimitMs?: number;
}

export const STOP_STEP_LIMIT_MS = 1500;

export class Lifecycle {
  private readonly list: Subsystem[] = [];
  private stopping = false;

  constructor(
    private readonly log: Logger,
    private readonly phases: StartupPhases,
  ) {}

  add<S extends Subsystem>(subsystem: S): S {
    this.list.push(subsystem);
    return subsystem;
  }

  get names(): string[] {
    return this.list.map((s) => s.name);
  }

  /** True once stop() was called: a start still running returns before the next step. */
  get stopped(): boolean {
    return this.stopping;
  }

  async start(): Promise<void> {
    for (const s of this.list) {
      if (this.stopping) return; // a stop came during start-up
      await s.start?.();
      if (s.phase) this.phases.mark(s.phase);
    }
    if (!this.stopping) this.log.info({ phases: this.phases.ms }, 'start-up phases (ms)');
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const s of [...this.list].reverse()) {
      if (!s.stop) continue;
      const began = performance.now();
      const limitMs = s.stopLimitMs ?? STOP_STEP_LIMIT_MS;
      let timer: NodeJS.Timeout | undefined;
      const overdue = new Promise<'overdue'>((resolve) => (timer = setTimeout(() => resolve('overdue'), limitMs)));
      try {
        const outcome = await Promise.race([Promise.resolve().then(() => s.stop!()), overdue]);
        const ms = Math.round(performance.now() - began);
        if (outcome === 'overdue')
          this.log.warn({ subsystem: s.name, limitMs }, `stop ${s.name}: not done after ${limitMs} ms; going on`);
        else this.log.info({ subsystem: s.name, ms }, `stop ${s.name}: done (${ms} ms)`);
      } catch (e) {
        this.log.error({ subsystem: s.name, err: e }, `stop ${s.name}: failed`);
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** Every subsystem's status sections, in list order. */
  status(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const s of this.list) if (s.status) Object.assign(out, s.status());
    return out;
  }
}
