// The soak run's short form (npm run soak is the month): 3 simulated days of 1 hour each, the
// built service meeting every fault of the month in the same order. Any broken invariant is a
// failure naming what broke (scripts/soak/checks.ts; test/soak/checks.test.ts shows each check
// catches what it is for).
// tags: slow (the built service through three simulated days)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { runSoak } from '../../scripts/soak/run.js';

t.setTimeout(limit(300_000));

t.test(
  '3 simulated days: every fault alerted once, nothing else, history whole, the beer on its profile',
  async (t) => {
    const lines: string[] = [];
    const report = await runSoak({ days: 3, dayHours: 1, diskSize: '64m', log: (line) => lines.push(line) });
    t.comment(lines.join('\n'));
    t.same(report.failures, [], 'every invariant held');
    t.equal(report.figures.length, 3, 'three days measured');
    t.same(
      report.faults.map((f) => f.kind),
      ['backup', 'unplug', 'units', 'rename', 'kill', 'broker', 'disk-full', 'boot-behind', 'clock-back'],
      'every fault of the month was injected',
    );
    // Each expected alert fired once, and the ones that end resolved once: nothing more was sent.
    const expected: Record<string, number> = {};
    for (const f of report.faults)
      if (f.expect) {
        expected[`fired ${f.expect}`] = 1;
        if (f.expect !== 'unclean-stop') expected[`resolved ${f.expect}`] = 1;
      }
    t.same(report.alertsSent, expected, 'alerts sent against faults injected');
    t.ok(report.samples >= 30, `the beer was sampled every 5 simulated minutes (${report.samples})`);
    t.ok(report.worstDeviation.degC <= 0.3, `worst beer deviation ${report.worstDeviation.degC} degC`);
  },
);
