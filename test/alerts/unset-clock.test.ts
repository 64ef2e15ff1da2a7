// Alerts on a Pi without a real-time clock: it boots at 1970 and network time sets the clock
// minutes later. An alert that fired meanwhile was stored with 1970 times, and its "since" stayed
// 1970 for good: after the clock was set, and across restarts. The built CLI on the emulated
// hardware under libfaketime (the wall clock moved 20000 days back: not set; then set): the
// times are stored again once the clock is set, and a row stored with 1970 times (a kill -9
// before the clock was set) reads back as the time it had been seen before the stop, not 1970.
// Likewise a clock set but behind (booted at an old saved time) that network time jumps forward:
// the rows were stored with the old times, and a restart read the jump as time stopped.
// tags: slow (the built service started five times under a moved clock)
import path from 'node:path';
import mqtt from 'mqtt';
import t, { type Test } from 'tap';
import { isWallSet } from '../../src/shared/wall-set.js';
import Database from '../../src/store/sqlite.js';
import { killAndWait } from '../helpers/children.js';
import { postJson, startCli } from '../helpers/cli.js';
import { movedClock } from '../helpers/faketime.js';
import { limit } from '../helpers/limits.js';
import { getJson } from './http.js';
import { HttpReceiver, until } from './receivers.js';
import { writeConfig } from './sim-service.js';

const NOT_SET = '-20000d';

function rig(t: Test, extra: Record<string, unknown> = {}) {
  const testStart = Date.now();
  const cfg = writeConfig({
    checkIntervalMs: 100,
    rules: { sensorNull: { after: 1 }, resolveAfter: 15, blocks: {} },
    ...extra,
  });
  const clock = movedClock(path.dirname(cfg.file));
  const start = () =>
    startCli(
      ['--config', cfg.file, '--data-dir', cfg.dataDir, '--mqtt-port', '0'],
      { ...clock.env, EDGEBLOCKS_LOG_FORMAT: 'json' },
      t,
    );
  const stored = (key: string) => {
    const db = new Database(path.join(cfg.dataDir, 'edgeblocks.db'), { readonly: true });
    try {
      const row = db.prepare('SELECT value FROM alert_active WHERE key = ?').get(key) as { value: string } | undefined;
      return row ? JSON.parse(row.value) : undefined;
    } finally {
      db.close();
    }
  };
  const storedHistory = () => {
    const db = new Database(path.join(cfg.dataDir, 'edgeblocks.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT value FROM alert_history').all() as { value: string }[];
      return rows.map((r) => JSON.parse(r.value));
    } finally {
      db.close();
    }
  };
  const sensorAlert = async (api: string, id: string) => {
    const created = await postJson(`${api}/blocks/create`, {
      id,
      type: 'TempSensorMock',
      data: { connected: false, 'setting[degC]': 20 },
    });
    t.equal(created.status, 201);
    const key = `sensor-null:${created.body.nid}`;
    await until(`the ${id} alert stored`, limit(20_000), () => stored(key));
    return key;
  };
  const since = async (api: string, key: string) =>
    (await getJson(`${api}/alerts`)).active.find((a: any) => a.key === key)?.firstSeenAt as number;
  const plausible = (at: number) => at >= testStart - 5000 && at <= Date.now() + 5000;
  return { clock, start, stored, storedHistory, sensorAlert, since, plausible };
}

t.test('alerts fired while the clock was not set do not keep 1970 times', async (t) => {
  const { clock, start, stored, sensorAlert, since, plausible } = rig(t);

  // Booted at 1970: an alert fires and is stored with the clock's times; killed before network time.
  clock.move(NOT_SET);
  let cli = await start();
  let api = `${cli.base}/edge-one`;
  const first = await sensorAlert(api, 'Probe One');
  t.notOk(isWallSet(stored(first).firstSeenAt), 'stored with the unset clock: 1970');
  await killAndWait(cli.child, 'SIGKILL');

  // The next boot has network time before the start: the 1970 row is no 1970 alert.
  clock.move('+0');
  cli = await start();
  api = `${cli.base}/edge-one`;
  const after = await since(api, first);
  t.ok(plausible(after), `since ${new Date(after).toISOString()}, not 1970, after a start with the clock set`);

  // Booted at 1970 again: a second alert fires; network time sets the clock while it runs.
  await killAndWait(cli.child, 'SIGTERM');
  clock.move(NOT_SET);
  cli = await start();
  api = `${cli.base}/edge-one`;
  const second = await sensorAlert(api, 'Probe Two');
  t.notOk(isWallSet(stored(second).firstSeenAt), 'stored with the unset clock: 1970');
  clock.move('+0');
  const row = await until('the alert stored again with the clock set', limit(20_000), () => {
    const r = stored(second);
    return r && isWallSet(r.firstSeenAt) ? r : undefined;
  });
  t.ok(plausible(row.firstSeenAt), `stored again: since ${new Date(row.firstSeenAt).toISOString()}`);
  await killAndWait(cli.child, 'SIGTERM');
  cli = await start();
  t.teardown(() => killAndWait(cli.child, 'SIGTERM'));
  api = `${cli.base}/edge-one`;
  for (const key of [first, second]) {
    const at = await since(api, key);
    t.ok(plausible(at), `${key}: since ${new Date(at).toISOString()} after another restart`);
  }
});

