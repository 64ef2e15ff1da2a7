// The problems waiting out their `after` (the tracker's streaks), stored across a restart: one
// record in the settings table. An `after` is a duration, counted on the monotonic clock (DESIGN
// §11), which starts again at every boot: a streak is kept as its ages at the save (how long it
// had been seen, counted, clear) and goes on from them at the next start. The time the service
// was stopped does not count toward the `after` (nothing watched then), whatever the wall clock
// says of it, and neither does the time after the start before the condition is known again (a
// sensor before its first read, tracker.ts): a sensor null for 50 min of a 60 min `after`, then a
// restart, fires 10 min after its first read; a controller that crashes every 20 min fires in its
// third run, where it started the hour over every time. When the problem was first seen is a
// time a person reads (the alert's firstSeenAt): it is the real one, the wall time of the save
// less its age, as far as the clock shows the stop (a clock not set then or now, or behind the
// save, shows nothing of it). A kill -9 loses at most the time since the last save (PENDING_SAVE_MS).
import type { Db } from '../store/db.js';
import { parseJson } from '../shared/json.js';
import { isWallSet } from '../shared/wall-set.js';
import type { RestoredStreak, Streak } from './tracker.js';

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
  /** A stop whose length the clock did not show is in its ages (RestoredStreak.stopUnknown). */
  stopUnknown?: boolean;
}

interface StoredRecord {
  /** The wall time of the save (epoch ms), or null when the clock was not set. */
  savedAt?: number | null;
  pending: StoredStreak[];
}

export class PendingStore {
  private warned = false;

  constructor(
    private readonly db: Db,
    /** Monotonic ms, and the wall clock (epoch ms; null while not set). */
    private readonly clock: { now: () => number; wall: () => number | null },
    /** A write the storage refused (a full disk): noted, not thrown; true when it was the storage. */
    private readonly storageFailed: (e: unknown) => boolean,
    private readonly warn: (problem: string) => void,
  ) {}

  /** The streaks as the last run left them, on this run's monotonic clock. */
  load(): Array<[string, RestoredStreak]> {
    const row = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(RECORD_KEY) as
      | { value: string }
      | undefined;
    if (!row) return [];
    const parsed = parseJson(row.value, { maxBytes: MAX_BYTES, what: 'the pending alerts record' });
    const record = parsed.ok ? (parsed.value as Partial<StoredRecord> | null) : null;
    if (!record || typeof record !== 'object' || !Array.isArray(record.pending)) {
      this.warn('the pending alerts record is not valid: their times start again');
      return [];
    }
    const now = this.clock.now();
    const gap = this.stoppedFor(record.savedAt);
    // Stopped for a time the clock does not show (gap null): the streak's ages leave it out.
    const unknownGap = gap === null;
    const out: Array<[string, RestoredStreak]> = [];
    const bad: string[] = [];
    for (const s of record.pending as Array<Partial<StoredStreak> | null>) {
      const problem = streakProblem(s);
      if (problem) {
        bad.push(problem);
        continue;
      }
      const v = s as StoredStreak;
      const streak: RestoredStreak = {
        firstSeenAt: now - (gap ?? 0) - v.seenMs,
        countedMs: v.countedMs,
        clearSince: v.clearMs === null ? null : now - v.clearMs,
        count: v.count,
      };
      if (v.toward !== undefined) {
        streak.toward = v.toward;
        streak.best = v.best;
      }
      if (unknownGap || v.stopUnknown === true) streak.stopUnknown = true;
      out.push([v.key, streak]);
    }
    if (bad.length)
      this.warn(
        `${bad.length} of the ${record.pending.length} pending alerts in their stored record ${bad.length === 1 ? 'is' : 'are'} not valid (${bad.slice(0, 3).join('; ')}${bad.length > 3 ? '; ...' : ''}): ${bad.length === 1 ? 'its' : 'their'} times start again, the others go on`,
      );
    return out;
  }

  /** How long the service was stopped, as the wall clock shows it; null when it shows nothing of it. */
  private stoppedFor(savedAt: unknown): number | null {
    const wall = this.clock.wall();
    if (typeof savedAt !== 'number' || !isWallSet(savedAt) || wall === null || !isWallSet(wall) || wall < savedAt)
      return null;
    return wall - savedAt;
  }

  save(streaks: ReadonlyMap<string, Streak>, restored: ReadonlyMap<string, RestoredStreak>, now: number): void {
    const wall = this.clock.wall();
    const record: StoredRecord = {
      savedAt: wall !== null && isWallSet(wall) ? Math.round(wall) : null,
      pending: [
        ...[...streaks].map(([key, s]) => ({
          key,
          seenMs: Math.round(now - s.firstSeenAt),
          countedMs: Math.round(now - s.countFrom),
          clearMs: s.clearSince === null ? null : Math.round(now - s.clearSince),
          count: s.count,
          ...(s.toward !== undefined ? { toward: s.toward, best: s.best } : {}),
          ...(s.stopUnknown ? { stopUnknown: true } : {}),
        })),
        // Not known since the start (a sensor not read yet): the time counted toward the `after` waits.
        ...[...restored].map(([key, s]) => ({
          key,
          seenMs: Math.round(now - s.firstSeenAt),
          countedMs: s.countedMs,
          clearMs: s.clearSince === null ? null : Math.round(now - s.clearSince),
          count: s.count,
          ...(s.toward !== undefined ? { toward: s.toward, best: s.best } : {}),
          ...(s.stopUnknown ? { stopUnknown: true } : {}),
        })),
      ],
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

/** What is wrong with a stored streak (naming its key where it has one), or null. */
function streakProblem(s: Partial<StoredStreak> | null): string | null {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) return 'an entry that is not an object';
  if (typeof s.key !== 'string' || s.key === '') return 'an entry without a key';
  const bad = (field: string, v: unknown) =>
    `${s.key}: ${field} ${typeof v === 'number' ? String(v) : (JSON.stringify(v) ?? String(v))}`;
  if (!age(s.seenMs)) return bad('seenMs', s.seenMs);
  if (!age(s.countedMs)) return bad('countedMs', s.countedMs);
  if (s.clearMs !== null && !age(s.clearMs)) return bad('clearMs', s.clearMs);
  // A count is how often the problem went bad: 1 or more, whole.
  if (!Number.isSafeInteger(s.count) || (s.count as number) < 1) return bad('count', s.count);
  if (s.toward !== undefined || s.best !== undefined) {
    if (typeof s.toward !== 'string') return bad('toward', s.toward);
    if (typeof s.best !== 'number' || !Number.isFinite(s.best)) return bad('best', s.best);
  }
  return null;
}
