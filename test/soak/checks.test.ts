// The soak run's checks catch what they are for: an alert sent twice, a fault never alerted, an
// alert with no fault, a hole in the history outside the script's windows, memory and files that
// grow day after day.
import t from 'tap';
import { checkAlerts, checkGrowth, historyGaps, type Fault } from '../../scripts/soak/checks.js';
import type { DayFigures } from '../../scripts/soak/run.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const MIN = 60_000;
const at = (ms: number) => new Date(T0 + ms).toISOString();
const msg = (event: string, condition: string, ms: number) => ({ event, condition, at: at(ms), title: condition });
const unplug: Fault = { kind: 'unplug', from: T0, to: T0 + 60 * MIN, expect: 'sensor-null' };
const kill: Fault = { kind: 'kill', from: T0 + 120 * MIN, to: T0 + 121 * MIN, expect: 'unclean-stop' };

t.test('alerts: once per fault and resolved once; twice, never or without a fault is named', async (t) => {
  const good = [msg('fired', 'sensor-null', 2 * MIN), msg('resolved', 'sensor-null', 62 * MIN)];
  good.push(msg('fired', 'unclean-stop', 121 * MIN));
  t.same(checkAlerts(good, [unplug, kill], true), []);
  t.match(checkAlerts([...good, msg('fired', 'sensor-null', 30 * MIN)], [unplug, kill], true), [
    /unplug .* alerted 2 times/,
  ]);
  t.match(checkAlerts(good.slice(0, 2), [unplug, kill], true), [/kill .* sent no unclean-stop alert/]);
  t.same(checkAlerts(good.slice(0, 2), [unplug, kill], false), [], 'not yet sent is no failure before the end');
  t.match(checkAlerts(good.slice(0, 1).concat(good[2]!), [unplug, kill], true), [/unplug .* was never resolved/]);
  t.match(checkAlerts([...good, msg('fired', 'broker-unreachable', 500 * MIN)], [unplug, kill], true), [
    /sent with no fault to cause it: fired broker-unreachable/,
  ]);
});

t.test('history: a hole longer than a minute is named unless a window allows it', async (t) => {
  const points = [0, 5_000, 10_000, 20 * MIN, 20 * MIN + 5_000];
  const svc = {
    request: async () => `time,value\n${points.map((p) => `${T0 + p},18`).join('\n')}\n`,
  };
  const holes = await historyGaps(svc, ['x'], T0, T0 + 20 * MIN + 5_000, []);
  t.match(holes, [/no points from .* \(19\.8 min\)/]);
  t.same(await historyGaps(svc, ['x'], T0, T0 + 20 * MIN + 5_000, [[T0, T0 + 20 * MIN]]), []);
});

t.test('growth: RSS after a settled uptime, the database and history flat; steady figures pass', async (t) => {
  const day = (d: number, over: Partial<DayFigures> = {}): DayFigures => ({
    day: d,
    realSeconds: d * 100,
    uptimeHours: 24,
    rssBytes: 100 * 1048576,
    dbBytes: 4 * 1048576,
    historyBytes: (d + 1) * 6 * 1048576,
    backupsBytes: 200_000,
    ...over,
  });
  const steady = [0, 1, 2, 3, 4, 5].map((d) => day(d));
  t.same(checkGrowth(steady), []);
  t.match(checkGrowth(steady.map((f) => (f.day === 5 ? day(5, { rssBytes: 200 * 1048576 }) : f))), [/RSS on day 5/]);
  t.same(
    checkGrowth(steady.map((f) => (f.day === 5 ? day(5, { rssBytes: 200 * 1048576, uptimeHours: 0.1 }) : f))),
    [],
    'an RSS read just after a start is not compared',
  );
  t.match(checkGrowth(steady.map((f) => (f.day === 4 ? day(4, { dbBytes: 40 * 1048576 }) : f))), [
    /the database on day 4/,
  ]);
  t.match(checkGrowth(steady.map((f) => (f.day >= 4 ? day(f.day, { historyBytes: (f.day + 5) * 6 * 1048576 }) : f))), [
    /history grew .* on day 4/,
  ]);
});
