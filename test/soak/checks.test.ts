// The soak run's checks catch what they are for: an alert sent twice, a fault never alerted, an
// alert with no fault, a hole in the history outside the script's windows, memory and files that
// grow day after day, a setpoint that lost its place in the profile, a beer off it.
import t from 'tap';
import {
  checkAlerts,
  checkControl,
  checkGrowth,
  daySpan,
  historyGaps,
  worstDeviation,
  type Sample,
} from '../../scripts/soak/checks.js';
import type { DayFigures, Fault } from '../../scripts/soak/types.js';

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
  t.match(checkGrowth(steady.map((f) => (f.day === 5 ? day(5, { rssBytes: 200 * 1048576 }) : f))), [
    /RSS rose from 100\.00 MB \(day 1\) to 200\.00 MB \(day 5\)/,
  ]);
  const month = Array.from({ length: 30 }, (_, d) => day(d));
  t.same(
    checkGrowth(month.map((f) => (f.day === 10 ? day(10, { rssBytes: 153 * 1048576 }) : f))),
    [],
    'one high reading among flat ones is the garbage collector, not a leak',
  );
  t.match(
    checkGrowth(month.map((f) => day(f.day, { rssBytes: (100 + 2 * f.day) * 1048576 }))),
    [/RSS rose from .* \(days 1-9\) to .* \(days 21-29\)/],
    'a steady rise is',
  );
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
  t.same(
    checkGrowth(
      steady.map((f) => (f.day >= 4 ? day(f.day, { historyBytes: (f.day + 5) * 6 * 1048576 }) : f)),
      new Set([4]),
    ),
    [],
    'a disturbed day (around a full disk) is not compared',
  );
});

t.test(
  'control: the setpoint off the profile, the beer 0.3 off or missing is named, unless a window allows it',
  async (t) => {
    const sample = (ms: number, beer: number | null, setting: number | null): Sample => ({
      wall: T0 + ms,
      script: ms,
      beer,
      setting,
      expected: 18,
    });
    const good = [sample(0, 18.1, 18), sample(5 * MIN, 17.8, 18)];
    t.same(checkControl(good, [], []), []);
    t.match(checkControl([...good, sample(10 * MIN, 18, 20)], [], []), [/setpoint is 20 degC, the profile 18\.00/]);
    t.match(checkControl([...good, sample(10 * MIN, 18.31, 18)], [], []), [
      /beer: 18\.31 degC .*\(more than 0\.3 off\)/,
    ]);
    t.match(checkControl([...good, sample(10 * MIN, null, 18)], [], []), [/beer: no reading/]);
    const off = sample(10 * MIN, 19, 18);
    t.same(checkControl([...good, off], [[T0 + 9 * MIN, T0 + 11 * MIN]], []), [], 'a fault window allows it');
    const missing = sample(10 * MIN, null, null);
    t.same(checkControl([missing], [], [[T0 + 9 * MIN, T0 + 11 * MIN]]), [], 'a start allows a missing value');
    t.equal(checkControl([off], [], [[T0 + 9 * MIN, T0 + 11 * MIN]]).length, 1, 'but not a wrong one');
    t.same(worstDeviation([...good, off], []), { degC: 1, at: at(10 * MIN) });
    t.same(worstDeviation([...good, off], [[T0 + 9 * MIN, T0 + 11 * MIN]]), { degC: 0.2, at: at(5 * MIN) });
  },
);

t.test("a day's span follows its samples, a clock set back included, a clock days behind left out", async (t) => {
  const s = (script: number, wall: number): Sample => ({ wall, script, beer: 18, setting: 18, expected: 18 });
  const DAYMS = 24 * 60 * MIN;
  t.same(daySpan([s(DAYMS, T0), s(DAYMS + 60 * MIN, T0 + 60 * MIN)], DAYMS, DAYMS, T0 + 61 * MIN), [T0, T0 + 61 * MIN]);
  const behind = T0 - 3 * DAYMS;
  t.same(
    daySpan([s(DAYMS, T0), s(DAYMS + MIN, behind), s(DAYMS + 2 * MIN, T0 + 2 * MIN)], DAYMS, DAYMS, T0 + 2 * MIN),
    [T0, T0 + 2 * MIN],
    'the samples of a boot days behind are not the day',
  );
});
