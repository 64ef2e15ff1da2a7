// The alert tables (migration 2): active alerts survive a restart (a resolve is still sent),
// the last events are kept for GET /alerts, and the outbox holds messages until a channel takes them.
import type { Db } from '../store/db.js';
import { parseJson } from '../shared/json.js';
import { MAX_RECORD_BYTES } from '../shared/limits.js';
import type { ActiveAlert, AlertMessage, HistoryEntry } from './types.js';

export interface OutboxRow {
  seq: number;
  messageId: string;
  channel: string;
  message: AlertMessage;
  attempts: number;
  nextAt: number;
  createdAt: number;
  lastError: string | null;
}

export class AlertStore {
  constructor(
    private readonly db: Db,
    private readonly historyLimit: number,
  ) {}

  loadActive(): ActiveAlert[] {
    // A row that went bad is dropped: the condition, if it still holds, fires again.
    return (this.db.prepare('SELECT key, value FROM alert_active').all() as { key: string; value: string }[]).flatMap(
      (r) => {
        const parsed = parseJson(r.value, { maxBytes: MAX_RECORD_BYTES, what: 'an active alert' });
        if (parsed.ok) return [parsed.value as ActiveAlert];
        this.removeActive(r.key);
        return [];
      },
    );
  }

  saveActive(alert: ActiveAlert): void {
    this.db
      .prepare(
        'INSERT INTO alert_active (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      )
      .run(alert.key, JSON.stringify(alert));
  }

  removeActive(key: string): void {
    this.db.prepare('DELETE FROM alert_active WHERE key = ?').run(key);
  }

  addHistory(entry: HistoryEntry): void {
    const seq = this.db.prepare('INSERT INTO alert_history (value) VALUES (?)').run(JSON.stringify(entry))
      .lastInsertRowid as number;
    this.db.prepare('DELETE FROM alert_history WHERE seq <= ?').run(seq - this.historyLimit);
  }

  history(limit = this.historyLimit): HistoryEntry[] {
    // A row whose bytes went bad on the card is left out, not a failed request.
    return (
      this.db.prepare('SELECT value FROM alert_history ORDER BY seq DESC LIMIT ?').all(limit) as { value: string }[]
    ).flatMap((r) => {
      const parsed = parseJson(r.value, { maxBytes: MAX_RECORD_BYTES, what: 'an alert history entry' });
      return parsed.ok ? [parsed.value as HistoryEntry] : [];
    });
  }

  /** Queue one message per channel, in one transaction (durable before it returns). */
  enqueue(message: AlertMessage, channels: string[], now: number): void {
    const insert = this.db.prepare(
      'INSERT OR IGNORE INTO alert_outbox (message_id, channel, message, next_at, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.db.transaction(() => {
      for (const channel of channels) insert.run(message.id, channel, JSON.stringify(message), now, now);
    })();
  }

  due(now: number, limit: number): OutboxRow[] {
    const rows = this.db
      .prepare('SELECT * FROM alert_outbox WHERE next_at <= ? ORDER BY seq LIMIT ?')
      .all(now, limit) as Record<string, unknown>[];
    // A message whose bytes went bad can never be sent: it leaves the outbox instead of blocking the rest.
    return rows.flatMap((r) => {
      const parsed = parseJson(r.message as string, { maxBytes: MAX_RECORD_BYTES, what: 'an alert message' });
      if (!parsed.ok) {
        this.db.prepare('DELETE FROM alert_outbox WHERE seq = ?').run(r.seq);
        return [];
      }
      return [
        {
          seq: r.seq as number,
          messageId: r.message_id as string,
          channel: r.channel as string,
          message: parsed.value as AlertMessage,
          attempts: r.attempts as number,
          nextAt: r.next_at as number,
          createdAt: r.created_at as number,
          lastError: (r.last_error as string | null) ?? null,
        },
      ];
    });
  }

  nextDueAt(): number | null {
    const row = this.db.prepare('SELECT MIN(next_at) AS at FROM alert_outbox').get() as { at: number | null };
    return row.at;
  }

  /** The wall clock jumped by `byMs`: the rows' times move with it (their waits and ages stay). */
  shiftTimes(byMs: number): void {
    this.db
      .prepare('UPDATE alert_outbox SET next_at = next_at + ?, created_at = created_at + ?')
      .run(Math.round(byMs), Math.round(byMs));
  }

  /** No row is due or created after `now` (a start on a clock behind the one that wrote them). */
  notAfter(now: number): void {
    this.db.prepare('UPDATE alert_outbox SET next_at = ? WHERE next_at > ?').run(now, now);
    this.db.prepare('UPDATE alert_outbox SET created_at = ? WHERE created_at > ?').run(now, now);
  }

  delivered(seq: number): void {
    this.db.prepare('DELETE FROM alert_outbox WHERE seq = ?').run(seq);
  }

  retryLater(seq: number, nextAt: number, error: string): void {
    this.db
      .prepare('UPDATE alert_outbox SET attempts = attempts + 1, next_at = ?, last_error = ? WHERE seq = ?')
      .run(nextAt, error, seq);
  }

  /** A channel was set up again: what waits for it goes on the next round instead of after its backoff. */
  dueNow(channel: string, now: number): void {
    this.db.prepare('UPDATE alert_outbox SET next_at = ? WHERE channel = ? AND next_at > ?').run(now, channel, now);
  }

  pending(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM alert_outbox').get() as { n: number }).n;
  }

  pendingByChannel(): Record<string, number> {
    const rows = this.db.prepare('SELECT channel, COUNT(*) AS n FROM alert_outbox GROUP BY channel').all() as {
      channel: string;
      n: number;
    }[];
    return Object.fromEntries(rows.map((r) => [r.channel, r.n]));
  }

  /** Drop the oldest beyond `limit` and anything older than `createdBefore`; returns the dropped rows. */
  trim(limit: number, createdBefore: number): OutboxRow[] {
    const over = Math.max(0, this.pending() - limit);
    const rows = this.db
      .prepare(
        'SELECT seq, message_id, channel, message, attempts, next_at, created_at, last_error FROM alert_outbox WHERE created_at < ? OR seq IN (SELECT seq FROM alert_outbox ORDER BY seq LIMIT ?)',
      )
      .all(createdBefore, over) as Record<string, unknown>[];
    const del = this.db.prepare('DELETE FROM alert_outbox WHERE seq = ?');
    this.db.transaction(() => rows.forEach((r) => del.run(r.seq)))();
    return rows.map((r) => ({
      seq: r.seq as number,
      messageId: r.message_id as string,
      channel: r.channel as string,
      message: JSON.parse(r.message as string) as AlertMessage,
      attempts: r.attempts as number,
      nextAt: r.next_at as number,
      createdAt: r.created_at as number,
      lastError: (r.last_error as string | null) ?? null,
    }));
  }
}

const RUNNING_KEY = 'alerts_service_running';

/** Marks the service as running; returns true when the previous run did not stop cleanly. */
export function markRunning(db: Db): boolean {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(RUNNING_KEY) as { value: string } | undefined;
  db.prepare(
    'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
  ).run(RUNNING_KEY, '1');
  return row?.value === '1';
}

export function markStopped(db: Db): void {
  db.prepare(
    'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
  ).run(RUNNING_KEY, '0');
}
