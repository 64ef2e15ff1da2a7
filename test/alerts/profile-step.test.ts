// The out-of-band alert where a Setpoint Profile meets it: a profile's step (two points at one
// time: 20 -> 10 degC) drives the beer setpoint of the emulated fermenter (test/helpers/fermenter.ts:
// the thermal plant, a DS18B20's 1/16 degC steps, real PIDs, PWMs and actuators), and the alert
// rules are the defaults (2 degC for 30 min), evaluated every second by the real conditions and
// tracker. A beer on its way down as planned, hours out of band, is no alert; one whose cooler
// cannot bring it there (it stops short, above the band) is.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { Conditions } from '../../src/alerts/conditions.js';
import { effectiveRules } from '../../src/alerts/rules.js';
import { Tracker } from '../../src/alerts/tracker.js';
import type { ActiveAlert, AlertEventKind } from '../../src/alerts/types.js';
import { Fermenter } from '../helpers/fermenter.js';
import { healthySources } from './sources.js';

const HOUR = 3600;

const STEP = [
  { time: 0, temperature: 20 },
  { time: { __objtype: 'Quantity', unit: 'hour', value: 1 }, temperature: 20 },
  { time: { __objtype: 'Quantity', unit: 'hour', value: 1 }, temperature: 10 },
];

