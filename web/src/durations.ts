// Durations in words: as a field shows them to be edited ("2 min 10 s", read back by the
// service's parser) and as a state says them (two units at most). Pure.

/** Seconds as written back into a duration field: "2 min 10 s", "1 h 30 min", "0 s". */
export function durationText(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '';
  let rest = Math.round(seconds * 1000) / 1000;
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['min', 60],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n} ${unit}`);
    rest -= n * size;
  }
  if (rest > 0 || !parts.length) parts.push(`${Math.round(rest * 1000) / 1000} s`);
  return parts.join(' ');
}

/** A duration in words for a state, to the second and at most two units: "2 min 10 s", "1 h 5 min". */
export function durationWords(seconds: number): string {
  return durationText(Math.round(seconds)).split(' ').slice(0, 4).join(' ');
}
