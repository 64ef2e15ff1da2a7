// The alert tables (migration 2): active alerts survive a restart (a resolve is still sent),
// the last events are kept for GET /alerts, and the outbox holds messages until a channel takes them.
import type { Db } from '../store/db.js';
import { isStorageFailure } from '../shared/errors.js';
import { parseJson } from '../shared/json.js';
import { EARLIEST_WALL_MS, isWallSet } from '../shared/wall-set.js';
import { MAX_RECORD_BYTES } from '../shared/limits.js';
import type { ActiveAlert, AlertMessage, HistoryEntry } from './types.js';
import type { ActiveChanges, ActiveReserve } from './active-reserve.js';
import type { ReserveFile } from '../store/reserve-file.js';
import { AlertHistory } from './history-store.js';
import type { AlertClock } from './times.js';

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

/** Notes a failed write; true when it failed on the storage: full, read-only, I/O error (StorageHealth.noteError). */
export type DiskFullNote = (e: unknown) => boolean;

/**
 * The tables, or memory while the disk is full: a write that meets a full disk is left undone
 * and what it would have stored is kept in memory instead (an outbox row that cannot be
 * inserted, updated or deleted moves there), so alerts still fire, are sent and retried, and
 * the disk-full alert itself gets out. A restart loses what only memory held, except the active
 * alerts: they go to a reserve file (active-reserve.ts), so a restart neither repeats nor loses them;
 * and the rows sent whose delete the disk refused: a reserve lists them, so a restart does not
 * send them again.
 */
export class AlertStore {
  /** Outbox rows held in memory (negative seq); and table rows taken over by memory (hidden in the table). */
  private readonly memoryRows: OutboxRow[] = [];
  private readonly hidden = new Set<number>();
  /** Of the hidden rows, those sent (their delete waits for room): seq -> message id; kept in `sentReserve`. */
  private readonly sentUndeleted = new Map<number, string>();
  private nextMemorySeq = -1;
  /** The last events (history-store.ts). */
  private readonly historyRows: AlertHistory;
  /** Changes to the active alerts not in the table yet (the disk is full). */
  private readonly unsaved: ActiveChanges = new Map();

  constructor(
    private readonly db: Db,
    historyLimit: number,
    private readonly diskFull: DiskFullNote = isStorageFailure,
    /** Keeps the active alerts' changes across a restart on a full disk. */
    private readonly reserve?: ActiveReserve,
    /** Keeps the outbox rows sent but not deleted across a restart on a full disk. */
    private readonly sentReserve?: ReserveFile,
    /** The alerts' clock: the history entries this run writes say their times by it (history-store.ts). */
    clock?: AlertClock,
  ) {
    this.historyRows = new AlertHistory(db, historyLimit, (fn) => this.write(fn), clock);
    // Only a row that still holds the message it names was sent: bytes gone bad in the file
    // neither hide nor delete another row.
    const sent = sentReserve?.read();
    if (Array.isArray(sent))
      for (const entry of sent) {
        if (!Array.isArray(entry) || !Number.isSafeInteger(entry[0]) || typeof entry[1] !== 'string') continue;
        const [seq, messageId] = entry as [number, string];
        if (this.messageIdOf(seq) !== messageId) continue;
        this.hidden.add(seq);
        this.sentUndeleted.set(seq, messageId);
      }
  }

  private messageIdOf(seq: number): string | undefined {
    const row = this.db.prepare('SELECT message_id FROM alert_outbox WHERE seq = ?').get(seq) as
      | { message_id: string }
      | undefined;
    return row?.message_id;
  }

  /** Runs a write; false when the storage fails it (full, read-only: the write is not done), any other error is thrown. */
  private write(fn: () => void): boolean {
    try {
      fn();
      return true;
    } catch (e) {
      if (this.diskFull(e)) return false;
      throw e;
    }
  }

