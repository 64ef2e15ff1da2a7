// Fermentation profiles as a brewer thinks of them (steps: temperature, duration, ramp) and as
// a SetpointProfile stores them (points: time offset, temperature). Pure, so tested without a browser.
import { profileSetting } from '../../src/blocks/shared/profile.js';
import { fromInternal } from '../../src/codec/unit-conversion.js';
import { fmtDuration, qtyValue, unitLabel } from './blocks.js';
import { parseNumber } from './field-kinds.js';

export interface Step {
  /** Target temperature in the service's unit. */
  temperature: number;
  /** Hold time at the temperature, in days. */
  days: number;
  /** Ramp time from the previous temperature, in days (ignored for the first step). */
  rampDays: number;
}

const DAY = 86400;

/** Temperatures in °C; converted to the service's unit when used. */
export const TEMPLATES: Record<string, Step[]> = {
  Ale: [
    { temperature: 19, days: 5, rampDays: 0 },
    { temperature: 21, days: 3, rampDays: 1 },
    { temperature: 2, days: 2, rampDays: 1 },
  ],
  Lager: [
    { temperature: 10, days: 10, rampDays: 0 },
    { temperature: 16, days: 2, rampDays: 2 },
    { temperature: 2, days: 7, rampDays: 2 },
  ],
  'Cold crash': [{ temperature: 2, days: 3, rampDays: 0 }],
};

/** A template's °C in the service's temperature unit, to the whole degree. */
export const inUnit = (celsius: number, unit: string): number =>
  Math.round(fromInternal(celsius, 'temp', { temperature: unit === 'degF' ? 'degF' : 'degC' }));

/** A step as typed in the start form: text, a comma as the decimal point too. */
export type StepText = { [K in keyof Step]: string };

export const stepText = (s: Step): StepText => ({
  temperature: String(s.temperature),
  days: String(s.days),
  rampDays: String(s.rampDays),
});

/**
 * The steps typed in the start form, or what is wrong in words. A comma is a decimal point
 * ("2,5" days is two and a half), and a field that is not a number or is out of its range is
 * named, never read as another number.
 */
export function parseSteps(texts: StepText[], unit: string): { steps: Step[] } | { error: string } {
  const u = unitLabel(unit);
  const limits: Record<keyof Step, [number, number, string]> = {
    temperature: [inUnit(-5, unit), inUnit(40, unit), ` ${u}`],
    days: [0, 60, ' days'],
    rampDays: [0, 14, ' days'],
  };
  const words: Record<keyof Step, string> = { temperature: 'temperature', days: 'days', rampDays: 'ramp days' };
  const steps: Step[] = [];
  for (const [i, t] of texts.entries()) {
    const step = {} as Step;
    for (const key of ['temperature', 'days', 'rampDays'] as const) {
      // The first step has no ramp (its field is disabled).
      const text = i === 0 && key === 'rampDays' ? '0' : t[key].trim();
      const label = `step ${i + 1} ${words[key]}`;
      let n: number | null;
      try {
        n = parseNumber(label, text);
      } catch (e) {
        return { error: (e as Error).message };
      }
      if (n === null) return { error: `${label}: "${t[key]}" is not a number` };
      const [min, max, what] = limits[key];
      if (n < min || n > max) return { error: `${label}: between ${min} and ${max}${what}` };
      step[key] = n;
    }
    steps.push(step);
  }
  return { steps };
}

export function stepsToPoints(steps: Step[]): Array<{ time: number; temperature: number }> {
  const points: Array<{ time: number; temperature: number }> = [];
  let t = 0;
  steps.forEach((s, i) => {
    if (i === 0) points.push({ time: 0, temperature: s.temperature });
    else if (s.rampDays > 0) points.push({ time: (t += s.rampDays * DAY), temperature: s.temperature });
    else points.push({ time: t, temperature: s.temperature });
    points.push({ time: (t += s.days * DAY), temperature: s.temperature });
  });
  return points;
}

export interface Segment {
  from: number;
  to: number;
  start: number;
  end: number;
  text: string;
}

/** The profile's stretches between points, in words: "hold 21 °C for 3.0 d", "ramp to 2 °C over 1.0 d". */
export function segmentsOf(points: unknown, unit: string): Segment[] {
  // In time order, as the controller takes them (points at one time keep their order: a step).
  const list = (Array.isArray(points) ? points : [])
    .map((p: { time?: unknown; temperature?: unknown }) => ({
      time: qtyValue(p.time) ?? 0,
      temperature: qtyValue(p.temperature) ?? 0,
    }))
    .sort((a, b) => a.time - b.time);
  const u = unitLabel(unit);
  const out: Segment[] = [];
  for (let i = 0; i + 1 < list.length; i++) {
    const a = list[i]!;
    const b = list[i + 1]!;
    if (b.time <= a.time) continue;
    const span = fmtDuration(b.time - a.time);
    const text =
      a.temperature === b.temperature
        ? `hold ${b.temperature} ${u} for ${span}`
        : `ramp ${a.temperature} → ${b.temperature} ${u} over ${span}`;
    out.push({ from: a.temperature, to: b.temperature, start: a.time, end: b.time, text });
  }
  return out;
}

/** Seconds since the profile's start (a datetime as ISO text or seconds). */
export function startSeconds(start: unknown): number | null {
  if (typeof start === 'number') return start;
  if (typeof start === 'string') {
    const ms = Date.parse(start);
    return Number.isFinite(ms) ? ms / 1000 : null;
  }
  return null;
}

export interface Where {
  /** Index of the current segment, -1 before the start, segments.length when finished. */
  index: number;
  now: string;
  next: string;
}

export function whereIsIt(segments: Segment[], elapsed: number): Where {
  if (!segments.length) return { index: -1, now: 'no steps', next: '' };
  if (elapsed < 0) return { index: -1, now: `starts in ${fmtDuration(-elapsed)}`, next: segments[0]!.text };
  const i = segments.findIndex((s) => elapsed < s.end);
  if (i < 0) return { index: segments.length, now: `finished: holding ${segments.at(-1)!.to}`, next: '' };
  const s = segments[i]!;
  return {
    index: i,
    now: `step ${i + 1} of ${segments.length}: ${s.text}, ${fmtDuration(s.end - elapsed)} left`,
    next: segments[i + 1]?.text ?? 'end: hold the last temperature',
  };
}

/**
 * The profile's setting `elapsed` seconds in, by the controller's own rule (profileSetting), in
 * the unit of its points: null before the start (the profile drives nothing yet) or without points.
 */
export function settingAt(points: unknown, elapsed: number): number | null {
  if (elapsed < 0 || !Array.isArray(points)) return null;
  return profileSetting(
    points.map((p: { time?: unknown; temperature?: unknown }) => ({
      time: qtyValue(p.time),
      temperature: qtyValue(p.temperature),
    })),
    elapsed,
  );
}
