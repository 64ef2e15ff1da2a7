// Issue 26: the conditions and features the channel tests do not reach, on the in-process app
// with short rule timings: a setpoint pair out of its band for a time, an output held on too
// long, control disabled, acknowledging an alert, the
// outbox bound (full: the oldest dropped, counted, one log line).
// tags: slow (rule timings on the real clock)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { startApp, type AppOptions, type RunningApp } from '../helpers/app.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { HttpReceiver, until } from './receivers.js';

async function start(
  t: { teardown(fn: () => unknown): void },
  alerts: Record<string, unknown>,
  log?: pino.Logger,
  time?: Pick<AppOptions, 'clock' | 'timers'>,
): Promise<RunningApp> {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-alert-cond-'));
  const config = path.join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ alerts: { checkIntervalMs: 100, ...alerts } }));
  const running = await startApp({ config, hardware: 'sim' }, { dataDir: path.join(dir, 'data'), log, ...time });
  t.teardown(async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return running;
}

const alertsOf = async (rt: RunningApp) => {
  const res = await fetch(`${rt.base}/alerts`);
  if (res.status !== 200) throw new Error(`GET alerts: ${res.status}`);
  return res.json() as Promise<{ active: any[]; history: any[]; outbox: any }>;
};
const activeOf = async (rt: RunningApp, key: string) => (await alertsOf(rt)).active.find((a) => a.key === key);
const history = async (rt: RunningApp, key: string, event: string) =>
  (await alertsOf(rt)).history.filter((h) => h.key === key && h.event === event);
const ok = async (rt: RunningApp, route: string, body: unknown) => {
  const res = await rt.post(route, body);
  if (res.status >= 300) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};
