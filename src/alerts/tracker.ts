// From observations to alerts: a problem fires once when it has lasted its `after` (one that is
// getting better, Observation.progress, counts from its last progress), resolves
// once when it has stayed clear for `resolveAfter`, reminds every `remindMs` until acknowledged.
// A problem that comes back before it resolved is the same alert with a higher count, so a
// flapping sensor makes one alert, not a storm. Active alerts are stored, so a restart still
// sends the resolve. Times are monotonic ms (times.ts). A condition whose state is not known
// yet (a sensor not read since the start) is neither bad nor clear: its streak and its alert
// wait, so a start is never an event. The streaks (problems waiting out their `after`) are stored
// too (pending-record.ts), as the time they have run: a restart, or a controller that crashes
// again and again, does not start their time over. A stored streak goes on from the first
// evaluation that knows its condition again: the wait for a sensor's first read after a start
// counts toward its `after` no more than the time the service was stopped.
import type { ActiveAlert, AlertEnd, AlertEventKind, Observation } from './types.js';

/** How often the streaks are stored at most, while there are any or they changed: what a kill -9 loses at most. */
export const PENDING_SAVE_MS = 10_000;

export interface TrackerOptions {
  /** Read on each evaluation: the rules can change it. */
  remindMs: () => number;
  load: () => ActiveAlert[];
  save: (a: ActiveAlert) => void;
  remove: (key: string) => void;
  /** `ended`: why a resolve came other than by the condition clearing (its block was deleted). */
  emit: (event: AlertEventKind, alert: ActiveAlert, ended?: AlertEnd) => void;
  /** The streaks as a restart left them (monotonic ms of this run), and where they go. */
  pending?: {
    load: () => Array<[string, RestoredStreak]>;
    save: (streaks: ReadonlyMap<string, Streak>, restored: ReadonlyMap<string, RestoredStreak>, now: number) => void;
  };
}

const NONE: ReadonlySet<string> = new Set();

export interface Streak {
  firstSeenAt: number;
  clearSince: number | null;
  count: number;
  /** Where the count of `after` runs from: the first sighting, or the last progress (Observation.progress). */
  countFrom: number;
  /** The way and the furthest point of the last progress. */
  toward?: string;
  best?: number;
  /** A stop the clock did not show is in it: ActiveAlert.stopUnknown. */
  stopUnknown?: boolean;
}

/**
 * A streak stored by an earlier run, not known again since the start: the time it has counted
 * toward its `after` waits (it does not grow before the condition is known to be bad again); its
 * first sighting, and the start of a clear spell it was in, are times (this run's monotonic ms, as
 * far before the start as they really were, less the time stopped): a problem clear at the stop
 * and clear at the first read was clear between, so a blip before a restart is not held against
 * the next start.
 */
export interface RestoredStreak {
  firstSeenAt: number;
  countedMs: number;
  clearSince: number | null;
  count: number;
  toward?: string;
  best?: number;
  /** The service was stopped for a time the clock did not show: ActiveAlert.stopUnknown. */
  stopUnknown?: boolean;
}

export class Tracker {
  private readonly active = new Map<string, ActiveAlert>();
  private readonly clearSince = new Map<string, number>();
  private readonly streaks = new Map<string, Streak>();
  /** Stored streaks whose condition is not known yet since the start (RestoredStreak). */
  private readonly restored = new Map<string, RestoredStreak>();
  /** The streaks changed since they were stored; when they were stored (monotonic ms). */
  private streaksChanged = false;
  private streaksSavedAt = -Infinity;

  constructor(private readonly o: TrackerOptions) {
    for (const a of o.load()) this.active.set(a.key, a);
    for (const [key, streak] of o.pending?.load() ?? []) if (!this.active.has(key)) this.restored.set(key, streak);
  }

  /** Stores the streaks now (at a stop; update() does so every PENDING_SAVE_MS while there are any or they changed). */
  savePending(now: number): void {
    if (!this.o.pending) return;
    this.streaksChanged = false;
    this.streaksSavedAt = now;
    this.o.pending.save(this.streaks, this.restored, now);
  }

  /**
   * Stores every active alert again: the wall clock moved (a jump, or set after reading 1970), so
   * the wall times they were stored with are not the times they happened (times.ts).
   */
  storeAgain(): void {
    for (const alert of this.active.values()) this.o.save(alert);
  }

