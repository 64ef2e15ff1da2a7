// Counts what the history limits drop, by reason, and logs at most one line per interval (one
// source of the shared WarningLimiter): the first drop at once, later ones summed into the next line.
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';

export class DropLog {
  readonly counts: Record<string, number> = {};
  private unlogged: Record<string, number> = {};
  private readonly warnings: WarningLimiter;

  constructor(log: Logger, intervalMs: number) {
    this.warnings = new WarningLimiter(log, { intervalMs });
  }

  drop(reason: string, n: number, detail: string): void {
    this.counts[reason] = (this.counts[reason] ?? 0) + n;
    this.unlogged[reason] = (this.unlogged[reason] ?? 0) + n;
    const summary = Object.entries(this.unlogged)
      .map(([r, c]) => `${c} ${r}`)
      .join(', ');
    if (
      this.warnings.warn(
        'history limits',
        { dropped: this.unlogged, detail },
        `history over its limits, dropping (${summary}; one line a minute at most): ${detail}`,
      )
    )
      this.unlogged = {};
  }

  get suppressed(): number {
    return this.warnings.suppressed;
  }
}