const send = (rt: RunningApp, method: string, route: string, body: unknown) =>
  fetch(`${rt.base}/${route}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then((r) => r.status);

t.test(
  'a setpoint pair out of its band for the set time fires (not before), names the values, and resolves back in band',
  async (t) => {
    const rt = await start(t, { rules: { setpointBand: { band: 2, after: 1 }, resolveAfter: 0.5 } });
    await ok(rt, 'blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 19.5 } });
    const pair = await ok(rt, 'blocks/create', {
      id: 'Beer Setpoint',
      type: 'SetpointSensorPair',
      data: { enabled: true, storedSetting: 18, 'sensorId<>': 'Beer Sensor' },
    });
    const key = `setpoint-band:${pair.nid}`;
    await new Promise((r) => setTimeout(r, 1500));
    t.equal(await activeOf(rt, key), undefined, '1.5 degC off with a band of 2: no alert');

    const narrowedAt = Date.now();
    t.equal(
      await send(rt, 'PUT', 'alerts/rules', { setpointBand: { band: 1, after: 1 } }),
      200,
      'band narrowed to 1 degC',
    );
    const alert = await until('the band alert', limit(5000), () => activeOf(rt, key), 50);
    t.ok(
      alert.firedAt - alert.firstSeenAt >= 1000,
      `fired after the set time (${alert.firedAt - alert.firstSeenAt} ms out of band)`,
    );
    t.ok(Date.now() - narrowedAt >= 1000, 'not before the set time');
    t.equal(alert.blockId, 'Beer Setpoint');
    t.match(alert.text, /19\.5 °C, setting 18\.0 °C: further than 1\.0 °C/, 'the text names the values and the band');
    t.same(alert.values, { value: 19.5, setting: 18, band: 1 });

    await ok(rt, 'blocks/patch', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 18.4 } });
    await until('the resolve', limit(5000), async () => (await history(rt, key, 'resolved')).length === 1, 50);
    t.equal(await activeOf(rt, key), undefined, 'back in band: resolved');
  },
);

t.test('an output held on longer than its onAfter fires; a disabled pair or output rule does not', async (t) => {
  const rt = await start(t, { rules: { outputOn: { after: 0 }, resolveAfter: 0.5 } });
  await ok(rt, 'blocks/create', { id: 'pins', type: 'MockPins', data: {} });
  const heater = await ok(rt, 'blocks/create', {
    id: 'Heater',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': 'pins', channel: 1, storedState: 'STATE_ACTIVE' },
  });
  const pump = await ok(rt, 'blocks/create', {
    id: 'Pump',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': 'pins', channel: 2, storedState: 'STATE_ACTIVE' },
  });
  t.equal(heater.data.state, 'STATE_ACTIVE', 'the heater is on');
  await new Promise((r) => setTimeout(r, 800));
  t.equal((await alertsOf(rt)).active.length, 0, 'the default (0) is off: no alert');

  t.equal(
    await send(rt, 'PUT', 'alerts/rules', { blocks: { Heater: { onAfter: 1 }, Pump: { onAfter: 1, enabled: false } } }),
    200,
  );
  const key = `output-on:${heater.nid}`;
  const alert = await until('the output alert', limit(5000), () => activeOf(rt, key), 50);
  t.ok(alert.firedAt - alert.firstSeenAt >= 1000, 'after the set time on');
  t.match(alert.text, 'Heater has been on without a break for more than 1 s');
  await new Promise((r) => setTimeout(r, 500));
  t.equal(await activeOf(rt, `output-on:${pump.nid}`), undefined, 'a block with alerts disabled does not fire');

  await ok(rt, 'blocks/patch', { id: 'Heater', type: 'DigitalActuator', data: { storedState: 'STATE_INACTIVE' } });
  await until('the resolve', limit(5000), async () => (await history(rt, key, 'resolved')).length === 1, 50);
  t.pass('off again: resolved');
});

t.test('control disabled fires at once and resolves when enabled again', async (t) => {
  const rt = await start(t, { rules: { resolveAfter: 0.5 } });
  await new Promise((r) => setTimeout(r, 400));
  t.equal(await activeOf(rt, 'control-disabled'), undefined, 'enabled: no alert');
  t.equal(await send(rt, 'PUT', 'settings/enabled', { enabled: false }), 200);
  const alert = await until('the control alert', limit(3000), () => activeOf(rt, 'control-disabled'), 50);
  t.match(alert.text, 'Control is disabled');
  t.equal(await send(rt, 'PUT', 'settings/enabled', { enabled: true }), 200);
  await until(
    'the resolve',
    limit(3000),
    async () => (await history(rt, 'control-disabled', 'resolved')).length === 1,
    50,
  );
  t.equal(await activeOf(rt, 'control-disabled'), undefined);
});

t.test(
  "conditions are evaluated in the control loop's wake-ups, with a slow timer of their own only while no tick comes",
  async (t) => {
    // The loop and the alert checks on a manual clock: seconds of it take milliseconds, exactly.
    const clock = new ManualClock(1000);
    const timers = new ManualTimers(clock);
    const rt = await start(t, { checkIntervalMs: 1000 }, undefined, { clock, timers });
    const { alerts, runtime } = rt.app;
    // When each evaluation ran, and whether in a control-loop tick (at the time of the last tick).
    const evaluations: { at: number; inTick: boolean }[] = [];
    const evaluate = alerts.evaluate.bind(alerts);
    t.capture(alerts, 'evaluate', (now?: number) => {
      evaluations.push({ at: clock.now(), inTick: runtime.lastTickAt >= clock.now() - 1 });
      evaluate(now);
    });
    // The fallback timer is set five intervals ahead; the loop's never more than one.
    const fallbacks = () => timers.fired.filter((f) => f.ms === 5 * 1000).length;
    await timers.advance(500);
    evaluations.length = 0;
    await timers.advance(6000);
    t.equal(evaluations.length, 6, '6 evaluations in 6 s at one a second');
    t.ok(
      evaluations.every((e) => e.inTick),
      'each one inside a control-loop tick (no wake-up of their own)',
    );
    t.equal(fallbacks(), 0, 'the fallback timer never fired while the ticks came');

    t.equal(await send(rt, 'PUT', 'settings/enabled', { enabled: false }), 200);
    const ticks = runtime.lastTickAt;
    evaluations.length = 0;
    await timers.advance(5600);
    t.equal(runtime.lastTickAt, ticks, 'control disabled: no ticks');
    // The fallback timer fires only when no tick came for five intervals (a timer of its own would
    // wake the process; one pushed back with refresh() would still wake it at its first expiry).
    t.same(
      evaluations.map((e) => e.inTick),
      [false],
      `one evaluation in 5.6 s without ticks, from the fallback timer (${evaluations.map((e) => e.at - ticks)} ms after the last tick)`,
    );
    t.ok(
      evaluations[0]!.at - ticks >= 5000 && evaluations[0]!.at - ticks <= 5000 + 1,
      'five intervals after the last tick',
    );
    t.equal(fallbacks(), 1, 'the fallback timer fired');
    t.ok(await activeOf(rt, 'control-disabled'), 'and the control-disabled alert fired from it');
  },
);

// The reminder interval itself (15 min at the least, rules.test.ts) is timed in tracker-times.test.ts.
t.test('an active alert is acknowledged over the API and stays active; an unknown key is a 404', async (t) => {
  const rt = await start(t, {});
  t.equal(await send(rt, 'PUT', 'settings/enabled', { enabled: false }), 200);
  await until('the control alert', limit(3000), () => activeOf(rt, 'control-disabled'), 50);
  t.equal(await send(rt, 'POST', 'alerts/acknowledge', { key: 'control-disabled' }), 200);
  t.equal((await activeOf(rt, 'control-disabled')).acknowledged, true, 'still active, acknowledged');
  t.equal((await history(rt, 'control-disabled', 'acknowledged')).length, 1, 'in the history');
  t.equal(await send(rt, 'POST', 'alerts/acknowledge', { key: 'no-such-alert' }), 404, 'an unknown key is a 404');
});

t.test('a full outbox drops the oldest, counts it, and logs one line', async (t) => {
  const receiver = new HttpReceiver();
  await receiver.start();
  await receiver.stop(); // nothing listens on the port: every send fails, the outbox fills
  const lines: any[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const LIMIT = 10;
  const rt = await start(
    t,
    { webhook: { url: receiver.url('/hook') }, outboxLimit: LIMIT, retryBaseMs: 60000, rules: { resolveAfter: 0 } },
    log,
  );
  // Control off and on again: each time an alert fires and resolves, two messages.
  for (let i = 0; i < 10; i++) {
    t.equal(await send(rt, 'PUT', 'settings/enabled', { enabled: false }), 200);
    await until('the control alert', limit(3000), () => activeOf(rt, 'control-disabled'), 50);
    t.equal(await send(rt, 'PUT', 'settings/enabled', { enabled: true }), 200);
    await until('resolved', limit(3000), async () => !(await activeOf(rt, 'control-disabled')), 50);
  }
  const status = async () =>
    ((await (await fetch(`${rt.base}/system/status`)).json()) as { alerts: { outbox: any } }).alerts.outbox;
  const full = await until('drops', limit(15000), async () => {
    const o = await status();
    return o.dropped >= 5 && o;
  });
  t.ok(full.pending <= LIMIT, `the outbox holds at most its limit (${full.pending} of ${LIMIT})`);
  t.equal(full.limit, LIMIT);
  t.ok(full.queued >= LIMIT + 5, `more were queued (${full.queued}) than it holds`);
  const dropped = (await alertsOf(rt)).history.filter((h) => h.event === 'dropped');
  t.ok(dropped.length >= 1, 'the drops are in the history');
  t.match(dropped[0].text, 'dropped: outbox full', 'with the reason');
  const dropLines = lines.filter((l) => /dropped/.test(l.msg));
  t.equal(dropLines.length, 1, `one log line for ${full.dropped} drops`);
  t.equal(dropLines[0]?.msg, 'alert outbox: messages dropped');
});
