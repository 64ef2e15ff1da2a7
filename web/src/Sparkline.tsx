// The last hour of a sensor's or setpoint's value under its card's headline: one history request
// for all cards (refreshed every minute), drawn as an inline SVG line so the overview loads no
// chart library. After a temperature unit switch the hour before it stays, converted.
import { useEffect, useState } from 'preact/hooks';
import { post, serviceId } from './api';
import { align, filledFrom, type Range } from './graph-data';
import { earlierNames, fieldParts, inTemperatureUnit, sparkField } from './graph-fields';
import { converted } from './units';

const REFRESH_MS = 60_000;
const HOUR_S = 3600;

/** `value` of field `from` in the unit of `field` (a temperature recorded before a unit switch). */
const inUnit = (value: number, field: string, from: string) =>
  converted(value, fieldParts(from).unit ?? '', fieldParts(field).unit ?? '');

/** Block id → values of the last hour (oldest first), in temperature unit `unit` (the status's). Empty without history. */
export function useSparklines(ids: string[], unit?: string): Map<string, Array<number | null>> {
  const [lines, setLines] = useState(new Map<string, Array<number | null>>());
  const key = `${ids.join('\n')}\n${unit}`;
  useEffect(() => {
    // No cards yet (the first view still loading): nothing to ask for.
    if (!ids.length) return;
    let stopped = false;
    const load = async () => {
      const fields = await post<string[]>('/history/timeseries/fields', { duration: '1h' });
      if (stopped || !fields.ok) return;
      // Each block's field in the unit recorded now (also before the history lists it, just after
      // a unit switch), and its name before the switch: its points are drawn in the line,
      // converted, so the hour before a switch stays on the card.
      const wanted = new Map<string, string>();
      for (const id of ids) {
        const f = sparkField(fields.body, serviceId(), id, unit);
        if (f) wanted.set(unit ? inTemperatureUnit(f, serviceId(), unit) : f, id);
      }
      if (!wanted.size) return;
      const earlier = earlierNames([...wanted.keys()], serviceId(), unit);
      const asked = [...new Set([...wanted.keys(), ...earlier.values()])];
      const ranges = await post<Range[]>('/history/timeseries/ranges', { fields: asked, duration: `${HOUR_S}s` });
      if (stopped || !ranges.ok) return;
      const next = new Map<string, Array<number | null>>();
      for (const [f, id] of wanted) {
        const own = [f, ...(earlier.has(f) ? [earlier.get(f)!] : [])];
        const cols = filledFrom([f], own, align(own, ranges.body), earlier, inUnit);
        if (cols[0].length) next.set(id, cols[1]!);
      }
      setLines(next);
    };
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [key]);
  return lines;
}

export function Sparkline({ values, label }: { values: Array<number | null>; label: string }) {
  const nums = values.filter((v): v is number => v !== null);
  if (nums.length < 2) return null;
  const min = Math.min(...nums);
  const max = Math.max(...nums);
  const span = max - min || 1;
  const points = values
    .map((v, i) =>
      v === null
        ? null
        : `${((i / (values.length - 1)) * 100).toFixed(1)},${(28 - ((v - min) / span) * 26).toFixed(1)}`,
    )
    .filter((p) => p !== null)
    .join(' ');
  return (
    <svg
      class="spark"
      viewBox="0 0 100 30"
      preserveAspectRatio="none"
      role="img"
      aria-label={`${label}: ${min.toFixed(1)} to ${max.toFixed(1)}`}
      data-testid="sparkline"
      data-points={nums.length}
    >
      <polyline
        points={points}
        fill="none"
        stroke="currentColor"
        stroke-width="1.5"
        vector-effect="non-scaling-stroke"
      />
    </svg>
  );
}