  loadActive(): ActiveAlert[] {
    // A row that went bad is dropped: the condition, if it still holds, fires again.
    const rows = this.db.prepare('SELECT key, value FROM alert_active').all() as { key: string; value: string }[];
    const active = new Map<string, ActiveAlert>();
    for (const r of rows) {
      const parsed = parseJson(r.value, { maxBytes: MAX_RECORD_BYTES, what: 'an active alert' });
      if (parsed.ok) active.set(r.key, parsed.value as ActiveAlert);
      else this.unsaved.set(r.key, null);
    }
    // What a full disk kept out of the table last time, kept in the reserve instead.
    for (const [key, alert] of this.reserve?.read() ?? []) {
      this.unsaved.set(key, alert);
      if (alert) active.set(key, alert);
      else active.delete(key);
    }
    this.saveUnsaved();
    return [...active.values()];
  }

  saveActive(alert: ActiveAlert): void {
    this.unsaved.set(alert.key, alert);
    this.saveUnsaved();
  }

  removeActive(key: string): void {
    this.unsaved.set(key, null);
    this.saveUnsaved();
  }

  /** The active alerts' changes go to the table; on a full disk to the reserve, until the table takes them. */
  private saveUnsaved(): void {
    if (this.unsaved.size === 0) return;
    const upsert = this.db.prepare(
      'INSERT INTO alert_active (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    const remove = this.db.prepare('DELETE FROM alert_active WHERE key = ?');
    const saved = this.write(() =>
      this.db.transaction(() => {
        for (const [key, alert] of this.unsaved)
          if (alert) upsert.run(key, JSON.stringify(alert));
          else remove.run(key);
      })(),
    );
    if (saved) this.unsaved.clear();
    this.reserve?.write(this.unsaved);
  }

  addHistory(entry: HistoryEntry): void {
    this.historyRows.add(entry);
  }

  history(limit?: number): HistoryEntry[] {
    return this.historyRows.list(limit);
  }

  /** Queue one message per channel, in one transaction (durable before it returns, unless the disk is full). */
  enqueue(message: AlertMessage, channels: string[], now: number): void {
    const insert = this.db.prepare(
      'INSERT OR IGNORE INTO alert_outbox (message_id, channel, message, next_at, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    const stored = this.write(() =>
      this.db.transaction(() => {
        for (const channel of channels) insert.run(message.id, channel, JSON.stringify(message), now, now);
      })(),
    );
    if (stored) return;
    for (const channel of channels)
      this.memoryRows.push({
        seq: this.nextMemorySeq--,
        messageId: message.id,
        channel,
        message,
        attempts: 0,
        nextAt: now,
        createdAt: now,
        lastError: null,
      });
  }

  due(now: number, limit: number): OutboxRow[] {
    this.forgetHidden();
    const rows = this.db
      .prepare('SELECT * FROM alert_outbox WHERE next_at <= ? ORDER BY seq LIMIT ?')
      .all(now, limit + this.hidden.size) as Record<string, unknown>[];
    // A message whose bytes went bad can never be sent: it leaves the outbox instead of blocking the rest.
    const stored = rows.flatMap((r) => {
      if (this.hidden.has(r.seq as number)) return [];
      const message = messageOf(r);
      if (!message) {
        this.delivered(r.seq as number);
        return [];
      }
      return [rowOf(r, message)];
    });
    const fromMemory = this.memoryRows.filter((r) => r.nextAt <= now);
    return [...stored.slice(0, limit), ...fromMemory].slice(0, limit);
  }

  nextDueAt(): number | null {
    const row = this.db
      .prepare(
        `SELECT MIN(next_at) AS at FROM alert_outbox${this.hidden.size ? ` WHERE seq NOT IN (${[...this.hidden].join(',')})` : ''}`,
      )
      .get() as { at: number | null };
    const times = this.memoryRows.map((r) => r.nextAt);
    if (row.at !== null) times.push(row.at);
    return times.length ? Math.min(...times) : null;
  }

  /** The wall clock jumped by `byMs`: the rows' times move with it (their waits and ages stay); this run's history entries are stored again. */
  shiftTimes(byMs: number): void {
    const by = Math.round(byMs);
    this.changeAll(
      () => this.db.prepare('UPDATE alert_outbox SET next_at = next_at + ?, created_at = created_at + ?').run(by, by),
      (r) => {
        r.nextAt += by;
        r.createdAt += by;
      },
    );
    this.historyRows.storeAgain();
  }

  /**
   * Rows written while the wall clock was not set (1970: a Pi before network time), once it is
   * (`now`): moved by `byMs`, how far the clock moved when it was set, their message's `at` too;
   * with `byMs` null (written by an earlier run: how far is not known) placed at `now`. Left at
   * 1970 they were dropped as too old, decades over maxAgeHours, before they could be sent. The
   * history entries written meanwhile move by the same rule (they said 1970 for good).
   */
  placeUnset(byMs: number | null, now: number): void {
    const by = byMs === null ? null : Math.round(byMs);
    const move = (t: number) => (isWallSet(t) ? t : by === null ? now : t + by);
    this.changeAll(
      () => {
        const rows = this.db
          .prepare('SELECT seq, message, next_at, created_at FROM alert_outbox WHERE created_at < ? OR next_at < ?')
          .all(EARLIEST_WALL_MS, EARLIEST_WALL_MS) as Array<Record<string, unknown>>;
        const update = this.db.prepare(
          'UPDATE alert_outbox SET message = ?, next_at = ?, created_at = ? WHERE seq = ?',
        );
        this.db.transaction(() => {
          for (const r of rows) {
            const message = messageOf(r);
            const text = message ? JSON.stringify(movedAt(message, move)) : r.message;
            update.run(text, move(r.next_at as number), move(r.created_at as number), r.seq);
          }
        })();
      },
      (r) => {
        r.nextAt = move(r.nextAt);
        r.createdAt = move(r.createdAt);
        r.message = movedAt(r.message, move);
      },
    );
    this.historyRows.placeUnset(move);
  }

  /** No row is due or created after `now` (a start on a clock behind the one that wrote them). */
  notAfter(now: number): void {
    this.changeAll(
      () => {
        this.db.prepare('UPDATE alert_outbox SET next_at = ? WHERE next_at > ?').run(now, now);
        this.db.prepare('UPDATE alert_outbox SET created_at = ? WHERE created_at > ?').run(now, now);
      },
      (r) => {
        r.nextAt = Math.min(r.nextAt, now);
        r.createdAt = Math.min(r.createdAt, now);
      },
    );
  }

  delivered(seq: number): void {
    if (seq < 0) this.dropMemory(seq);
    else if (!this.write(() => this.db.prepare('DELETE FROM alert_outbox WHERE seq = ?').run(seq))) {
      this.hidden.add(seq);
      const messageId = this.messageIdOf(seq);
      if (messageId !== undefined) this.sentUndeleted.set(seq, messageId);
      this.saveSentUndeleted();
    }
  }

  private saveSentUndeleted(): void {
    this.sentReserve?.write(this.sentUndeleted.size ? [...this.sentUndeleted] : null);
  }

  retryLater(seq: number, nextAt: number, error: string): void {
    const update = (r: OutboxRow) => Object.assign(r, { attempts: r.attempts + 1, nextAt, lastError: error });
    const inMemory = this.memoryRows.find((r) => r.seq === seq);
    if (inMemory) return void update(inMemory);
    const ok = this.write(() =>
      this.db
        .prepare('UPDATE alert_outbox SET attempts = attempts + 1, next_at = ?, last_error = ? WHERE seq = ?')
        .run(nextAt, error, seq),
    );
    if (!ok) this.takeOver((r) => r.seq === seq, update);
  }

  /** A channel was set up again: what waits for it goes on the next round instead of after its backoff. */
  dueNow(channel: string, now: number): void {
    this.db.prepare('UPDATE alert_outbox SET next_at = ? WHERE channel = ? AND next_at > ?').run(now, channel, now);
  }

  pending(): number {
    const stored = (this.db.prepare('SELECT COUNT(*) AS n FROM alert_outbox').get() as { n: number }).n;
    return stored - this.hidden.size + this.memoryRows.length;
  }

  pendingByChannel(): Record<string, number> {
    const rows = this.db.prepare('SELECT seq, channel FROM alert_outbox').all() as { seq: number; channel: string }[];
    const out: Record<string, number> = {};
    for (const r of [...rows.filter((x) => !this.hidden.has(x.seq)), ...this.memoryRows])
      out[r.channel] = (out[r.channel] ?? 0) + 1;
    return out;
  }

  /** Drop the oldest beyond `limit` and anything older than `createdBefore`; returns the dropped rows. */
  trim(limit: number, createdBefore: number): OutboxRow[] {
    const over = Math.max(0, this.pending() - limit);
    const candidates = (
      this.db
        .prepare(
          'SELECT * FROM alert_outbox WHERE created_at < ? OR seq IN (SELECT seq FROM alert_outbox ORDER BY seq LIMIT ?) ORDER BY seq',
        )
        .all(createdBefore, over + this.hidden.size) as Record<string, unknown>[]
    )
      .filter((r) => !this.hidden.has(r.seq as number))
      .map((r) => rowOf(r, messageOf(r) ?? ({} as AlertMessage)));
    // Oldest first: the table's rows by seq, then memory's (written while the disk was full).
    const ordered = [...candidates, ...this.memoryRows];
    const oldest = new Set(ordered.slice(0, over));
    const dropped = ordered.filter((r) => r.createdAt < createdBefore || oldest.has(r));
    for (const r of dropped) this.delivered(r.seq);
    return dropped;
  }

  /** Every row of the table that memory has not taken over. */
  private storedRows(): OutboxRow[] {
    return (this.db.prepare('SELECT * FROM alert_outbox ORDER BY seq').all() as Record<string, unknown>[]).flatMap(
      (r) => {
        const message = this.hidden.has(r.seq as number) ? null : messageOf(r);
        return message ? [rowOf(r, message)] : [];
      },
    );
  }

  /** A change to every row: in the table, or (the disk full) in memory after taking the rows over. */
  private changeAll(inTable: () => void, inMemory: (r: OutboxRow) => void): void {
    if (!this.write(inTable))
      this.takeOver(
        () => true,
        () => undefined,
      );
    for (const r of this.memoryRows) inMemory(r);
  }

  /** Table rows matching `which` move to memory (changed by `then`), hidden in the table until it can be written. */
  private takeOver(which: (r: OutboxRow) => boolean, then: (r: OutboxRow) => void): void {
    for (const r of this.storedRows().filter(which)) {
      this.hidden.add(r.seq);
      const moved = { ...r, seq: this.nextMemorySeq-- };
      then(moved);
      this.memoryRows.push(moved);
    }
  }

  private dropMemory(seq: number): void {
    const i = this.memoryRows.findIndex((r) => r.seq === seq);
    if (i >= 0) this.memoryRows.splice(i, 1);
  }

  /** Rows memory took over leave the table once it can be written again. */
  private forgetHidden(): void {
    const sentBefore = this.sentUndeleted.size;
    for (const seq of this.hidden) {
      if (!this.write(() => this.db.prepare('DELETE FROM alert_outbox WHERE seq = ?').run(seq))) break;
      this.hidden.delete(seq);
      this.sentUndeleted.delete(seq);
    }
    if (this.sentUndeleted.size !== sentBefore) this.saveSentUndeleted();
  }
}

function messageOf(r: Record<string, unknown>): AlertMessage | null {
  const parsed = parseJson(r.message as string, { maxBytes: MAX_RECORD_BYTES, what: 'an alert message' });
  return parsed.ok ? (parsed.value as AlertMessage) : null;
}

/** The message with its `at` moved as `move` moves a time (a time that was set stays). */
function movedAt(message: AlertMessage, move: (t: number) => number): AlertMessage {
  const at = Date.parse(message.at);
  return Number.isFinite(at) && !isWallSet(at) ? { ...message, at: new Date(move(at)).toISOString() } : message;
}

function rowOf(r: Record<string, unknown>, message: AlertMessage): OutboxRow {
  return {
    seq: r.seq as number,
    messageId: r.message_id as string,
    channel: r.channel as string,
    message,
    attempts: r.attempts as number,
    nextAt: r.next_at as number,
    createdAt: r.created_at as number,
    lastError: (r.last_error as string | null) ?? null,
  };
}
