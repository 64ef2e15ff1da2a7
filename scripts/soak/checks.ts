// The soak run's invariants: each injected fault alerted exactly once (and resolved once), nothing
// else alerted; history continuous outside the windows the script took it away; memory and the
// files flat after the first day.
import type { DayFigures, Fault } from './types.js';

export interface Sample {
  wall: number;
  script: number;
  beer: number | null;
  setting: number | null;
  expected: number;
}

/** The longest a fault's alert may take: a rule's wait (300 s for the broker) and a check interval or two. */
const ALERT_SLACK_MS = 15 * 60_000;
/** Conditions that end on their own and so must be resolved once; the rest are one-shots. */
const RESOLVES = new Set(['sensor-null', 'broker-unreachable', 'disk-full']);

/**
 * Matches the messages a channel got with the faults: `final` once every fault has had time to
 * fire and resolve (before that only what was sent is checked, not what is still to come).
 */
export function checkAlerts(got: Array<Record<string, any>>, faults: Fault[], final: boolean): string[] {
  const problems: string[] = [];
  const text = (m: Record<string, any>) => `${m.event} ${m.condition} at ${m.at}: ${m.title}`;
  const claimed = new Set<Record<string, any>>();
  for (const f of faults) {
    if (!f.expect) continue;
    const inWindow = (m: Record<string, any>) => {
      const at = Date.parse(m.at);
      return m.condition === f.expect && at >= f.from - 60_000 && at <= f.to + ALERT_SLACK_MS;
    };
    const fired = got.filter((m) => m.event === 'fired' && inWindow(m));
    fired.forEach((m) => claimed.add(m));
    const window = `${new Date(f.from).toISOString()} - ${new Date(f.to).toISOString()}`;
    if (fired.length > 1)
      problems.push(`${f.kind} (${window}) alerted ${fired.length} times: ${fired.map(text).join(' | ')}`);
    if (final && fired.length === 0) problems.push(`${f.kind} (${window}) sent no ${f.expect} alert`);
    if (!RESOLVES.has(f.expect)) continue;
    const resolved = got.filter((m) => m.event === 'resolved' && inWindow(m));
    resolved.forEach((m) => claimed.add(m));
    if (resolved.length > 1) problems.push(`${f.kind} (${window}) resolved ${resolved.length} times`);
    if (final && resolved.length === 0 && fired.length > 0) problems.push(`${f.kind} (${window}) was never resolved`);
  }
  for (const m of got)
    if ((m.event === 'fired' || m.event === 'resolved' || m.event === 'reminder') && !claimed.has(m))
      problems.push(`sent with no fault to cause it: ${text(m)} (${m.message})`);
  return problems;
}

interface Requester {
  request(method: 'POST', route: string, body: unknown): Promise<any>;
}

/** A hole in a 5 s series longer than this is a gap (a flush batch, a slow step). */
const GAP_MS = 60_000;

/** Holes in the history of `fields` (one series, under whichever name and unit) between two wall times. */
export async function historyGaps(
  svc: Requester,
  fields: string[],
  from: number,
  to: number,
  allowed: Array<[number, number]>,
): Promise<string[]> {
  const csv: string = await svc.request('POST', '/history/timeseries/csv', {
    fields,
    precision: 'ms',
    start: new Date(from).toISOString(),
    end: new Date(to).toISOString(),
  });
  const times = csv
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','))
    .filter((cells) => cells.slice(1).some((c) => c.trim() !== ''))
    .map((cells) => Number(cells[0]))
    .filter(Number.isFinite);
  const problems: string[] = [];
  const covered = (a: number, b: number) => allowed.some(([x, y]) => x <= a + GAP_MS && y >= b - GAP_MS);
  const edges = [from, ...times, to];
  for (let i = 1; i < edges.length; i++) {
    const a = edges[i - 1]!;
    const b = edges[i]!;
    if (b - a > GAP_MS && !covered(a, b))
      problems.push(
        `no points from ${new Date(a).toISOString()} to ${new Date(b).toISOString()} (${((b - a) / 60_000).toFixed(1)} min)`,
      );
  }
  return problems;
}

const RSS_SETTLED_HOURS = 6;

const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Memory and files after the first day: RSS and the database flat, history growing by the same amount each day. */
/**
 * Memory and files flat after the first day. `disturbed`: days whose history growth is not
 * compared: around a full disk history's size dips and comes back (the month run: -2.5 MB on
 * the full day, +3.1 MB the day after the next, the usual 0.3 MB a day before and after).
 */
