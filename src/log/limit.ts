// Repeated warnings, one line per source a minute: junk a client sends again and again (bad
// history messages, bad block API messages) must not flood the log. Every line a client, a peer
// or a broker can cause goes through one of these (test/security/junk-inputs.test.ts). The next line of a source
// says how many were held back since its last one. Sources are bounded too: past `maxSources`
// distinct ones, new sources share one allowance, so a client inventing topics cannot flood
// either. Lines are bounded in size: a topic may be 65,535 bytes of a client's choosing, so what a
// line quotes (its text, its string fields, its source) is cut, saying how long it was.
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
/** Characters of a source kept (sources longer than this that share their start share a line). */
const SOURCE_CHARS = 256;
/** Characters of a line's text, and of each string field, written. */
const MESSAGE_CHARS = 2000;
const FIELD_CHARS = 1000;

/** `text` cut to about `max` characters, its start and end kept, saying how long it was. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const tail = Math.floor(max / 4);
  return `${text.slice(0, max - tail)}... (${text.length} characters) ...${text.slice(-tail)}`;
}

function cutFields(fields: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(fields))
    if (typeof v === 'string' && v.length > FIELD_CHARS) (out ??= { ...fields })[k] = cut(v, FIELD_CHARS);
  return out ?? fields;
}

export class WarningLimiter {
  private readonly last = new Map<string, { at: number; held: number }>();
  private heldBack = 0;

  constructor(
    private readonly log: Pick<Logger, 'warn'> & Partial<Pick<Logger, 'info' | 'error'>>,
    private readonly limits: WarningLimits = {},
  ) {}

  /** Log `message` with `fields` unless `source` had a line within the interval; true when logged. */
  warn(given: string, fields: Record<string, unknown>, message: string): boolean {
    const now = this.limits.now ? this.limits.now() : performance.now();
    const source = given.length > SOURCE_CHARS ? given.slice(0, SOURCE_CHARS) : given;
    const key = this.last.has(source) || this.last.size < (this.limits.maxSources ?? 1000) ? source : OTHER_SOURCES;
    const seen = this.last.get(key);
    if (seen && now - seen.at < (this.limits.intervalMs ?? 60_000)) {
      seen.held++;
      this.heldBack++;
      return false;
    }
    const more = seen?.held ? ` (${seen.held} more like it from ${key} since the last warning)` : '';
    const level = this.limits.level ?? 'warn';
    (level === 'warn' ? this.log.warn : (this.log[level] ?? this.log.warn)).call(
      this.log,
      cutFields(fields),
      `${cut(message, MESSAGE_CHARS)}${more}`,
    );
    this.last.set(key, { at: now, held: 0 });
    return true;
  }

  /** Lines held back so far (for status). */
  get suppressed(): number {
    return this.heldBack;
  }
}
