// The one duration parser: `90` (seconds), `1d`, `2h30m`, `1h 30min`, `300ms`, `2w`. History
// queries, the config's history retention and sequence instructions all read durations with it,
// so a duration a user writes means the same everywhere. (`ms`, the package, covers only a single
// number and unit; the state message's ttl uses it, as its readers do.)

const UNIT_SECONDS: Record<string, number> = {
  ms: 0.001,
  msec: 0.001,
  millisecond: 0.001,
  milliseconds: 0.001,
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  d: 86400,
  day: 86400,
  days: 86400,
  w: 604800,
  wk: 604800,
  wks: 604800,
  week: 604800,
  weeks: 604800,
};
const PART = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-z]+)\s*,?/i;
/** Longer than any brew and than a Date can usefully hold: refused as a typo. */
const MAX_SECONDS = 20 * 365 * 86400;

/** Seconds of `text`, or why it is not a duration (to be worded by the caller). */
export function durationSeconds(
  text: unknown,
): { seconds: number; error?: undefined } | { error: string; seconds?: undefined } {
  if (typeof text === 'number')
    return Number.isFinite(text) && text >= 0 && text <= MAX_SECONDS
      ? { seconds: text }
      : { error: `${text} is not a duration of 0 to 20 years in seconds` };
  if (typeof text !== 'string') return { error: `must be a string like "1d" or "2h30m", got ${JSON.stringify(text)}` };
  const bare = text.trim();
  if (bare === '') return { error: 'is empty' };
  let total = 0;
  if (/^\d+(\.\d+)?$/.test(bare)) total = Number(bare);
  else {
    for (let rest = bare; rest.length; ) {
      const m = PART.exec(rest);
      const unit = m ? UNIT_SECONDS[m[2]!.toLowerCase()] : undefined;
      if (!m || unit === undefined)
        return {
          error: `${JSON.stringify(text)} is not a duration: use numbers with ms, s, m, h, d or w (e.g. "1d", "2h30m", "90")`,
        };
      total += Number(m[1]) * unit;
      rest = rest.slice(m[0].length).trimStart();
    }
  }
  if (total > MAX_SECONDS) return { error: `${JSON.stringify(text)} is longer than 20 years` };
  return { seconds: total };
}

/** `3d 2h 5m 1s` for a time span in ms (whole seconds; the larger units only when not zero). */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const parts = [
    Math.floor(s / 86400) && `${Math.floor(s / 86400)}d`,
    Math.floor((s % 86400) / 3600) && `${Math.floor((s % 86400) / 3600)}h`,
    Math.floor((s % 3600) / 60) && `${Math.floor((s % 3600) / 60)}m`,
    `${s % 60}s`,
  ];
  return parts.filter(Boolean).join(' ');
}
