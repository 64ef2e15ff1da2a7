// Issue 44 item 7: time on a Pi. The built service under a moved wall clock (libfaketime with its
// time read from a file the test rewrites; the monotonic clock is left alone, as NTP leaves it):
// forward 3 days, backward 1 hour, and a start 6 months in the past followed by the jump to the
// present. Through each: the profile keeps its place, a digital constraint keeps its time, alerts
// neither fire nor remind nor drop a waiting message because of the jump (and a retry is not held
// back an hour), history holds no point in the future nor one from before the jump as if after
// it, and system/status says the clock jumped.
// tags: slow alone (the built service under a moved clock, on real time)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { HttpReceiver, until } from '../alerts/receivers.js';
import { killAndWait } from '../helpers/children.js';
import { postJson, startCli, type RunningCli } from '../helpers/cli.js';
import { movedClock } from '../helpers/faketime.js';
import { limit } from '../helpers/limits.js';

t.setTimeout(limit(400_000));

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const q = (unit: string, value: number) => ({ __objtype: 'Quantity', unit, value });

interface Rig {
  dir: string;
  receiver: HttpReceiver;
  /** Moves the service's wall clock to real time + `spec` ("+3d", "-1h", "-180d", "+0"). */
  move(spec: string): void;
  start(t: Test): Promise<Svc>;
}

interface Svc extends RunningCli {
  api: string;
  status(): Promise<any>;
  read(id: string): Promise<any>;
}

async function rig(t: Test): Promise<Rig> {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-clock-'));
  const receiver = new HttpReceiver();
  await receiver.start();
  await receiver.stop(); // down: alerts wait in the outbox until the test starts it
  t.teardown(() => receiver.stop());
  const config = path.join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      hardware: 'sim',
      emitInterval: 1000,
      historyFlushInterval: 1000,
      alerts: {
        webhook: { url: receiver.url('/hook') },
        checkIntervalMs: 200,
        retryBaseMs: 300,
        retryMaxMs: 1000,
        rules: { sensorNull: { after: 1 }, resolveAfter: 2 },
      },
    }),
  );
  const clock = movedClock(dir);
  return {
    dir,
    receiver,
    move: clock.move,
    start: async (t) => {
      const cli = await startCli(
        ['--config', config, '--data-dir', path.join(dir, 'data'), '--mqtt-port', '0'],
        { EDGEBLOCKS_LOG_FORMAT: 'json', ...clock.env },
        t,
      );
      const api = `${cli.base}/edge-one`;
      const get = async (url: string) => (await fetch(url)).json() as Promise<any>;
      return {
        ...cli,
        api,
        status: () => get(`${api}/system/status`),
        read: async (id: string) => (await postJson(`${api}/blocks/read`, { id })).body,
      };
    },
  };
}

async function ok(svc: Svc, route: string, body: unknown): Promise<any> {
  const res = await postJson(`${svc.api}/${route}`, body);
  if (res.status >= 300) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The profile (5 degC a day: a jump of an hour would move it 0.2 degC), an output held off by minOff, a sensor going null. */
async function createBlocks(svc: Svc): Promise<void> {
  await ok(svc, 'blocks/create', { id: 'Mock', type: 'TempSensorMock', data: { 'setting[degC]': 20 } });
  await ok(svc, 'blocks/create', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, 'sensorId<>': 'Mock', 'storedSetting[degC]': 10 },
  });
  await ok(svc, 'blocks/create', {
    id: 'Profile',
    type: 'SetpointProfile',
    data: {
      'targetId<>': 'Beer Setpoint',
      start: new Date(Date.now() - HOUR).toISOString(),
      points: [
        { time: 0, 'temperature[degC]': 10 },
        { time: q('day', 10), 'temperature[degC]': 60 },
      ],
    },
  });
  await ok(svc, 'blocks/create', { id: 'Pins', type: 'MockPins', data: {} });
  await ok(svc, 'blocks/create', {
    id: 'Valve',
    type: 'DigitalActuator',
    data: {
      'hwDevice<>': 'Pins',
      channel: 1,
      storedState: 'STATE_ACTIVE',
      constraints: { minOff: { duration: q('second', 600), enabled: true } },
    },
  });
  await ok(svc, 'blocks/patch', { id: 'Valve', type: 'DigitalActuator', data: { storedState: 'STATE_INACTIVE' } });
  await ok(svc, 'blocks/patch', { id: 'Valve', type: 'DigitalActuator', data: { storedState: 'STATE_ACTIVE' } });
}

