// The runtime's sense of time. Everything time-dependent takes it from a Clock, so tests can
// run hours of control in milliseconds with a ManualClock. Two clocks (DESIGN §11): durations,
// timers and progress use the monotonic one; the wall clock only stamps history and messages.
// A Pi has no real-time clock: it boots at the time it last saved and NTP moves the wall clock
// later, by hours or days, sometimes backward. WallClockWatch tells such a jump from the
// monotonic clock's steady count; it is an event (logged, in status), never a reason to act.
import { formatDuration } from '../shared/duration.js';
import { isWallSet } from '../shared/wall-set.js';
export interface Clock {
  /** Monotonic milliseconds. */
  now(): number;
  /** Wall-clock epoch milliseconds, or null when the system clock is not trustworthy. */
  wall(): number | null;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  wall: () => {
    const t = Date.now();
    return isWallSet(t) ? t : null;
  },
};

/**
 * Timers on a clock's time. Code that sleeps until a time on its Clock takes these beside it, so a
 * test can fire them as it advances a ManualClock (test/helpers/manual-timers.ts) instead of waiting.
 */
export interface Timers {
  /** `unref`: the timer alone does not keep the process running. */
  setTimeout(fn: () => void, ms: number, opts?: { unref?: boolean }): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: Timers = {
  setTimeout: (fn, ms, opts) => {
    const timer = setTimeout(fn, ms);
    if (opts?.unref) timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class ManualClock implements Clock {
  constructor(
    private t = 0,
    private wallOrigin: number | null = Date.UTC(2026, 0, 1),
  ) {}
  now(): number {
    return this.t;
  }
  wall(): number | null {
    return this.wallOrigin === null ? null : this.wallOrigin + this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
  /** Move the wall clock alone (NTP stepping it), by `ms` either way. */
  jumpWall(ms: number): void {
    if (this.wallOrigin !== null) this.wallOrigin += ms;
  }
}

/**
 * A wall-clock step larger than this between two looks is a jump. NTP's slewing moves the wall
 * clock at most 0.5 ms a second against the monotonic one, and the two are read together.
 */
export const JUMP_MS = 1000;

export interface ClockJump {
  /** Wall-clock epoch ms just after the jump (as the clock now reads). */
  at: number;
  /** How far the wall clock moved beyond the time that passed: + forward, - backward. */
  byMs: number;
  /** Monotonic ms when it was seen. */
  seenAt: number;
}

/** Jumps kept for status. */
const KEPT = 10;

/** Watches the wall clock against the monotonic one; check() on every tick reports a jump once. */
export class WallClockWatch {
  private offset: number | null = null;
  /** The latest jumps, oldest first. */
  readonly jumps: ClockJump[] = [];
  count = 0;

  constructor(private readonly clock: Clock) {}

  /** The jump since the last look, if any. */
  check(): ClockJump | null {
    const now = this.clock.now();
    const wall = this.clock.wall();
    if (wall === null) return null;
    const offset = wall - now;
    const before = this.offset;
    this.offset = offset;
    if (before === null || Math.abs(offset - before) <= JUMP_MS) return null;
    const jump: ClockJump = { at: wall, byMs: offset - before, seenAt: now };
    this.count++;
    this.jumps.push(jump);
    if (this.jumps.length > KEPT) this.jumps.shift();
    return jump;
  }

  get last(): ClockJump | null {
    return this.jumps.at(-1) ?? null;
  }
}

/** "3d 5s forward" for a log line or a status text. */
export function describeJump(byMs: number): string {
  return `${formatDuration(Math.abs(byMs))} ${byMs >= 0 ? 'forward' : 'backward'}`;
}
