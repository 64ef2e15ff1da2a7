// Setpoint profile interpolation (reference §5.2, §6.7).

export interface ProfilePoint {
  /** Seconds after the profile's start. */
  time: number | null;
  temperature: number | null;
}

/**
 * The setting `elapsed` seconds after the start: linear between the surrounding points, held
 * at the first point's temperature before it and at the last one's after it. Two points at the
 * same time make a step. Null without usable points.
 */
export function profileSetting(points: ProfilePoint[], elapsed: number): number | null {
  const pts = points
    .filter((p): p is { time: number; temperature: number } => p.time !== null && p.temperature !== null)
    .map((p, i) => ({ ...p, i }))
    .sort((a, b) => a.time - b.time || a.i - b.i);
  if (pts.length === 0) return null;
  if (elapsed < pts[0]!.time) return pts[0]!.temperature;
  for (let k = pts.length - 1; k >= 0; k--) {
    const a = pts[k]!;
    if (elapsed < a.time) continue;
    const b = pts[k + 1];
    if (!b) return a.temperature;
    const span = b.time - a.time;
    return span <= 0 ? b.temperature : a.temperature + ((b.temperature - a.temperature) * (elapsed - a.time)) / span;
  }
  return pts[0]!.temperature;
}

/**
 * Whether a profile drives its target now or will once its start comes: on, started or set to
 * start, and with a usable point. One without points, or without a start, never moves it.
 */
export function drivesOrWill(d: { enabled?: boolean; start?: number | null; points?: ProfilePoint[] }): boolean {
  return d.enabled === true && d.start != null && profileSetting(d.points ?? [], 0) !== null;
}
