// The last alert events (GET /alerts, the dashboard's list): a table bounded to `limit` rows, or
// memory while the disk refuses writes. An entry written while the wall clock was not set (1970:
// a Pi before network time) is moved when it is set, by the rule that moves the outbox rows and
// the active alerts (AlertStore.placeUnset).
import type { Db } from '../store/db.js';
import { parseJson } from '../shared/json.js';
import { isWallSet } from '../shared/wall-set.js';
import { MAX_RECORD_BYTES } from '../shared/limits.js';
import type { HistoryEntry } from './types.js';

export class AlertHistory {
  private readonly memory: HistoryEntry[] = [];
  /** The last row an earlier run wrote: the rows after it are this run's. */
  private readonly lastEarlier: number;

  constructor(
    private readonly db: Db,
    private readonly limit: number,
    /** Runs a write; false when the storage fails it (AlertStore.write). */
    private readonly write: (fn: () => void) => boolean,
  ) {
    this.lastEarlier =
      (db.prepare('SELECT MAX(seq) AS seq FROM alert_history').get() as { seq: number | null }).seq ?? 0;
  }

  add(entry: HistoryEntry): void {
    const stored = this.write(() => {
      const seq = this.db.prepare('INSERT INTO alert_history (value) VALUES (?)').run(JSON.stringify(entry))
        .lastInsertRowid as number;
      this.db.prepare('DELETE FROM alert_history WHERE seq <= ?').run(seq - this.limit);
    });
    if (stored) return;
    this.memory.push(entry);
    if (this.memory.length > this.limit) this.memory.shift();
  }

  list(limit = this.limit): HistoryEntry[] {
    // A row whose bytes went bad on the card is left out, not a failed request.
    const stored = this.rows(limit).flatMap((r) => (r.entry ? [r.entry] : []));
    if (!this.memory.length) return stored;
    return [...this.memory, ...stored].sort((a, b) => b.at.localeCompare(a.at)).slice(0, limit);
  }

  /** Entries whose `at` is a clock not set get it as `move` moves a time (AlertStore.placeUnset). */
  placeUnset(move: (t: number) => number): void {
    const moved = (e: HistoryEntry): HistoryEntry | null => {
      const at = Date.parse(e.at);
      return Number.isFinite(at) && !isWallSet(at) ? { ...e, at: new Date(move(at)).toISOString() } : null;
    };
    this.change(this.rows(this.limit), moved);
  }

  /**
   * The wall clock jumped by `byMs` while this run wrote entries: they move with it, as the active
   * alerts and the outbox do (a Pi booted at an old saved time, set right by network time). Those of
   * earlier runs were written on their own clocks, and stay.
   */
  shiftThisRun(byMs: number): void {
    const moved = (e: HistoryEntry): HistoryEntry | null => {
      const at = Date.parse(e.at);
      return Number.isFinite(at) && isWallSet(at) ? { ...e, at: new Date(at + byMs).toISOString() } : null;
    };
    this.change(
      this.rows(this.limit).filter((r) => r.seq > this.lastEarlier),
      moved,
    );
  }

  private change(
    rows: Array<{ seq: number; entry: HistoryEntry | null }>,
    moved: (e: HistoryEntry) => HistoryEntry | null,
  ): void {
    const changes = rows.flatMap((r) => {
      const e = r.entry && moved(r.entry);
      return e ? [[r.seq, e] as const] : [];
    });
    if (changes.length) {
      const update = this.db.prepare('UPDATE alert_history SET value = ? WHERE seq = ?');
      // Not written (a full disk): they stay as they were.
      this.write(() => this.db.transaction(() => changes.forEach(([seq, e]) => update.run(JSON.stringify(e), seq)))());
    }
    for (const [i, e] of this.memory.entries()) this.memory[i] = moved(e) ?? e;
  }

  private rows(limit: number): Array<{ seq: number; entry: HistoryEntry | null }> {
    const rows = this.db.prepare('SELECT seq, value FROM alert_history ORDER BY seq DESC LIMIT ?').all(limit) as {
      seq: number;
      value: string;
    }[];
    return rows.map((r) => {
      const parsed = parseJson(r.value, { maxBytes: MAX_RECORD_BYTES, what: 'an alert history entry' });
      return { seq: r.seq, entry: parsed.ok ? (parsed.value as HistoryEntry) : null };
    });
  }
}
