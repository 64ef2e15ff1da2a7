// The wall clock as the service sees it across starts (DESIGN §11, two clocks). A record in the
// settings table, written every minute and at stop, holds the wall time last seen and the newest
// one ever seen (the high-water mark); while the disk is full it goes to a reserve file instead
// (a restart on a full disk must not take the hours since the disk filled for time stopped). At a start:
//   - the time the service was stopped, as the clock shows it, is handed to the blocks as a move
//     of the wall clock (runtime.moveWall): a running profile resumes where it was;
//   - a clock behind the high-water mark (a Pi without a real-time clock that booted at an old
//     saved time, or never saved one) is "behind": said in the log and in system/status until
//     it has caught up or jumped forward; history holds its points meanwhile (clock-gate.ts).
//     A clock that stays behind for an hour is taken as right, unless it reads not set (1970).
//     A jump forward meanwhile is the rest of the time the service was stopped (the clock did
//     not show it at the start): the blocks take it as a restart's move, not a jump's, so a
//     profile set to start later keeps its date.
// While running, every jump the runtime sees (WallClockWatch) is logged and shown in status.
import type { Db } from '../store/db.js';
import type { Logger } from '../log.js';
import { describeJump, JUMP_MS, type ClockJump } from '../runtime/clock.js';
import type { BlockRuntime } from '../runtime/runtime.js';
import { BEHIND_LIMIT_MS } from '../shared/clock-behind.js';
import { parseJson } from '../shared/json.js';
import type { ReserveFile } from '../store/reserve-file.js';

const RECORD_KEY = 'wall-clock';
export const CLOCK_RESERVE_FILE = 'wall-clock.reserve';
export const CLOCK_RESERVE_BYTES = 512;
export { BEHIND_LIMIT_MS };
/** How often the record is written: a kill -9 or power loss loses at most this much of a running profile's place. */
export const SAVE_INTERVAL_MS = 60_000;

interface ClockRecord {
  /** Wall time last seen, epoch ms. */
  last: number;
  /** Newest wall time ever seen (lowered only by a jump backward while running: the correction of a fast clock). */
  high: number;
}

export class WallClockService {
  readonly name = 'clock';
  private record: ClockRecord | null = null;
  /** Set while the clock is behind the high-water mark. */
  private behindSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly onJump = (jump: ClockJump) => this.jumped(jump);
  private readonly onSet = (wall: number) => this.clockSet(wall);
  /** The wall time last seen before this start, while a start on a clock not set waits for it. */
  private stoppedAt: number | null = null;

  constructor(
    private readonly db: Db,
    private readonly runtime: BlockRuntime,
    private readonly log: Logger,
    /** Where the record goes while the database cannot be written (a full disk). */
    private readonly reserve?: ReserveFile,
  ) {}

  private wall(): number {
    return this.runtime.clock.wall() ?? Date.now();
  }

  /** While the clock is behind: the newest wall time seen before (history stays after it); else null. */
  highWater(): number | null {
    return this.behindSince !== null && this.record ? this.record.high : null;
  }

  get behind(): boolean {
    return this.behindSince !== null;
  }