t.test(
  'an alert fired on a clock behind keeps its real times after network time jumps it forward, and a restart',
  async (t) => {
    const { clock, start, stored, sensorAlert, since, plausible } = rig(t);
    // A Pi booted at the time it last saved, two days old: set, but behind.
    clock.move('-2d');
    let cli = await start();
    let api = `${cli.base}/edge-one`;
    const key = await sensorAlert(api, 'Probe');
    const firedRow = stored(key);
    t.ok(Date.now() - firedRow.firstSeenAt > 86_400_000, 'stored with the clock two days behind');
    // Network time: the clock jumps two days forward while the service runs.
    clock.move('+0');
    const row = await until('the alert stored again after the jump', limit(20_000), () => {
      const r = stored(key);
      return r && plausible(r.firstSeenAt) ? r : undefined;
    });
    t.ok(plausible(row.firstSeenAt), `stored again: since ${new Date(row.firstSeenAt).toISOString()}`);
    await killAndWait(cli.child, 'SIGTERM');
    cli = await start();
    t.teardown(() => killAndWait(cli.child, 'SIGTERM'));
    api = `${cli.base}/edge-one`;
    const at = await since(api, key);
    t.ok(plausible(at), `since ${new Date(at).toISOString()} after the restart, not two days before it`);
  },
);

t.test('a message fired while the clock was not set is sent once it is, with the time it happened', async (t) => {
  // The receiver is down while the clock is not set (no network before network time either).
  const hook = new HttpReceiver();
  await hook.start();
  await hook.stop();
  t.teardown(() => hook.stop());
  const { clock, start, sensorAlert, since, plausible } = rig(t, {
    webhook: { url: hook.url('/hook') },
    retryBaseMs: 200,
    retryMaxMs: 500,
  });
  clock.move(NOT_SET);
  const cli = await start();
  t.teardown(() => killAndWait(cli.child, 'SIGTERM'));
  const api = `${cli.base}/edge-one`;
  const key = await sensorAlert(api, 'Probe');
  const failed = await until('a failed try', limit(20_000), async () =>
    (await getJson(`${api}/alerts`)).history.find((h: any) => h.event === 'failed'),
  );
  t.ok(failed, 'tried and failed while the clock was not set');
  clock.move('+0');
  await until('the clock seen set', limit(20_000), async () => plausible(await since(api, key)) || undefined);
  await hook.start();
  const sent = await until('the message sent', limit(20_000), () =>
    hook.json('/hook').find((m) => m.event === 'fired'),
  );
  t.ok(plausible(Date.parse(sent.at)), `sent, at ${sent.at}: not 1970`);
  const history = (await getJson(`${api}/alerts`)).history;
  t.same(
    history.filter((h: any) => h.event === 'dropped').map((h: any) => h.text),
    [],
    'not dropped as too old',
  );
});

