// A wall-clock time before 2001-09-09 is a clock that was never set (a Pi without a saved time
// boots at 1970). One rule for the runtime's clock (src/runtime/clock.ts) and the dashboard's view
// of the controller's clock (web/src/live.ts).
export const EARLIEST_WALL_MS = 1_000_000_000_000;

/** True when `t` (epoch ms) is a wall-clock time that was set. */
export const isWallSet = (t: number): boolean => t > EARLIEST_WALL_MS;