  start(): void {
    // The runtime's reference for jumps, taken with the reading below: a jump before the first
    // tick is still one.
    this.runtime.checkClock();
    const set = this.runtime.clock.wall() !== null;
    const wall = this.wall();
    this.record = this.load();
    if (this.record) {
      // A clock not set (a Pi without a saved time boots at 1970) tells nothing of the time the
      // service was stopped: profiles wait for it (they are paused meanwhile), and move once it is set.
      if (set) this.runtime.moveWall({ byMs: wall - this.record.last, reason: 'restart', wall });
      else {
        this.stoppedAt = this.record.last;
        this.runtime.wallLastSeen(this.record.last);
      }
      if (wall < this.record.high - JUMP_MS) {
        this.behindSince = this.runtime.clock.now();
        this.log.warn(
          { clock: new Date(wall).toISOString(), lastSeen: new Date(this.record.high).toISOString() },
          `the wall clock is behind the last time this controller saw (${describeJump(wall - this.record.high).replace(' backward', '')}): waiting for network time; control runs on, history holds its points until the clock is right`,
        );
      }
    }
    this.runtime.jumpIsTimeStopped = () => this.behindSince !== null;
    this.runtime.on('clockJump', this.onJump);
    this.runtime.on('clockSet', this.onSet);
    this.save();
    this.timer = setInterval(() => this.saveNow(), SAVE_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.runtime.off('clockJump', this.onJump);
    this.runtime.off('clockSet', this.onSet);
    this.runtime.jumpIsTimeStopped = () => false;
    this.runtime.checkClock();
    this.save();
  }

  private jumped(jump: ClockJump): void {
    const wall = jump.at;
    this.log.warn(
      { jumpMs: Math.round(jump.byMs), clock: new Date(wall).toISOString() },
      `the wall clock jumped ${describeJump(jump.byMs)}; control, timers and profiles keep their time`,
    );
    if (this.record && jump.byMs < 0 && this.behindSince === null) this.record.high = wall;
    this.catchUp(wall);
    this.save();
  }

  /** The clock was set after a start on a clock that was not: the time since the stop moves the profiles now. */
  private clockSet(wall: number): void {
    if (this.stoppedAt !== null) {
      this.runtime.moveWall({ byMs: wall - this.stoppedAt, reason: 'restart', wall });
      this.stoppedAt = null;
    }
    this.log.info({ clock: new Date(wall).toISOString() }, 'the wall clock is set');
    this.catchUp(wall);
    this.save();
  }

  private catchUp(wall: number): void {
    if (this.behindSince === null || !this.record || wall < this.record.high - JUMP_MS) return;
    this.behindSince = null;
    this.log.info({ clock: new Date(wall).toISOString() }, 'the wall clock has caught up with the last time seen');
  }

  private load(): ClockRecord | null {
    const row = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(RECORD_KEY) as
      | { value: string }
      | undefined;
    let stored: ClockRecord | null = null;
    if (row) {
      const parsed = parseJson(row.value, { maxBytes: 1024, what: 'the wall clock record' });
      stored = parsed.ok ? validRecord(parsed.value) : null;
      if (!stored) this.log.warn('the wall clock record is not valid; starting without it');
    }
    // The reserve holds the record while the table could not take it (a full disk); of the two
    // the newer counts, so a reserve left behind cannot move a running profile back.
    const reserved = validRecord(this.reserve?.read() ?? null);
    return reserved && (!stored || reserved.last > stored.last) ? reserved : stored;
  }

  /**
   * What the minute's timer does: looks for a jump first (the runtime's checkClock), so a step of
   * the clock since the last tick or write is taken as what it is (time stopped, while behind)
   * before the save's catch-up ends "behind"; then writes the wall time.
   */
  saveNow(): void {
    if (!this.runtime.checkClock()) this.save();
  }

  /** Writes the wall time now; the high-water mark only rises (while behind it stays). */
  private save(): void {
    const wall = this.wall();
    this.catchUp(wall);
    // A clock that reads not set (1970) is never taken as right, however long it stays so.
    const set = this.runtime.clock.wall() !== null;
    if (set && this.behindSince !== null && this.runtime.clock.now() - this.behindSince >= BEHIND_LIMIT_MS) {
      this.log.warn(
        { clock: new Date(wall).toISOString() },
        'the wall clock stayed behind the last time seen for an hour without network time: taken as right from now on',
      );
      this.behindSince = null;
      if (this.record) this.record.high = wall;
    }
    const high = Math.max(this.record?.high ?? wall, wall);
    // A clock not set is no time seen: the last one stays, for the move once it is set or at the next start.
    const last = !set && this.record ? this.record.last : wall;
    this.record = { last, high };
    try {
      this.db
        .prepare(
          'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
        )
        .run(RECORD_KEY, JSON.stringify(this.record));
      this.reserve?.write(null);
    } catch (e) {
      if (!this.reserve?.write(this.record)) this.log.warn({ err: e }, 'the wall clock record could not be written');
    }
  }

  status(): Record<string, unknown> {
    const w = this.runtime.wallWatch;
    const last = w.last;
    const now = this.runtime.clock.now();
    return {
      clock: {
        now: new Date(this.wall()).toISOString(),
        jumps: w.count,
        lastJump: last && {
          at: new Date(last.at).toISOString(),
          byMs: Math.round(last.byMs),
          text: `jumped ${describeJump(last.byMs)}`,
          secondsAgo: Math.round((now - last.seenAt) / 1000),
        },
        behind:
          this.behindSince !== null && this.record
            ? { lastSeen: new Date(this.record.high).toISOString(), byMs: Math.round(this.record.high - this.wall()) }
            : null,
      },
    };
  }
}

function validRecord(v: unknown): ClockRecord | null {
  const r = v as Partial<ClockRecord> | null;
  return r && typeof r.last === 'number' && typeof r.high === 'number' ? { last: r.last, high: r.high } : null;
}
