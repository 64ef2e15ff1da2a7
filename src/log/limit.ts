// Repeated warnings, one line per source a minute: junk a client sends again and again (bad
// history messages, bad block API messages) must not flood the log. Every line a client, a peer
// or a broker can cause goes through one of these (test/security/junk-inputs.test.ts). The next line of a source
// says how many were held back since its last one. Sources are bounded too: past `maxSources`
// distinct ones, new sources share one allowance, so a client inventing topics cannot flood
// either.
import type { Logger } from '../log.js';

export interface WarningLimits {
  /** Milliseconds between two lines of one source. */
  intervalMs?: number;
  maxSources?: number;
  /** Monotonic milliseconds (default performance.now): a wall clock set back must not silence a source. */
  now?: () => number;
  /** The level of the lines (default warn): notices and errors others can cause as often are limited as well. */
  level?: 'warn' | 'info' | 'error';
}

const OTHER_SOURCES = '(other sources)';

export class WarningLimiter {
  private readonly last = new Map<string, { at: number; held: number }>();
  private heldBack = 0;

  constructor(
    private readonly log: Pick<Logger, 'warn'> & Partial<Pick<Logger, 'info' | 'error'>>,
    private readonly limits: WarningLimits = {},
  ) {}

  /** Log `message` with `fields` unless `source` had a line within the interval; true when logged. */
  warn(source: string, fields: Record<string, unknown>, message: string): boolean {
    const now = this.limits.now ? this.limits.now() : performance.now();
    const key = this.last.has(source) || this.last.size < (this.limits.maxSources ?? 1000) ? source : OTHER_SOURCES;
    const seen = this.last.get(key);
    if (seen && now - seen.at < (this.limits.intervalMs ?? 60_000)) {
      seen.held++;
      this.heldBack++;
      return false;
    }
    const more = seen?.held ? ` (${seen.held} more like it from ${key} since the last warning)` : '';
    const level = this.limits.level ?? 'warn';
    (level === 'warn' ? this.log.warn : (this.log[level] ?? this.log.warn)).call(this.log, fields, `${message}${more}`);
    this.last.set(key, { at: now, held: 0 });
    return true;
  }

  /** Lines held back so far (for status). */
  get suppressed(): number {
    return this.heldBack;
  }
}