t.test('the retained MQTT alert list says when an alert began once the clock is set, not 1970', async (t) => {
  const { clock, start, sensorAlert, plausible } = rig(t);
  clock.move(NOT_SET);
  const cli = await start();
  t.teardown(() => killAndWait(cli.child, 'SIGTERM'));
  const api = `${cli.base}/edge-one`;
  const key = await sensorAlert(api, 'Probe');
  const brokerPort = await until(
    'the broker port',
    limit(10_000),
    async () => (await getJson(`${api}/system/status`)).mqtt.brokerPort ?? undefined,
  );
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${brokerPort}`);
  t.teardown(() => client.endAsync());
  const lists: any[] = [];
  client.on('message', (topic, payload) => {
    if (!topic.endsWith('/ha')) lists.push(JSON.parse(payload.toString()));
  });
  await client.subscribeAsync('+/alerts/#');
  const since = () => lists.at(-1)?.active?.find((a: any) => a.key === key)?.since as string | undefined;
  const first = await until('the retained list', limit(10_000), since);
  t.notOk(plausible(Date.parse(first)), `while the clock is not set: ${first}`);
  clock.move('+0');
  const set = await until('the list again with the clock set', limit(20_000), () => {
    const at = since();
    return at && plausible(Date.parse(at)) ? at : undefined;
  });
  t.ok(plausible(Date.parse(set)), `since ${set} once the clock is set`);
});

// The history (GET /alerts, the dashboard's list of events) kept the 1970 `at` of each entry
// written while the clock was not set: the active alerts and the outbox rows were moved when it
// was set (AlertStore.placeUnset), the history entries not, so the fired event of an alert shown
// since this morning said 1970, and sorted as the oldest. They now move by the same rule: by as
// much as the clock moved when it was set; those an earlier run left (a kill before network
// time) are placed at the start.
t.test('history entries written while the clock was not set say when they happened once it is', async (t) => {
  const { clock, start, sensorAlert, plausible } = rig(t);
  const historyOf = async (api: string, key: string) =>
    ((await getJson(`${api}/alerts`)).history as any[]).filter((h) => h.key === key);
  clock.move(NOT_SET);
  let cli = await start();
  let api = `${cli.base}/edge-one`;
  const first = await sensorAlert(api, 'Probe One');
  const fired = await until('the fired entry', limit(10_000), async () =>
    (await historyOf(api, first)).find((h) => h.event === 'fired'),
  );
  t.notOk(plausible(Date.parse(fired.at)), `written with the unset clock: ${fired.at}`);
  await killAndWait(cli.child, 'SIGKILL');

  // A start with the clock set: the entries of the earlier run are placed at the start.
  clock.move('+0');
  cli = await start();
  api = `${cli.base}/edge-one`;
  const placed = await historyOf(api, first);
  t.ok(placed.length > 0, 'the entries are there');
  t.same(
    placed.filter((h) => !plausible(Date.parse(h.at))).map((h) => `${h.event} ${h.at}`),
    [],
    'no entry of the earlier run says 1970 after a start with the clock set',
  );

  // Not set again; set while the service runs: this run's entries move with the clock.
  await killAndWait(cli.child, 'SIGTERM');
  clock.move(NOT_SET);
  cli = await start();
  t.teardown(() => killAndWait(cli.child, 'SIGTERM'));
  api = `${cli.base}/edge-one`;
  const second = await sensorAlert(api, 'Probe Two');
  await until('the fired entry', limit(10_000), async () =>
    (await historyOf(api, second)).find((h) => h.event === 'fired'),
  );
  clock.move('+0');
  const moved = await until('the entries moved with the clock', limit(20_000), async () => {
    const entries = await historyOf(api, second);
    return entries.length > 0 && entries.every((h) => plausible(Date.parse(h.at))) ? entries : undefined;
  });
  const at = Date.parse(moved.find((h: any) => h.event === 'fired').at);
  t.ok(plausible(at), `fired at ${new Date(at).toISOString()} once the clock is set`);
});

// A Pi booted at an old saved time (set, two days behind) and jumped forward by network time:
// the history entries this run wrote before it kept the old times, so the list of events said the
// alert fired two days before the active alert said it began. e106579 moved them when the runtime
// saw the jump (its next tick, up to a second later), but the active alert's times are made at
// each read against the clock as it reads now (times.ts): a read in between said both, in one
// answer. They now say their times by the same rule; entries of earlier runs stay.
t.test('history entries written on a clock behind move with the jump that sets it right', async (t) => {
  const { clock, start, sensorAlert, plausible, storedHistory } = rig(t);
  clock.move('-2d');
  let cli = await start();
  t.teardown(() => killAndWait(cli.child, 'SIGTERM'));
  const api = `${cli.base}/edge-one`;
  const key = await sensorAlert(api, 'Probe');
  const firedAt = (answer: any) =>
    (answer.history as any[]).find((h) => h.key === key && h.event === 'fired')?.at as string | undefined;
  const before = firedAt(
    await until('the fired entry', limit(10_000), async () => {
      const answer = await getJson(`${api}/alerts`);
      return firedAt(answer) && answer;
    }),
  );
  t.notOk(plausible(Date.parse(before!)), `written two days behind: ${before}`);
  clock.move('+0');
  // The first answer whose active alert says it began today: its history says so too. (Asked
  // often: before, an answer in the second until the runtime saw the jump said both.)
  const answer = await until(
    'the active alert moved with the jump',
    limit(20_000),
    async () => {
      const a = await getJson(`${api}/alerts`);
      return plausible(a.active.find((x: any) => x.key === key)?.firstSeenAt) && a;
    },
    10,
  );
  const after = firedAt(answer);
  t.ok(after && plausible(Date.parse(after)), `the fired entry moved with the jump too, in the same answer: ${after}`);
  // Stored again with the jump: a restart reads the row as stored, and it says today too.
  await until('the history row stored again', limit(20_000), () => {
    const row = storedHistory().find((h) => h.key === key && h.event === 'fired');
    return row && plausible(Date.parse(row.at));
  });
  await killAndWait(cli.child, 'SIGTERM');
  cli = await start();
  const again = firedAt(await getJson(`${cli.base}/edge-one/alerts`));
  t.ok(again && plausible(Date.parse(again)), `after a restart: ${again}`);
});
