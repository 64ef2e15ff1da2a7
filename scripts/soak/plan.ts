// The scripted month: when each fault comes and how long it lasts, and the fermentation profile.
// Everything is placed as a fraction of the run, so the short form (3 days of 1 simulated hour)
// meets the same faults in the same order as the month (30 days of 24 hours).

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
const MIN = 60_000;

export type FaultKind =
  | 'backup'
  | 'unplug'
  | 'units'
  | 'rename'
  | 'kill'
  | 'broker'
  | 'disk-full'
  | 'boot-behind'
  | 'clock-back';

export interface Step {
  kind: FaultKind | 'restart';
  /** Script time (ms of simulated time since the start of the run) it begins at. */
  at: number;
  /** How long the fault lasts (0: a moment). */
  durationMs: number;
}

export interface Plan {
  dayMs: number;
  days: number;
  totalMs: number;
  steps: Step[];
  /** The profile: [script ms from its start, degC]. */
  profile: Array<[number, number]>;
}

/** The month's fermentation in days: 18 degC for 5 days, up to 20 for a diacetyl rest, a cold crash to 4. */
const MONTH_PROFILE: Array<[number, number]> = [
  [0, 18],
  [5, 18],
  [7, 20],
  [14, 20],
  [18, 4],
  [21, 4],
];
/** Fastest ramp the fermenter is asked to follow, degC per hour (the control tests' 0.25 with room). */
const MAX_RAMP_PER_HOUR = 0.2;

export function makePlan(days: number, dayMs: number): Plan {
  const total = days * dayMs;
  const at = (fraction: number) => Math.round(fraction * total);
  const steps: Step[] = [
    { kind: 'backup', at: at(0.04), durationMs: 0 },
    // An hour, or a sixth of a short day; always longer than the sensor rule (60 s) and its resolve (60 s).
    { kind: 'unplug', at: at(0.08), durationMs: Math.max(5 * MIN, Math.min(HOUR, dayMs / 6)) },
    { kind: 'units', at: at(0.17), durationMs: Math.min(dayMs / 4, 0.06 * total) },
    { kind: 'rename', at: at(0.25), durationMs: 0 },
    { kind: 'kill', at: at(0.3), durationMs: 0 },
    // Longer than the broker rule (unreachable for 300 s).
    { kind: 'broker', at: at(0.37), durationMs: Math.max(10 * MIN, Math.min(HOUR, dayMs / 6)) },
    // A day, across a daily restart.
    { kind: 'disk-full', at: at(0.45), durationMs: Math.min(dayMs, 0.25 * total) },
    { kind: 'boot-behind', at: at(0.75), durationMs: 3 * DAY },
    { kind: 'clock-back', at: at(0.9), durationMs: HOUR },
  ];
  for (let d = 1; d < days; d++) steps.push({ kind: 'restart', at: d * dayMs, durationMs: 0 });
  steps.sort((a, b) => a.at - b.at);
  return { dayMs, days, totalMs: total, steps, profile: scaledProfile(total) };
}

/**
 * The month profile squeezed into the run (21 of 30 days), its swings made smaller when that
 * would ask for ramps faster than a fermenter follows: the short form gets the same shape.
 */
function scaledProfile(total: number): Array<[number, number]> {
  const timeScale = total / (30 * DAY);
  let steepest = 0;
  for (let i = 1; i < MONTH_PROFILE.length; i++) {
    const [t0, v0] = MONTH_PROFILE[i - 1]!;
    const [t1, v1] = MONTH_PROFILE[i]!;
    steepest = Math.max(steepest, Math.abs(v1 - v0) / (((t1 - t0) * DAY * timeScale) / HOUR));
  }
  const swing = Math.min(1, MAX_RAMP_PER_HOUR / steepest);
  const base = MONTH_PROFILE[0]![1];
  return MONTH_PROFILE.map(([d, v]) => [Math.round(d * DAY * timeScale), base + (v - base) * swing]);
}

/** The profile's temperature `elapsedMs` after its start (held at both ends). */
export function profileAt(profile: Array<[number, number]>, elapsedMs: number): number {
  if (elapsedMs <= profile[0]![0]) return profile[0]![1];
  for (let i = 1; i < profile.length; i++) {
    const [t1, v1] = profile[i]!;
    if (elapsedMs <= t1) {
      const [t0, v0] = profile[i - 1]!;
      return v0 + ((v1 - v0) * (elapsedMs - t0)) / (t1 - t0);
    }
  }
  return profile[profile.length - 1]![1];
}

/** The fermenter in its fridge: the demo's sensors and relays (scripts/demo-blocks.json) and nothing else. */
export function simConfig(beer: number, air: number): unknown {
  return {
    plant: { ambient: 20, initial: { beer, air }, fermentationW: 4 },
    ds2482: [
      {
        address: 24,
        variant: 'ds2482-100',
        channels: [
          [
            { name: 'beer', type: 'DS18B20', address: '28-00000000b001', sense: 'beer' },
            { name: 'air', type: 'DS18B20', address: '28-00000000a001', sense: 'air' },
            { name: 'relays', type: 'DS2408', address: '29-00000000d001', outputs: { '1': 'heater', '2': 'cooler' } },
          ],
        ],
      },
    ],
  };
}
