// The soak's options and what it reports: the figures of each simulated day, the faults it
// caused, the alerts that came of them and every failure of an invariant.
export interface Fault {
  kind: string;
  /** Service wall time (epoch ms) it began and ended. */
  from: number;
  to: number;
  /** The alert condition it must raise, once; null: none. */
  expect: string | null;
}

export interface SoakOptions {
  days: number;
  /** Length of a simulated day in hours: 24 for the month, 1 for the short form. */
  dayHours: number;
  /** Simulated time runs at most this many times real time (the CPU sets the pace below it). */
  rate: number;
  /** Size of the data dir's tmpfs. */
  diskSize: string;
  log: (line: string) => void;
  /** Real-time limit for one start or stop. */
  limitMs: number;
}

export interface DayFigures {
  day: number;
  realSeconds: number;
  /** Simulated hours the service had run since its last start when rssBytes was read. */
  uptimeHours: number;
  rssBytes: number | null;
  dbBytes: number;
  historyBytes: number;
  backupsBytes: number;
}

export interface SoakReport {
  days: number;
  dayHours: number;
  realSeconds: number;
  figures: DayFigures[];
  faults: Fault[];
  alertsSent: Record<string, number>;
  worstDeviation: { degC: number; at: string | null };
  samples: number;
  failures: string[];
}

export const SOAK_DEFAULTS: SoakOptions = {
  days: 30,
  dayHours: 24,
  rate: 2000,
  diskSize: '256m',
  log: (line) => process.stdout.write(`${line}\n`),
  limitMs: 60_000,
};
