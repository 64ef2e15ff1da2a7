// Login attempts per client address: the one rule for REST logins (/auth/login) and the embedded
// broker's CONNECTs. An address has LOGIN_LIMIT.max attempts a window; a successful attempt gives
// its slot back, so only failures use the budget (an MQTT client that reconnects often is not
// locked out). An attempt still being checked holds its slot, which bounds parallel guesses; an
// address over the limit only by those is told to retry in a second, not at the window's end.
// Every refusal, wrong or over the limit, is answered FAIL_DELAY_MS after the attempt came, and
// logged at most once a minute per address with the count since the previous line.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log.js';

export const LOGIN_LIMIT = { max: 10, windowMs: 60_000 };
/** Every refused login is answered this long after it arrived, whatever failed. */
export const FAIL_DELAY_MS = 500;
/** Addresses remembered at once; past this the oldest is forgotten (counted, logged once a minute). */
export const MAX_ADDRESSES = 10_000;
const LOG_EVERY_MS = 60_000;
/** Retry-after for an address over the limit only by attempts in progress (a check takes well under this). */
const CHECKING_RETRY_MS = 1000;

export type Via = 'http' | 'mqtt';
export type AttemptResult<T> = { ok: true; value: T } | { ok: false; limited: boolean; retryAfterMs: number };

interface Entry {
  windowStart: number;
  used: number;
  /** Attempts whose check is still running (they hold a slot of `used`). */
  checking: number;
  loggedAt: number;
  refused: number;
  limited: number;
  via: Set<Via>;
}

/** IPv4 clients of a dual-stack listener arrive as ::ffff:a.b.c.d; one address, one budget. */
export function addressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export class LoginAttempts {
  private readonly entries = new Map<string, Entry>();
  private forgotten = 0;
  private forgottenLoggedAt = -Infinity;
  private refusedTotal = 0;

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Run `check` (null = wrong credentials) for one login from `address`, unless the address is
   * over the limit. Refusals resolve FAIL_DELAY_MS after the call.
   */
  async attempt<T>(address: string | undefined, via: Via, check: () => Promise<T | null>): Promise<AttemptResult<T>> {
    const started = this.now();
    const key = addressKey(address);
    const entry = this.entry(key, started);
    const limited = entry.used >= LOGIN_LIMIT.max;
    let value: T | null = null;
    if (!limited) {
      entry.used++;
      entry.checking++;
      value = await check().catch(() => null);
      entry.checking--;
      if (value !== null) {
        entry.used = Math.max(0, entry.used - 1);
        return { ok: true, value };
      }
    }
    // Judged now: the checks holding the slots may end (and give them back) during the delay.
    const byChecks = limited && entry.used - entry.checking < LOGIN_LIMIT.max;
    this.noteRefusal(key, entry, via, limited);
    await sleep(Math.max(0, started + FAIL_DELAY_MS - this.now()));
    const windowEnd = Math.max(0, entry.windowStart + LOGIN_LIMIT.windowMs - this.now());
    return { ok: false, limited, retryAfterMs: byChecks ? Math.min(CHECKING_RETRY_MS, windowEnd) : windowEnd };
  }

  /** Forget addresses whose window and log minute are over (logging what was not logged yet). */
  prune(): void {
    const now = this.now();
    for (const [key, e] of this.entries) {
      if (now - e.windowStart < LOGIN_LIMIT.windowMs || now - e.loggedAt < LOG_EVERY_MS) continue;
      if (e.refused) this.logRefusals(key, e);
      this.entries.delete(key);
    }
  }

  status(): { addresses: number; limit: number; refused: number; forgotten: number } {
    return {
      addresses: this.entries.size,
      limit: MAX_ADDRESSES,
      refused: this.refusedTotal,
      forgotten: this.forgotten,
    };
  }

  private entry(key: string, now: number): Entry {
    let e = this.entries.get(key);
    if (!e) {
      if (this.entries.size >= MAX_ADDRESSES) this.prune();
      if (this.entries.size >= MAX_ADDRESSES) this.forgetOldest(now);
      e = { windowStart: now, used: 0, checking: 0, loggedAt: -Infinity, refused: 0, limited: 0, via: new Set() };
      this.entries.set(key, e);
    }
    if (now - e.windowStart >= LOGIN_LIMIT.windowMs) {
      e.windowStart = now;
      e.used = 0;
    }
    return e;
  }

  private forgetOldest(now: number): void {
    const [oldest] = this.entries.keys();
    this.entries.delete(oldest!);
    this.forgotten++;
    if (now - this.forgottenLoggedAt < LOG_EVERY_MS) return;
    this.forgottenLoggedAt = now;
    this.log.warn(
      { limit: MAX_ADDRESSES, forgotten: this.forgotten },
      `login limiter: ${MAX_ADDRESSES} addresses at once; forgot the oldest (${this.forgotten} so far)`,
    );
  }

  private noteRefusal(key: string, e: Entry, via: Via, limited: boolean): void {
    this.refusedTotal++;
    e.refused++;
    if (limited) e.limited++;
    e.via.add(via);
    if (this.now() - e.loggedAt >= LOG_EVERY_MS) this.logRefusals(key, e);
  }

  private logRefusals(key: string, e: Entry): void {
    const over = e.limited ? `, ${e.limited} of them over the limit of ${LOGIN_LIMIT.max} a minute` : '';
    const via = [...e.via].join(', ');
    this.log.warn(
      { address: key, via, refused: e.refused, limited: e.limited },
      `${e.refused} login(s) refused (not authorized) from ${key} via ${via}${over}; at most one such line a minute per address`,
    );
    e.loggedAt = this.now();
    e.refused = 0;
    e.limited = 0;
    e.via.clear();
  }
}