const setting = async (svc: Svc) => (await svc.read('Beer Setpoint')).data.setting.value as number;
const minOffLeft = async (svc: Svc) => {
  const d = (await svc.read('Valve')).data;
  return { state: d.state as string, remaining: d.constraints.minOff.remaining.value as number };
};

/** A sensor that reads null (an external one nobody writes): its alert waits in the outbox while the receiver is down. */
async function pendingAlert(svc: Svc): Promise<void> {
  await ok(svc, 'blocks/create', {
    id: 'Lost',
    type: 'TempSensorExternal',
    data: { timeout: q('second', 2), 'setting[degC]': 20 },
  });
  await until('the alert waiting in the outbox', limit(20_000), async () => {
    const a = (await (await fetch(`${svc.api}/alerts`)).json()) as any;
    return a.outbox.pending >= 1 && a.history.some((h: { event: string }) => h.event === 'failed');
  });
}

/** Raw points of the controller's own sensor between two real times (ms). */
async function points(svc: Svc, start: number, end: number): Promise<number[]> {
  const res = await fetch(`${svc.base}/history/timeseries/csv`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      fields: ['edge-one/Mock/value[degC]'],
      precision: 'ms',
      start: new Date(start).toISOString(),
      end: new Date(end).toISOString(),
    }),
  });
  if (res.status !== 200) throw new Error(`csv: ${res.status} ${await res.text()}`);
  return (await res.text())
    .trim()
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((l) => Number(l.split(',')[0]));
}

/** Waits for the jump to be seen (at most 10 s) and checks what status says of it. */
async function jumpSeen(t: Test, svc: Svc, byMs: number): Promise<void> {
  const deadline = Date.now() + limit(10_000);
  let s = await svc.status();
  while (!s.clock?.lastJump && Date.now() < deadline) {
    await sleep(200);
    s = await svc.status();
  }
  const jump = s.clock?.lastJump;
  t.ok(jump && Math.abs(jump.byMs - byMs) < 5000, `status: jumped by ${jump?.byMs} ms`);
  t.match(jump?.text, byMs > 0 ? /forward/ : /backward/, `status: "${jump?.text}"`);
  t.equal(s.clock?.jumps, 1, 'one jump');
}

async function keptTheirTime(t: Test, svc: Svc, before: { setting: number; remaining: number; at: number }) {
  const after = await setting(svc);
  t.ok(Math.abs(after - before.setting) < 0.01, `the profile kept its place (${before.setting} -> ${after})`);
  const valve = await minOffLeft(svc);
  const passed = (Date.now() - before.at) / 1000;
  t.equal(valve.state, 'STATE_INACTIVE', 'the output is still held off by minOff');
  t.ok(
    Math.abs(valve.remaining - (before.remaining - passed)) < 3,
    `minOff counts real time: ${valve.remaining.toFixed(0)} s left (${before.remaining.toFixed(0)} - ${passed.toFixed(0)})`,
  );
}

async function beforeJump(svc: Svc) {
  const valve = await minOffLeft(svc);
  return { setting: await setting(svc), remaining: valve.remaining, at: Date.now() };
}

/** The waiting alert reaches the receiver once it is up, and nothing else is sent. */
async function alertDelivered(t: Test, r: Rig): Promise<void> {
  await r.receiver.start();
  const got = await until('the waiting alert delivered', limit(10_000), () => r.receiver.json('/hook').at(0));
  t.equal(got.event, 'fired', 'the alert that waited is delivered: not dropped as too old, not held back');
  await sleep(limit(3000));
  t.same(
    r.receiver.json('/hook').map((m) => `${m.event} ${m.key}`),
    [`fired ${got.key}`],
    'nothing else sent: no reminder, resolve or alert because of the jump',
  );
}

