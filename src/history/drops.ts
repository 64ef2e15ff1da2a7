// Counts what the history limits drop, by reason, and logs at most one line per interval: the
// first drop at once, later ones summed into the next line.
import type { Logger } from '../log.js';

export class DropLog {
  readonly counts: Record<string, number> = {};
  private lastLog = -Infinity;
  private unlogged: Record<string, number> = {};

  constructor(
    private readonly log: Logger,
    private readonly intervalMs: number,
  ) {}

  drop(reason: string, n: number, detail: string): void {
    this.counts[reason] = (this.counts[reason] ?? 0) + n;
    this.unlogged[reason] = (this.unlogged[reason] ?? 0) + n;
    const now = Date.now();
    if (now - this.lastLog < this.intervalMs) return;
    const summary = Object.entries(this.unlogged).map(([r, c]) => `${c} ${r}`).join(', ');
    this.log.warn({ dropped: this.unlogged, detail }, `history over its limits, dropping (${summary}; one line a minute at most): ${detail}`);
    this.lastLog = now;
    this.unlogged = {};
  }
}
