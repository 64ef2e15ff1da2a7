// The problems waiting out their `after` (the tracker's streaks), stored across a restart: one
// record in the settings table. An `after` is a duration, counted on the monotonic clock (DESIGN
// §11), which starts again at every boot: a streak is kept as its ages at the save (how long it
// had been seen, counted, clear) and goes on from them at the next start. The time the service
// was stopped does not count (nothing watched then), whatever the wall clock says of it: a sensor
// null for 50 min of a 60 min `after`, then a restart, fires 10 min after the start; a controller
// that crashes every 20 min fires in its third run, where it started the hour over every time. A
// kill -9 loses at most the time since the last save (PENDING_SAVE_MS).
import type { Db } from '../store/db.js';
import { parseJson } from '../shared/json.js';
import type { Streak } from './tracker.js';

const RECORD_KEY = 'alert-pending';
/** A streak is about 150 bytes: room for thousands of blocks' conditions. */
const MAX_BYTES = 1024 * 1024;

interface StoredStreak {
  key: string;
  /** Ages at the save, ms. */
  seenMs: number;
  countedMs: number;
  clearMs: number | null;
  count: number;
  toward?: string;
  best?: number;
}

interface StoredRecord {
  pending: StoredStreak[];
}

export class PendingStore {
  private warned = false;

  constructor(
    private readonly db: Db,
    /** Monotonic ms. */
    private readonly now: () => number,
    /** A write the storage refused (a full disk): noted, not thrown; true when it was the storage. */
    private readonly storageFailed: (e: unknown) => boolean,
    private readonly warn: (problem: string) => void,
  ) {}

  load(): Array<[string, Streak]> {
    const row = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(RECORD_KEY) as
      | { value: string }
      | undefined;
    if (!row) return [];
    const parsed = parseJson(row.value, { maxBytes: MAX_BYTES, what: 'the pending alerts record' });
    const record = parsed.ok ? (parsed.value as Partial<StoredRecord>) : null;
    if (!record || !Array.isArray(record.pending)) {
      this.warn('the pending alerts record is not valid: their times start again');
      return [];
    }
    const now = this.now();
    const out: Array<[string, Streak]> = [];
    for (const s of record.pending as Partial<StoredStreak>[]) {
      if (!validStreak(s)) continue;
      const streak: Streak = {
        firstSeenAt: now - s.seenMs,
        countFrom: now - s.countedMs,
        clearSince: s.clearMs === null ? null : now - s.clearMs,
        count: s.count,
      };
      if (typeof s.toward === 'string' && typeof s.best === 'number') {
        streak.toward = s.toward;
        streak.best = s.best;
      }
      out.push([s.key, streak]);
    }
    return out;
  }

  save(streaks: ReadonlyMap<string, Streak>, now: number): void {
    const record: StoredRecord = {
      pending: [...streaks].map(([key, s]) => ({
        key,
        seenMs: Math.round(now - s.firstSeenAt),
        countedMs: Math.round(now - s.countFrom),
        clearMs: s.clearSince === null ? null : Math.round(now - s.clearSince),
        count: s.count,
        ...(s.toward !== undefined ? { toward: s.toward, best: s.best } : {}),
      })),
    };
    try {
      this.db
        .prepare(
          'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
        )
        .run(RECORD_KEY, JSON.stringify(record));
      this.warned = false;
    } catch (e) {
      if (!this.storageFailed(e)) throw e;
      if (!this.warned) this.warn('the pending alerts could not be stored: a restart starts their times again');
      this.warned = true;
    }
  }
}

const age = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

function validStreak(s: Partial<StoredStreak> | null): s is StoredStreak {
  return (
    s !== null &&
    typeof s === 'object' &&
    typeof s.key === 'string' &&
    age(s.seenMs) &&
    age(s.countedMs) &&
    (s.clearMs === null || age(s.clearMs)) &&
    Number.isSafeInteger(s.count)
  );
}
