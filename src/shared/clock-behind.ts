// How long a wall clock may stay behind the newest time seen before it is taken as right (DESIGN
// §11, two clocks). Behind is normal for a while: a Pi without a real-time clock boots at an old
// time and NTP puts it right within minutes. Behind for an hour without a jump forward means it
// was set back (a fast clock corrected, a typo in `date -s` undone), and the newest time seen was
// the wrong one: the clock record (src/service/wall-clock.ts) and history (src/history/clock-gate.ts)
// stop waiting for it, or they would wait as long as the clock had been ahead (months).
export const BEHIND_LIMIT_MS = 3_600_000;