export function checkGrowth(days: DayFigures[], disturbed: ReadonlySet<number> = new Set()): string[] {
  const problems: string[] = [];
  const after = days.filter((d) => d.day >= 1);
  if (after.length < 2) return problems;
  const first = after[0]!;
  const mb = (b: number) => `${(b / 1048576).toFixed(2)} MB`;
  // A process's RSS grows for its first hours (heap, caches) and starts again at each start: only
  // figures read after a settled uptime are compared (the short form's 1-hour days have none).
  // One reading swings with the garbage collector (100-150 MB a day apart with no trend); a leak
  // is a rise of the typical reading: the median of the last third of the days against the first.
  const settled = after.filter((d) => d.rssBytes !== null && d.uptimeHours >= RSS_SETTLED_HOURS);
  if (settled.length >= 2) {
    const third = Math.max(1, Math.floor(settled.length / 3));
    const early = settled.slice(0, third);
    const late = settled.slice(-third);
    const med = (list: DayFigures[]) => medianOf(list.map((d) => d.rssBytes!));
    const span = (list: DayFigures[]) =>
      list.length > 1 ? `days ${list[0]!.day}-${list.at(-1)!.day}` : `day ${list[0]!.day}`;
    if (med(late) > med(early) * 1.25 + 8 * 1048576)
      problems.push(`RSS rose from ${mb(med(early))} (${span(early)}) to ${mb(med(late))} (${span(late)})`);
  }
  for (const d of after.slice(1)) {
    if (d.dbBytes > Math.max(first.dbBytes * 1.5, first.dbBytes + 2 * 1048576))
      problems.push(`the database on day ${d.day} is ${mb(d.dbBytes)}, on day ${first.day} ${mb(first.dbBytes)}`);
  }
  const growth = after
    .slice(1)
    .map((d, i) => ({ day: d.day, by: d.historyBytes - after[i]!.historyBytes }))
    .filter((g) => !disturbed.has(g.day));
  if (growth.length) {
    const usual = medianOf(growth.map((g) => g.by));
    for (const g of growth)
      if (g.by > 2 * usual + 256 * 1024)
        problems.push(`history grew ${mb(g.by)} on day ${g.day}, ${mb(usual)} on a usual day`);
  }
  const kept = after.filter((d) => d.day >= 3);
  if (kept.length > 1) {
    const settled = kept[0]!.backupsBytes;
    for (const d of kept)
      if (d.backupsBytes > settled * 1.3 + 65536)
        problems.push(
          `the stored backups on day ${d.day} take ${mb(d.backupsBytes)}, on day ${kept[0]!.day} ${mb(settled)}`,
        );
  }
  return problems;
}

type Windows = Array<[number, number]>;
const within = (windows: Windows, s: Sample) => windows.some(([a, b]) => s.wall >= a && s.wall <= b);

/**
 * Control, sample by sample: the setpoint is the profile's value and the beer within 0.3 degC of
 * it, except inside `offProfile` (a fault that took control away, and its recovery) and, for a
 * missing value only, inside `starting` (a start reads its sensors anew).
 */
export function checkControl(samples: Sample[], offProfile: Windows, starting: Windows): string[] {
  const problems: string[] = [];
  for (const s of samples) {
    if (within(offProfile, s)) continue;
    if ((s.setting === null || s.beer === null) && within(starting, s)) continue;
    const at = new Date(s.wall).toISOString();
    if (s.setting === null || Math.abs(s.setting - s.expected) > 0.05)
      problems.push(
        `profile: at ${at} the setpoint is ${s.setting} degC, the profile ${s.expected.toFixed(2)} (it lost its place)`,
      );
    if (s.beer === null) problems.push(`beer: no reading at ${at} outside any fault`);
    else if (Math.abs(s.beer - s.expected) > 0.3)
      problems.push(
        `beer: ${s.beer.toFixed(2)} degC at ${at}, the profile ${s.expected.toFixed(2)} (more than 0.3 off)`,
      );
  }
  return problems;
}

/** The furthest the beer was from the profile outside `offProfile`, and when. */
export function worstDeviation(samples: Sample[], offProfile: Windows): { degC: number; at: string | null } {
  let worst = { degC: 0, at: null as string | null };
  for (const s of samples) {
    if (s.beer === null || within(offProfile, s)) continue;
    const off = Math.abs(s.beer - s.expected);
    if (off > worst.degC) worst = { degC: Number(off.toFixed(3)), at: new Date(s.wall).toISOString() };
  }
  return worst;
}

/**
 * The wall-clock span of the day that began at script time `dayFrom`, from its samples: a clock set
 * back makes the day overlap itself, and the samples of a clock days behind are left out.
 */
export function daySpan(samples: Sample[], dayFrom: number, dayMs: number, wallNow: number): [number, number] {
  let newest = 0;
  const walls: number[] = [];
  for (const s of samples) {
    newest = Math.max(newest, s.wall);
    if (s.script >= dayFrom && s.wall > newest - 2 * 3_600_000) walls.push(s.wall);
  }
  return [walls.length ? Math.min(...walls) : wallNow - dayMs, Math.max(wallNow, ...walls)];
}