/** The fermenter at 20 degC with a profile (by default a step to 10 degC an hour in), and the alerts on it. */
async function stepped(t: Test, plant: Record<string, unknown>, points: unknown[] = STEP) {
  const f = new Fermenter({ setpoint: 20, plant, stepMs: 1000 }).build();
  await f.run(600);
  f.runtime.create({
    id: 'Beer Profile',
    type: 'SetpointProfile',
    data: {
      enabled: true,
      targetId: { __objtype: 'Link', id: 'Beer Setpoint' },
      start: new Date(f.clock.wall()!).toISOString(),
      points,
    },
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-alert-step-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const conditions = new Conditions(healthySources(f.runtime, dir, { monotonic: () => f.clock.now() }));
  const rules = effectiveRules({}, null);
  const events: Array<{ event: AlertEventKind; at: number; beer: number; alert: ActiveAlert }> = [];
  const tracker = new Tracker({
    remindMs: () => rules.remindHours * 3_600_000,
    load: () => [],
    save: () => undefined,
    remove: () => undefined,
    emit: (event, alert) => events.push({ event, at: f.clock.now(), beer: f.plant.beer, alert: { ...alert } }),
  });
  const start = f.clock.now();
  // When the setting stepped, and when the beer was last out of band.
  let steppedAt: number | null = null;
  let firstOut: number | null = null;
  let lastOut: number | null = null;
  const run = (seconds: number) =>
    f.run(seconds, (s) => {
      if (s.setting !== null && s.setting < 20 && steppedAt === null) steppedAt = f.clock.now();
      if (s.setting !== null && Math.abs(f.data('Beer Setpoint').value - s.setting) > rules.setpointBand.band) {
        lastOut = f.clock.now();
        firstOut ??= lastOut;
      }
      const { seen, unknown } = conditions.evaluate(rules);
      tracker.update(seen, f.clock.now(), rules.resolveAfter * 1000, unknown);
    });
  const hoursAfterStep = (at: number | null) =>
    at === null || steppedAt === null ? NaN : (at - steppedAt) / 3_600_000;
  return {
    f,
    events,
    run,
    start,
    stepAt: () => steppedAt,
    firstOut: () => firstOut,
    lastOut: () => lastOut,
    hoursAfterStep,
  };
}

t.test('a profile step the beer follows as planned is no out-of-band alert, though hours out of band', async (t) => {
  const s = await stepped(t, {});
  await s.run(10 * HOUR);
  t.ok(s.stepAt() !== null, 'the profile stepped the setting to 10 degC');
  const out = s.hoursAfterStep(s.lastOut());
  t.ok(
    out > 1,
    `the beer was out of the 2 degC band for longer than the rule's 30 min (${out.toFixed(2)} h after the step)`,
  );
  t.ok(Math.abs(s.f.plant.beer - 10) < 0.5, `and reached the new setting (${s.f.plant.beer.toFixed(2)} degC)`);
  t.same(
    s.events.map(
      (e) => `${e.event} at ${s.hoursAfterStep(e.at).toFixed(2)} h, beer ${e.beer.toFixed(2)} degC: ${e.alert.text}`,
    ),
    [],
    'no alert: it was on its way down all along',
  );
});

t.test('a beer that stops short of a profile step (a cooler that cannot get there) still alerts', async (t) => {
  // The compressor's power fades to nothing over the last 10 K above 13 degC: the beer settles
  // near 13.6 degC, further than the band from 10 degC for good.
  const s = await stepped(t, { cooler: { floorTemp: 13 } });
  await s.run(14 * HOUR);
  t.ok(s.stepAt() !== null, 'the profile stepped the setting to 10 degC');
  const fired = s.events.filter((e) => e.event === 'fired');
  t.equal(fired.length, 1, 'the out-of-band alert fired');
  const e = fired[0]!;
  t.equal(e.alert.kind, 'setpoint-band');
  t.ok(e.beer > 12, `with the beer still more than 2 degC off (${e.beer.toFixed(2)} degC)`);
  const h = s.hoursAfterStep(e.at);
  // The beer follows the air with a time constant of hours: it creeps on towards where it stops
  // (under 0.1 degC in 30 min) for hours before it is plainly stuck.
  t.ok(h > 0.5, `once it had stopped getting closer, ${h.toFixed(2)} h after the step`);
  t.match(e.alert.text, /setting 10\.0 °C: further than 2\.0 °C and not getting closer for more than 1800 s/);
  t.ok(s.f.plant.beer > 12, `the beer never arrived (${s.f.plant.beer.toFixed(2)} degC)`);
});

t.test('a beer whose cooler does nothing alerts 30 min after the step', async (t) => {
  const s = await stepped(t, { cooler: { powerW: 0 } });
  await s.run(2 * HOUR);
  const fired = s.events.filter((e) => e.event === 'fired');
  t.equal(fired.length, 1, 'the out-of-band alert fired');
  const h = s.hoursAfterStep(fired[0]?.at ?? null);
  t.ok(Math.abs(h - 0.5) < 0.01, `30 min after the step (${h.toFixed(3)} h)`);
});

t.test(
  'a ramp the beer cannot follow (the cooler dead, a cold room) alerts 30 min after the beer leaves the band',
  async (t) => {
    // The beer coasts down towards the 12 degC room while the setting ramps from 20 to 2 degC over a
    // day, ever faster than the beer: the gap only widens. The beer does come down, but it is no
    // nearer its setting, so this is no beer on its way.
    const ramp = [
      { time: 0, temperature: 20 },
      { time: { __objtype: 'Quantity', unit: 'hour', value: 1 }, temperature: 20 },
      { time: { __objtype: 'Quantity', unit: 'hour', value: 25 }, temperature: 2 },
    ];
    const s = await stepped(t, { ambient: 12, initial: { beer: 20, air: 20 }, cooler: { powerW: 0 } }, ramp);
    await s.run(12 * HOUR);
    const out = s.firstOut();
    t.ok(out !== null, `the beer left the band (${s.hoursAfterStep(out).toFixed(2)} h into the ramp)`);
    const fired = s.events.filter((e) => e.event === 'fired');
    t.equal(fired.length, 1, 'the out-of-band alert fired');
    const late = ((fired[0]?.at ?? Number.NaN) - out!) / 3_600_000;
    t.ok(late >= 0.5 && late < 0.55, `30 min after the beer left the band (${late.toFixed(2)} h)`);
  },
);