  list(): ActiveAlert[] {
    return [...this.active.values()].sort((a, b) => a.firstSeenAt - b.firstSeenAt);
  }

  get(key: string): ActiveAlert | undefined {
    return this.active.get(key);
  }

  /**
   * One evaluation: `seen` is every problem present now; `unknown` the keys whose state is not
   * known yet (neither bad nor clear: nothing about them changes).
   */
  update(seen: Observation[], now: number, resolveAfterMs: number, unknown: ReadonlySet<string> = NONE): void {
    this.resume(now, unknown);
    const present = new Set<string>();
    for (const obs of seen) {
      present.add(obs.key);
      const alert = this.active.get(obs.key);
      if (alert) this.stillBad(alert, obs, now);
      else this.pending(obs, now, resolveAfterMs);
    }
    for (const [key, alert] of this.active) {
      if (present.has(key) || alert.oneShot || unknown.has(key)) continue;
      const since = this.clearSince.get(key) ?? now;
      this.clearSince.set(key, since);
      if (now - since >= resolveAfterMs) this.resolve(alert);
    }
    for (const [key, streak] of this.streaks) {
      if (present.has(key) || unknown.has(key)) continue;
      if (streak.clearSince === null) {
        streak.clearSince = now;
        this.streaksChanged = true;
      }
      if (now - streak.clearSince >= resolveAfterMs) {
        this.streaks.delete(key);
        this.streaksChanged = true;
      }
    }
    const remindMs = this.o.remindMs();
    for (const alert of this.active.values()) {
      if (alert.acknowledged || alert.oneShot || alert.lastNotifiedAt === null) continue;
      if (now - alert.lastNotifiedAt >= remindMs) {
        alert.lastNotifiedAt = now;
        this.o.save(alert);
        this.o.emit('reminder', alert);
      }
    }
    // At most every PENDING_SAVE_MS (a flapping sensor changes them every second): what a kill -9 loses.
    if (
      (this.streaksChanged || this.streaks.size > 0 || this.restored.size > 0) &&
      now - this.streaksSavedAt >= PENDING_SAVE_MS
    )
      this.savePending(now);
  }

  /** Stored streaks whose condition is known now (bad or clear) go on from their ages at `now`. */
  private resume(now: number, unknown: ReadonlySet<string>): void {
    for (const [key, r] of this.restored) {
      if (unknown.has(key)) continue;
      this.restored.delete(key);
      this.streaksChanged = true;
      const streak: Streak = {
        firstSeenAt: r.firstSeenAt,
        countFrom: now - r.countedMs,
        clearSince: r.clearSince,
        count: r.count,
      };
      if (r.toward !== undefined) {
        streak.toward = r.toward;
        streak.best = r.best;
      }
      if (r.stopUnknown) streak.stopUnknown = true;
      this.streaks.set(key, streak);
    }
  }

  /** A one-shot alert (an unclean stop): fires now, stays until acknowledged. */
  fireOnce(obs: Pick<Observation, 'key' | 'kind' | 'text' | 'values'>, now: number): void {
    const alert: ActiveAlert = {
      key: obs.key,
      kind: obs.kind,
      text: obs.text,
      values: obs.values,
      firstSeenAt: now,
      lastSeenAt: now,
      firedAt: now,
      lastNotifiedAt: now,
      count: 1,
      acknowledged: false,
      oneShot: true,
    };
    this.active.set(alert.key, alert);
    this.o.save(alert);
    this.o.emit('fired', alert);
  }

  /** Stops reminders; a one-shot alert goes away. Returns false for an unknown key. */
  acknowledge(key: string): boolean {
    const alert = this.active.get(key);
    if (!alert) return false;
    if (alert.acknowledged) return true;
    alert.acknowledged = true;
    if (alert.oneShot) {
      this.active.delete(key);
      this.o.remove(key);
    } else {
      this.o.save(alert);
    }
    this.o.emit('acknowledged', alert);
    return true;
  }

  /**
   * A block was renamed: the active alerts `rename` changed (naming it by its new id: block-alerts.ts
   * renamedIn) are stored again.
   */
  renamed(rename: (alert: ActiveAlert) => boolean): void {
    for (const alert of this.active.values()) if (rename(alert)) this.o.save(alert);
  }

