// The wall time the embedded store's retention counts back from. Retention is a duration, so it
// follows the monotonic clock (DESIGN: two clocks): a wall clock set ahead (a bad RTC, a mistyped
// date) would otherwise expire every tier at the next flush. It catches up with a wall clock
// ahead of it a quarter faster than real time (after a correction forward, or a start after the
// service was down: it starts at the newest stored record), and takes a wall clock behind it at once.

/** How much faster than real time expiry catches up with a wall clock ahead of it. */
export const EXPIRY_CATCH_UP = 1.25;

export class ExpiryClock {
  private at: { wall: number; mono: number } | null = null;

  /** Without `monotonic`, expiry is the wall clock (tests on a manual wall clock). */
  constructor(private readonly monotonic?: () => number) {}

  /** Where expiry stands now; `newestRecord` (wall ms, or null) is where it starts. */
  now(wall: number, newestRecord: () => number | null): number {
    if (!this.monotonic) return wall;
    const mono = this.monotonic();
    const at = this.at
      ? Math.min(wall, this.at.wall + (mono - this.at.mono) * EXPIRY_CATCH_UP)
      : Math.min(wall, newestRecord() ?? wall);
    this.at = { wall: at, mono };
    return at;
  }

  /** Where it stood at the last now(), or null before one. */
  get last(): number | null {
    return this.at?.wall ?? null;
  }
}
