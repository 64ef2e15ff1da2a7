// Everything history drops, counted by reason in one place (the ingest and the store share one):
// points left out of a message or a store, and whole messages refused before their points were
// counted. The controller's own drops are counted apart too, so the status can say history is
// not ok and an alert can fire while they happen (DESIGN §10 "Bounded everything": never
// silently off). One log line per interval at most: the first drop at once, later ones summed
// into the next line (one source of the shared WarningLimiter).
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';

/** How long after the controller's own last drop history is reported not ok. */
export const OWN_DROP_WINDOW_MS = 60_000;

export interface OwnDrop {
  /** Wall clock, epoch ms. */
  at: number;
  reason: string;
  detail: string;
}

export interface DropOptions {
  intervalMs: number;
  /** Wall clock, epoch ms. */
  now?: () => number;
  /** Monotonic ms (performance.now), for the window of ownDrop(). */
  monotonic?: () => number;
}

type Counts = Record<string, number>;

const add = (to: Counts, reason: string, n: number) => {
  to[reason] = (to[reason] ?? 0) + n;
};

export class HistoryDrops {
  /** Points dropped, by reason. */
  readonly points: Counts = {};
  /** Messages refused whole (their points never counted), by reason. */
  readonly messages: Counts = {};
  /** Of both, the controller's own, by reason. */
  readonly own: Counts = {};
  private lastOwn: (OwnDrop & { mono: number }) | null = null;
  private unlogged: Counts = {};
  private readonly warnings: WarningLimiter;
  private readonly now: () => number;
  private readonly monotonic: () => number;

  constructor(log: Logger, o: DropOptions) {
    this.now = o.now ?? Date.now;
    this.monotonic = o.monotonic ?? (() => performance.now());
    this.warnings = new WarningLimiter(log, { intervalMs: o.intervalMs, now: this.monotonic });
  }

  /** `n` points dropped for `reason`; `own`: the controller's own. `quiet`: already logged by the caller. */
  dropPoints(reason: string, n: number, own: boolean, detail: string, quiet = false): void {
    if (n <= 0) return;
    add(this.points, reason, n);
    this.record(reason, n, own, detail, quiet, 'points');
  }

  /** A message refused whole, before its points were counted. */
  dropMessage(reason: string, own: boolean, detail: string, quiet = false): void {
    add(this.messages, reason, 1);
    this.record(reason, 1, own, detail, quiet, 'messages');
  }

  private record(reason: string, n: number, own: boolean, detail: string, quiet: boolean, what: string): void {
    if (own) {
      add(this.own, reason, n);
      this.lastOwn = { at: this.now(), mono: this.monotonic(), reason, detail };
      // The controller's own history is never dropped quietly.
      quiet = false;
    }
    if (quiet) return;
    add(this.unlogged, `${what} ${reason}${own ? ' (own)' : ''}`, n);
    const summary = Object.entries(this.unlogged)
      .map(([r, c]) => `${c} ${r}`)
      .join(', ');
    if (
      this.warnings.warn(
        'history drops',
        { dropped: this.unlogged, own, detail },
        `history dropping (${summary}; one line a minute at most): ${detail}`,
      )
    )
      this.unlogged = {};
  }

  /** The controller's own last drop, when it was within OWN_DROP_WINDOW_MS; null otherwise. */
  ownDrop(): OwnDrop | null {
    const last = this.lastOwn;
    if (!last || this.monotonic() - last.mono > OWN_DROP_WINDOW_MS) return null;
    return { at: last.at, reason: last.reason, detail: last.detail };
  }

  status(): Record<string, unknown> {
    const last = this.lastOwn;
    return {
      points: { ...this.points },
      messages: { ...this.messages },
      own: { ...this.own },
      ownLast: last ? { at: new Date(last.at).toISOString(), reason: last.reason, detail: last.detail } : null,
      warningsSuppressed: this.warnings.suppressed,
    };
  }
}
