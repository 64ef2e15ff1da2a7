// History runs forward only, on a wall clock that may be wrong (a Pi without a real-time clock
// boots at an old time; NTP then moves it, sometimes backward). In front of the store:
//   - a point is stored at the time it was measured, and only after the newest time stored so
//     far (the high-water mark, kept across restarts by the clock record): history never holds
//     two measurements for one time, nor points from before a jump as if they came after it;
//   - a point measured while the clock is behind that mark is held (bounded) with its monotonic
//     time, in case a jump forward says where it belongs: it is stored then at its measured time
//     on the corrected clock (a Pi that booted 6 months back keeps its first minutes);
//   - held points still behind the mark once the clock has caught up without such a jump (the
//     clock was set back) are dropped, counted and logged;
//   - a clock behind the newest stored time for BEHIND_LIMIT_MS was set back for good (it ran
//     fast): it is taken as right, and the points held are stored at their times on it. Without
//     this, a clock corrected by a month would store nothing for a month.
import { BEHIND_LIMIT_MS } from '../shared/clock-behind.js';
import type { HistoryDrops } from './drops.js';
import type { HistoryStore } from './store.js';

/** Points held at most while the clock is behind (about 15 min of a controller's own history). */
export const MAX_HELD_POINTS = 20_000;

export interface GateClock {
  /** Wall clock, epoch ms. */
  wall(): number;
  /** Monotonic ms. */
  now(): number;
  /** While the clock is behind the newest wall time known from before this start: that time (history stays after it); else null. */
  highWater(): number | null;
}

interface Held {
  key: string;
  fields: ReadonlyArray<readonly [string, number]>;
  /** Monotonic time of the measurement. */
  m: number;
  reserved: boolean;
}

export class ClockGate {
  /** The newest time stored through this gate. */
  private high = -Infinity;
  /** Monotonic ms since the clock has been behind `high` (set back while running), or null. */
  private setBackSince: number | null = null;
  private held: Held[] = [];
  private heldPoints = 0;
  private readonly counts = { held: 0, released: 0, dropped: 0 };

  constructor(
    private readonly store: Pick<HistoryStore, 'write'>,
    private readonly clock: GateClock,
    /** The shared drop counter (drops.ts): these are counted under 'clock behind', not as the controller's own. */
    private readonly drops: HistoryDrops,
    private readonly maxHeld = MAX_HELD_POINTS,
  ) {}

  /** One message's points, stamped `t` (wall clock at its measurement). */
  write(key: string, fields: ReadonlyArray<readonly [string, number]>, t: number, reserved = false): void {
    this.acceptSetBack();
    if (this.held.length) this.release();
    if (t >= this.mark() && !this.held.length) {
      this.pass(key, fields, t, reserved);
      return;
    }
    this.hold({ key, fields, m: this.clock.now() - (this.clock.wall() - t), reserved });
    this.release();
  }

  private pass(key: string, fields: ReadonlyArray<readonly [string, number]>, t: number, reserved: boolean): void {
    this.high = Math.max(this.high, t);
    this.store.write(key, fields, t, reserved);
  }

  private hold(h: Held): void {
    this.held.push(h);
    this.heldPoints += h.fields.length;
    this.counts.held += h.fields.length;
    while (this.heldPoints > this.maxHeld && this.held.length > 1) {
      const old = this.held.shift()!;
      this.heldPoints -= old.fields.length;
      this.drop(old, `${this.maxHeld} points are held while the clock is behind the newest stored time`);
    }
  }

  /** After BEHIND_LIMIT_MS behind the newest stored time, that time no longer holds history back. */
  private acceptSetBack(): void {
    const wall = this.clock.wall();
    // Behind the time from before this start is the clock record's to judge (src/service/wall-clock.ts).
    if (wall >= this.high || this.clock.highWater() !== null) {
      this.setBackSince = null;
      return;
    }
    const now = this.clock.now();
    this.setBackSince ??= now;
    if (now - this.setBackSince < BEHIND_LIMIT_MS) return;
    this.setBackSince = null;
    const oldest = this.held[0];
    this.high = oldest ? Math.min(wall, Math.round(wall - (now - oldest.m))) : wall;
  }

  /** History stays after this: the newest time stored, or while the clock is behind, the newest time seen before the start. */
  private mark(): number {
    return Math.max(this.high, this.clock.highWater() ?? -Infinity);
  }

  /** Held points, oldest first: stored once their time on the clock as it reads now is past the mark; dropped when the clock has caught up and they are not. */
  private release(): void {
    const wall = this.clock.wall();
    const now = this.clock.now();
    while (this.held.length) {
      const h = this.held[0]!;
      // Whole milliseconds, as every stamp (the stores encode integers).
      const t = Math.round(wall - (now - h.m));
      const mark = this.mark();
      if (t >= mark) {
        this.counts.released += h.fields.length;
        this.pass(h.key, h.fields, t, h.reserved);
      } else if (wall >= mark) this.drop(h, 'the wall clock was set back');
      else return;
      this.held.shift();
      this.heldPoints -= h.fields.length;
    }
  }

  private drop(h: Held, why: string): void {
    this.counts.dropped += h.fields.length;
    this.drops.dropPoints(
      'clock behind',
      h.fields.length,
      false,
      `${why}; ${h.fields.length} points of key ${JSON.stringify(h.key)} measured before the newest stored time (${new Date(this.mark()).toISOString()}) dropped`,
    );
  }

  status(): Record<string, unknown> {
    return {
      heldPoints: this.heldPoints,
      ...this.counts,
      storedAfter: Number.isFinite(this.mark()) ? new Date(this.mark()).toISOString() : null,
    };
  }
}