  /**
   * Blocks were deleted: their alerts end now, told as deleted. Nothing came back, so waiting
   * resolveAfter for the condition to clear would send "Back to normal" for a block that is gone.
   */
  deleted(ids: ReadonlySet<string>): void {
    for (const alert of [...this.active.values()])
      if (alert.blockId !== undefined && ids.has(alert.blockId)) this.resolve(alert, 'deleted');
  }

  /**
   * Problems that stand but are no longer watched (Evaluation.ended: the PIDs on a setpoint with
   * no setting deleted, disabled or set to read another one): their alerts end now, saying why.
   * Nothing came back, so waiting resolveAfter for the condition to clear would say "Back to normal".
   */
  ended(whys: ReadonlyMap<string, string>): void {
    for (const [key, why] of whys) {
      const alert = this.active.get(key);
      if (alert) this.resolve(alert, { why });
    }
  }

  /**
   * Problems no longer watched (their block disabled, their rule turned off) that had not fired: their streaks, and those
   * a restart left, are dropped, so the wait for their `after` starts over once watched again.
   */
  drop(keys: ReadonlySet<string>): void {
    for (const key of keys) if (this.streaks.delete(key) || this.restored.delete(key)) this.streaksChanged = true;
  }

  /** The problems waiting out their `after` (streaks, and those a restart left), by key. */
  pendingKeys(): string[] {
    return [...this.streaks.keys(), ...this.restored.keys()];
  }

  /** Alerts the rules no longer watch for (turned off): they end now, told as such, not as back to normal. */
  unwatched(watched: (a: ActiveAlert) => boolean): void {
    for (const alert of [...this.active.values()])
      if (!alert.oneShot && !watched(alert)) this.resolve(alert, 'unwatched');
  }

  private stillBad(alert: ActiveAlert, obs: Observation, now: number): void {
    const wasClear = this.clearSince.delete(alert.key);
    alert.lastSeenAt = now;
    alert.text = obs.text;
    alert.values = obs.values;
    alert.blockId = obs.blockId;
    alert.dependsOn = obs.dependsOn;
    if (wasClear) {
      alert.count++;
      this.o.save(alert);
    }
  }

  private pending(obs: Observation, now: number, resolveAfterMs: number): void {
    let streak = this.streaks.get(obs.key);
    if (streak && streak.clearSince !== null) {
      this.streaksChanged = true;
      const gap = now - streak.clearSince;
      if (!obs.tolerateGaps || gap >= resolveAfterMs) streak = undefined;
      else {
        streak.count++;
        streak.clearSince = null;
      }
    }
    if (!streak) {
      streak = { firstSeenAt: now, clearSince: null, count: 1, countFrom: now };
      this.streaks.set(obs.key, streak);
      this.streaksChanged = true;
    }
    const p = obs.progress;
    if (p && (p.toward !== streak.toward || p.reached >= streak.best! + p.by)) {
      this.streaksChanged = true;
      streak.toward = p.toward;
      streak.best = p.reached;
      streak.countFrom = now;
    }
    if (now - streak.countFrom < obs.after * 1000) return;
    this.streaks.delete(obs.key);
    this.streaksChanged = true;
    const alert: ActiveAlert = {
      key: obs.key,
      kind: obs.kind,
      blockId: obs.blockId,
      ...(obs.dependsOn ? { dependsOn: obs.dependsOn } : {}),
      ...(streak.stopUnknown ? { stopUnknown: true } : {}),
      text: obs.text,
      values: obs.values,
      firstSeenAt: streak.firstSeenAt,
      lastSeenAt: now,
      firedAt: now,
      lastNotifiedAt: now,
      count: streak.count,
      acknowledged: false,
    };
    this.active.set(alert.key, alert);
    this.o.save(alert);
    this.o.emit('fired', alert);
  }

  private resolve(alert: ActiveAlert, ended?: AlertEnd): void {
    this.active.delete(alert.key);
    this.clearSince.delete(alert.key);
    if (this.streaks.delete(alert.key) || this.restored.delete(alert.key)) this.streaksChanged = true;
    this.o.remove(alert.key);
    this.o.emit('resolved', alert, ended);
  }
}