t.test('forward 3 days', async (t) => {
  const r = await rig(t);
  const svc = await r.start(t);
  const startedAt = Date.now();
  await createBlocks(svc);
  await pendingAlert(svc);
  await sleep(limit(3000));
  const before = await beforeJump(svc);
  const start = Date.parse((await svc.read('Profile')).data.start);
  const jumpAt = Date.now();
  r.move('+3d');
  await jumpSeen(t, svc, 3 * DAY);
  await sleep(limit(3000));
  await keptTheirTime(t, svc, before);
  t.equal(
    Date.parse((await svc.read('Profile')).data.start),
    start + 3 * DAY,
    'the profile start moved with the clock',
  );
  await alertDelivered(t, r);
  const all = await points(svc, startedAt - DAY, Date.now() + 4 * DAY);
  const now = Date.now() + 3 * DAY;
  // How many depends on where the minute buckets fall (the older side is read as minute
  // averages); what matters is that both sides are there.
  t.ok(
    all.some((p) => p <= jumpAt + 61_000) && all.some((p) => p >= jumpAt + 3 * DAY - 2000),
    `points stored before and after the jump (${all.length})`,
  );
  t.same(
    all.filter((p) => p > now + 2000),
    [],
    'no point in the future',
  );
  t.same(
    // Points from before the jump are 3 days old now: read from the minute averages, each at its minute's end.
    all.filter((p) => p > jumpAt + 61_000 && p < jumpAt + 3 * DAY - 2000).map((p) => new Date(p).toISOString()),
    [],
    'none between: points measured before the jump are at their time, the ones after at the new time',
  );
  await killAndWait(svc.child, 'SIGTERM');
});

t.test('backward 1 hour', async (t) => {
  const r = await rig(t);
  const svc = await r.start(t);
  const startedAt = Date.now();
  await createBlocks(svc);
  await pendingAlert(svc);
  await sleep(limit(3000));
  // More than five points stored before the jump (one a second: how many the steps above left
  // depends on how long they took, six in 6-7 s on a quiet machine).
  await until(
    'six points stored before the jump',
    limit(10_000),
    async () => (await points(svc, startedAt - 2 * HOUR, Date.now() + HOUR)).length > 5,
    200,
  );
  const before = await beforeJump(svc);
  r.move('-1h');
  await jumpSeen(t, svc, -HOUR);
  await sleep(limit(5000));
  await keptTheirTime(t, svc, before);
  await alertDelivered(t, r);
  const all = await points(svc, startedAt - 2 * HOUR, Date.now() + HOUR);
  t.ok(all.length > 5, `points stored before the jump (${all.length})`);
  t.same(
    all.filter((p) => p < startedAt - 1000),
    [],
    'nothing stored at the hour the clock went back to (it would lie under the points already stored)',
  );
  const st = await svc.status();
  t.ok(st.history.clock?.heldPoints > 0, `held meanwhile (${st.history.clock?.heldPoints} points)`);
  await killAndWait(svc.child, 'SIGTERM');
});

t.test('a start 6 months in the past, then network time', async (t) => {
  const r = await rig(t);
  let svc = await r.start(t);
  const firstStart = Date.now();
  await createBlocks(svc);
  await sleep(limit(3000));
  const placeAtStop = await setting(svc);
  await killAndWait(svc.child, 'SIGTERM');

  r.move('-180d');
  svc = await r.start(t);
  const restartAt = Date.now();
  const s = await svc.status();
  t.ok(s.clock?.behind, 'status: the clock is behind the last time seen');
  t.ok(Math.abs(s.clock?.behind?.byMs - 180 * DAY) < 60_000, `by 180 days (${s.clock?.behind?.byMs} ms)`);
  await sleep(limit(3000));
  const resumed = await setting(svc);
  t.ok(Math.abs(resumed - placeAtStop) < 0.01, `the profile resumed at its place (${placeAtStop} -> ${resumed})`);
  t.same(await points(svc, firstStart - 200 * DAY, firstStart - DAY), [], 'nothing stored 6 months back');
  await sleep(limit(4000));
  t.ok((await svc.status()).history.clock?.heldPoints > 0, 'points held while the clock is behind');
  const before = await beforeJump(svc);

  const jumpAt = Date.now();
  r.move('+0');
  await jumpSeen(t, svc, 180 * DAY);
  await sleep(limit(3000));
  t.equal((await svc.status()).clock?.behind, null, 'the clock is right again');
  await keptTheirTime(t, svc, before);
  t.same(await points(svc, firstStart - 200 * DAY, firstStart - DAY), [], 'still nothing 6 months back');
  const held = await points(svc, restartAt - 1000, jumpAt + 1000);
  t.ok(held.length >= 4, `the points measured before the jump are stored at their real times (${held.length})`);
  t.ok(
    held.every((p, i) => i === 0 || p > held[i - 1]!),
    'in the order they were measured',
  );
  const all = await points(svc, firstStart - DAY, Date.now() + DAY);
  t.same(
    all.filter((p) => p > Date.now() + 2000),
    [],
    'no point in the future',
  );
  await killAndWait(svc.child, 'SIGTERM');
});
