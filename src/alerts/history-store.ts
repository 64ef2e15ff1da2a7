// The last alert events (GET /alerts, the dashboard's list): a table bounded to `limit` rows, or
// memory while the disk refuses writes. An entry written while the wall clock was not set (1970:
// a Pi before network time) by an earlier run is moved when the clock is set, by the rule that
// moves the outbox rows (AlertStore.placeUnset). Those this run wrote say when they happened by the
// active alerts' rule (times.ts, wallOf): each keeps its monotonic time, and its `at` is made against
// the wall clock as it reads now, so a jump or a clock set moves them the moment it moves the
// active alerts; the stored rows are written again with the jump (storeAgain).
import type { Db } from '../store/db.js';
import { parseJson } from '../shared/json.js';
import { isWallSet } from '../shared/wall-set.js';
import { MAX_RECORD_BYTES } from '../shared/limits.js';
import { wallOf, type AlertClock } from './times.js';
import type { HistoryEntry } from './types.js';

export class AlertHistory {
  /** Entries the disk refused (memory: this run's), with their monotonic time. */
  private readonly memory: Array<{ entry: HistoryEntry; mono: number | null }> = [];
  /** This run's stored rows: seq -> monotonic time (those of earlier runs were written on their own clocks). */
  private readonly monoOf = new Map<number, number>();

  constructor(
    private readonly db: Db,
    private readonly limit: number,
    /** Runs a write; false when the storage fails it (AlertStore.write). */
    private readonly write: (fn: () => void) => boolean,
    /** The alerts' clock; without it entries keep the `at` they were written with. */
    private readonly clock?: AlertClock,
  ) {}

  add(entry: HistoryEntry): void {
    const written = Date.parse(entry.at);
    const mono = this.clock && Number.isFinite(written) ? written - (this.clock.wall() - this.clock.now()) : null;
    let seq = 0;
    const stored = this.write(() => {
      seq = this.db.prepare('INSERT INTO alert_history (value) VALUES (?)').run(JSON.stringify(entry))
        .lastInsertRowid as number;
      this.db.prepare('DELETE FROM alert_history WHERE seq <= ?').run(seq - this.limit);
    });
    if (stored) {
      if (mono !== null) this.monoOf.set(seq, mono);
      for (const s of this.monoOf.keys()) if (s <= seq - this.limit) this.monoOf.delete(s);
      return;
    }
    this.memory.push({ entry, mono });
    if (this.memory.length > this.limit) this.memory.shift();
  }

  list(limit = this.limit): HistoryEntry[] {
    const at = this.madeAt();
    // A row whose bytes went bad on the card is left out, not a failed request.
    const stored = this.rows(limit).flatMap((r) => (r.entry ? [at(r.entry, this.monoOf.get(r.seq))] : []));
    if (!this.memory.length) return stored;
    return [...this.memory.map((m) => at(m.entry, m.mono)), ...stored]
      .sort((a, b) => b.at.localeCompare(a.at))
      .slice(0, limit);
  }

  /** An entry with its `at` as the wall clock reads now, where this run wrote it (its monotonic time known). */
  private madeAt(): (e: HistoryEntry, mono: number | null | undefined) => HistoryEntry {
    const wall = this.clock && wallOf(this.clock);
    return (e, mono) => (wall && mono != null ? { ...e, at: new Date(wall(mono)).toISOString() } : e);
  }

  /**
   * Entries of earlier runs whose `at` is a clock not set get it as `move` moves a time
   * (AlertStore.placeUnset); this run's are stored again with the times they happened.
   */
  placeUnset(move: (t: number) => number): void {
    const moved = (e: HistoryEntry): HistoryEntry => {
      const at = Date.parse(e.at);
      return Number.isFinite(at) && !isWallSet(at) ? { ...e, at: new Date(move(at)).toISOString() } : e;
    };
    this.rewrite((seq, e) => (this.monoOf.has(seq) ? null : moved(e)));
    for (const m of this.memory) if (m.mono === null) m.entry = moved(m.entry);
    this.storeAgain();
  }

  /**
   * The wall clock jumped, or was set: the rows this run wrote are stored again with the times
   * they happened as it reads now (a restart reads them as written), as the active alerts are
   * (Tracker.storeAgain). Those of earlier runs were written on their own clocks, and stay.
   */
  storeAgain(): void {
    const at = this.madeAt();
    this.rewrite((seq, e) => (this.monoOf.has(seq) ? at(e, this.monoOf.get(seq)) : null));
  }

  /** Stores again the rows `to` changes (null: leaves it). */
  private rewrite(to: (seq: number, e: HistoryEntry) => HistoryEntry | null): void {
    const changes = this.rows(this.limit).flatMap((r) => {
      const e = r.entry && to(r.seq, r.entry);
      return e && e.at !== r.entry!.at ? [[r.seq, e] as const] : [];
    });
    if (!changes.length) return;
    const update = this.db.prepare('UPDATE alert_history SET value = ? WHERE seq = ?');
    // Not written (a full disk): they stay as they were (this run's still read right: list).
    this.write(() => this.db.transaction(() => changes.forEach(([seq, e]) => update.run(JSON.stringify(e), seq)))());
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
